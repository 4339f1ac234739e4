"""Each seat's record, stored on its Seat row when the match finishes."""

from __future__ import annotations

from games.models import Match, Resolution, Seat
from games.records import seat_records


def match_records_store(*, match: Match) -> None:
    """Store on every seat of a finished match what its game records: won and score
    (final_money) always, and in `counts` what the game keeps (its
    presentation's `record_fields`: Helium 3's helium mined, Halite's territory,
    Skyport's points, ...).

    The caller holds the match row and its transaction (match_finish); the records
    command calls it again to rebuild the records of finished matches.
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
            won=record.won, final_money=record.final_money, counts=record.counts
        )
