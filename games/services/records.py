"""Each seat's record, stored on its Seat row when the match finishes."""

from __future__ import annotations

from games.models import Match, Resolution, Seat
from games.records import seat_records


def match_records_store(*, match: Match) -> None:
    """Store on every seat of a finished match what its game records: won and score
    (final_money) always, and the counts the game keeps (Helium 3: mined, robots
    destroyed and lost); a count the game does not keep stays null.

    The caller holds the match row and its transaction (match_finish).
    """
    assert match.state is not None
    # Lazy: only a game whose record counts events reads the stored turns.
    turns = (
        Resolution.objects.filter(match=match)
        .order_by("turn_number", "step")
        .values_list("seat", "events")
    )
    records = seat_records(match.state, turns)
    for seat in Seat.objects.filter(match=match):
        record = records.get(seat.number)
        if record is None:
            continue
        Seat.objects.filter(pk=seat.pk).update(
            won=record.won,
            final_money=record.final_money,
            mined=record.mined,
            robots_destroyed=record.robots_destroyed,
            robots_lost=record.robots_lost,
        )
