"""The remake's events as sentences: Helium 3's sentences with the remake's words.

A `deflect` action is a `shielded` event carrying its direction, told as the shield
set to deflect that way; a `shield` action's event carries none. An action that
reality forbids after hidden shields changed an earlier one is `skipped` with the
engine's code, every code told in words (`not_shielded`: a deflect whose shield
was spent earlier in the turn).
"""

from __future__ import annotations

from typing import Any

from games.play.helium3.sentences import Words, describe_events

SKIP_REASONS = {
    "robot_destroyed": "it had been destroyed earlier in the turn",
    "occupied": "its destination was taken",
    "blocked": "its way was blocked",
    "out_of_range": "its target was out of range",
    "off_board": "its cell was off the board",
    "not_armed": "it was not armed",
    "not_shielded": "its shield was already spent",
}
WORDS = Words(
    noun="Vehicle",
    skipped="action",
    deflect="set its shield to deflect {direction}",
    skip_reasons=SKIP_REASONS,
)


def sentences(events: list[dict[str, Any]]) -> list[str]:
    """One viewer's copy of one turn's events as sentences, in order."""
    return describe_events(events, WORDS)
