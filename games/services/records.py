"""Each seat's record, stored on its Seat row when the match finishes."""

from __future__ import annotations

import engine
from games.models import Match, Resolution, Seat
from games.records import seat_records


def match_records_store(*, match: Match) -> None:
    """Store won, money, mined and robots destroyed/lost on every seat of a finished match.

    The caller holds the match row and its transaction (match_finish).
    """
    assert match.state is not None
    if "robots" not in match.state:
        # A game without Helium 3's robots and money: its winners and its scores.
        _scores_store(match=match)
        return
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


def _scores_store(*, match: Match) -> None:
    assert match.state is not None
    scores = engine.scores(match.state)
    winners = {int(s) for s in match.state.get("winners", [])}
    for seat in Seat.objects.filter(match=match):
        score = scores.get(str(seat.number))
        Seat.objects.filter(pk=seat.pk).update(
            won=seat.number in winners,
            final_money=int(score) if score is not None else None,
        )
