"""The Helium 3 remake on the site: Helium 3's moon and board with the remake's words,
five actions a turn (one per vehicle) in the planner's hints and the plain form, the
`deflect` action, its sentences and its rules page."""

from __future__ import annotations

from functools import cache
from typing import Any

from django.utils.safestring import SafeString

import engine
from engine.remake import orders, timing
from games import records
from games.play.helium3.tally import robots_left
from games.play.remake import board, hints, record, rules, sentences
from games.play.remake.forms import OrdersForm
from games.presentation import Presentation


@cache
def picture() -> SafeString:
    """The board of a sample match (seed 1, four seats) at its start."""
    return board.picture_of(
        engine.view(engine.new_game(seed=1, seats=4, ruleset="helium3-remake"), None)
    )


# The engine's constants the board script needs to split an event into its phases.
TIMING = {
    "MISSILE_CELL_MS": timing.MISSILE_CELL_MS,
    "BLAST_MS": timing.BLAST_MS,
    "LASER_CELL_MS": timing.LASER_CELL_MS,
    "KAMIKAZE_MS": timing.KAMIKAZE_MS,
    "MIN_TURN_MS": timing.MIN_TURN_MS,
}


def decided(final: dict[str, Any], names: dict[int, str]) -> str:
    """What decided a remake match: its vehicles, its rounds."""
    return records.decided_by(
        final,
        names,
        noun="vehicle",
        when=f"in round {final.get('round')} of {final.get('rounds')}",
        ended="after the last round",
    )


def progress(view: dict[str, Any]) -> str:
    """The remake is counted in rounds, not by the battle clock."""
    return f"Round {view.get('round')} of {view.get('rounds')}"


PRESENTATION = Presentation(
    name="helium3-remake",
    title=engine.ruleset("helium3-remake").title,
    blurb="The original Helium 3, remade: five vehicles a seat, and every one of them acts "
    "each turn. Shields take one hit and can turn a laser back on its firer; the richest "
    "after the last round wins.",
    board=board.board,
    piece="vehicle",
    lost=board.destroyed_robots,
    decided=decided,
    # Counted as Helium 3 counts, in the remake's words (its places rank by the
    # scores its state carries).
    seat_records=record.seat_records,
    record_fields=record.FIELDS,
    pieces_left=robots_left,
    hints=hints.planner_hints,
    hints_after=hints.hints_after,
    sentences=sentences.sentences,
    orders_form=OrdersForm,
    orders_note=f"Up to {orders.MAX_ACTIONS} actions, one per vehicle, in order: each acts on "
    "the board the previous ones leave. A deflect points a shield raised on an earlier turn. "
    "Send with nothing chosen to pass.",
    rules_template="play/remake/rules.html",
    rules_context=rules.rules_context,
    picture=picture,
    legend_template="play/remake/_legend.html",
    planner_script="games/board.js",
    max_actions=orders.MAX_ACTIONS,
    timing=TIMING,
    place="The moon",
    spectator_note="no shields are shown",
    progress=progress,
    length=f"{engine.ruleset('helium3-remake').resolve_options({})['rounds']} rounds: "
    "one turn each per round",
)
