"""A finished match's scores and winners read from its final state alone: the
defaults a game's presentation falls back on (games/presentation_shape.py) and the
words every game's ending uses. Pure, and it asks no presentation, so the
presentations and games/records.py (which does ask them) both build on it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import engine

Turns = Iterable[tuple[int, list[dict[str, Any]]]]


def scored_seats(final_state: dict[str, Any], turns: Turns) -> dict[int, dict[str, Any]]:
    """The record of a game that counts nothing else: each seat's win and score."""
    winners = {int(s) for s in final_state.get("winners", [])}
    return {
        int(seat): {"won": int(seat) in winners, "final_money": int(score)}
        for seat, score in engine.scores(final_state).items()
    }


def final_scores(final_state: dict[str, Any]) -> dict[int, int | float]:
    """Each seat's score at the end (a presentation's default `final_scores`): the
    state's own `scores` when it carries them, else the engine's."""
    scores = final_state.get("scores")
    if not isinstance(scores, dict):
        scores = engine.scores(final_state)
    return {int(seat): score for seat, score in scores.items()}


def seat_names(seats: list[int], names: dict[int, str]) -> str:
    """ "Seat 2 (alice)", "Seats 1 (alice) and 3 (bot miner)"."""
    parts = [f"{s} ({names[s]})" if names.get(s) else str(s) for s in seats]
    joined = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return f"Seat{'s' if len(parts) > 1 else ''} {joined}"


def winner_phrase(final_state: dict[str, Any], names: dict[int, str] | None = None) -> str:
    """Who won, for a reader who did not play: "Seat 2 (alice) won", "Seats 1 and
    3 shared the win", "Nobody won"."""
    winners = [int(s) for s in final_state.get("winners", [])]
    if not winners:
        return "Nobody won"
    verb = "won" if len(winners) == 1 else "shared the win"
    return f"{seat_names(sorted(winners), names or {})} {verb}"
