"""What a finished arena match records per seat (its presentation's `seat_records`
and `record_fields`): what the arena counts, damage. The health its robot had left
(its score), the damage it dealt, the robots it destroyed, and its shots fired and
on target. Pure: it reads the final state and the stored turns' full events, whose
shots, damage and destructions name the seat that dealt them."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from games import endings
from games.presentation_shape import Event, RecordField, SeatCounts

FIELDS = (
    RecordField("health", "health left", score=True, total="max"),
    RecordField("damage", "damage dealt"),
    RecordField("destroyed", "robots destroyed", one="robot destroyed"),
    RecordField("hits", "shots on target", one="shot on target"),
    RecordField("shots", "shots fired", one="shot fired"),
)


def seat_records(final: dict[str, Any], turns: Iterable[tuple[int, list[Event]]]) -> SeatCounts:
    """Each seat's win, health left (its score) and counts."""
    health = {seat: int(score) for seat, score in endings.final_scores(final).items()}
    counts = {s: {"damage": 0, "destroyed": 0, "hits": 0, "shots": 0} for s in health}
    for _, events in turns:
        for event in events:
            kind = event.get("type")
            if kind == "shot" and event.get("seat") in counts:
                counts[event["seat"]]["shots"] += 1
                if event.get("hit") is not None:
                    counts[event["seat"]]["hits"] += 1
            elif kind in ("damage", "destroyed") and event.get("by") in counts:
                if kind == "damage":
                    counts[event["by"]]["damage"] += int(event.get("damage", 0))
                else:
                    counts[event["by"]]["destroyed"] += 1
    winners = {int(s) for s in final.get("winners", [])}
    return {
        seat: {
            "won": seat in winners,
            "final_money": health[seat],
            "counts": {"health": health[seat], **counts[seat]},
        }
        for seat in health
    }
