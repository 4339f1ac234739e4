"""What a finished Skyport match records per seat (its presentation's
`seat_records` and `record_fields`): what Skyport counts, points. Its points at
the end (its score), the damage it dealt to others, the robots it destroyed, its own
deaths and the resources it mined. Pure: it reads the final state and the stored
turns' full events, whose damage and deaths name who dealt them (`by`)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from games import endings
from games.presentation_shape import Event, RecordField, SeatCounts

FIELDS = (
    RecordField("points", "points", one="point", score=True),
    RecordField("damage", "damage dealt"),
    RecordField("kills", "robots destroyed", one="robot destroyed"),
    RecordField("deaths", "deaths", one="death"),
    RecordField("mined", "resources mined", one="resource mined"),
)


def seat_records(final: dict[str, Any], turns: Iterable[tuple[int, list[Event]]]) -> SeatCounts:
    """Each seat's win, points and counts. Damage a seat does to itself (a mortar at
    its feet) scores nothing in Skyport and counts for nothing here either."""
    points = {seat: int(score) for seat, score in endings.final_scores(final).items()}
    counts = {s: {"damage": 0, "kills": 0, "deaths": 0, "mined": 0} for s in points}
    for _, events in turns:
        for event in events:
            kind, seat, by = event.get("type"), event.get("seat"), event.get("by")
            if kind == "damage" and by in counts and by != seat:
                counts[by]["damage"] += int(event.get("amount", 0))
            elif kind == "death":
                if seat in counts:
                    counts[seat]["deaths"] += 1
                if by in counts and by != seat:
                    counts[by]["kills"] += 1
            elif kind == "mine" and seat in counts:
                counts[seat]["mined"] += 1
    winners = {int(s) for s in final.get("winners", [])}
    return {
        seat: {
            "won": seat in winners,
            "final_money": points[seat],
            "counts": {"points": points[seat], **counts[seat]},
        }
        for seat in points
    }
