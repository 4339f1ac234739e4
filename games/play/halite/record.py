"""What a finished Halite match records per seat (its presentation's `seat_records`
and `record_fields`): what Halite counts, territory. The cells held at the end (its
score), the production and strength on them, and the territory held over the whole
match (the cells held, summed over every turn: the 2016 tie-break). Pure: it reads
the final state only (a Halite match's turns are many and their events long)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from games.presentation_shape import Event, RecordField, SeatCounts

FIELDS = (
    RecordField(
        "territory", "cells held at the end", one="cell held at the end", total="max", score=True
    ),
    RecordField("production", "production held at the end", total="max"),
    RecordField("strength", "strength at the end", total="max"),
    RecordField("territory_total", "cell-turns held", one="cell-turn held"),
)


def seat_records(final: dict[str, Any], turns: Iterable[tuple[int, list[Event]]]) -> SeatCounts:
    """Each seat's win, territory at the end (stored as its score too) and what its
    cells hold."""
    seats = range(1, int(final["seats"]) + 1)
    counts = {s: {"territory": 0, "production": 0, "strength": 0} for s in seats}
    for owners, productions, strengths in zip(
        final["owner"], final["production"], final["strength"], strict=True
    ):
        for owner, production, strength in zip(owners, productions, strengths, strict=True):
            if owner in counts:
                held = counts[owner]
                held["territory"] += 1
                held["production"] += int(production)
                held["strength"] += int(strength)
    over_match = final.get("territory_total") or {}
    winners = {int(s) for s in final.get("winners", [])}
    return {
        seat: {
            "won": seat in winners,
            "final_money": held["territory"],
            "counts": {**held, "territory_total": int(over_match.get(str(seat), 0))},
        }
        for seat, held in counts.items()
    }
