"""Each seat's record, stored on its Seat row when the match finishes."""

from __future__ import annotations

from django.db import transaction

from games.models import Match, Resolution, Seat
from games.records import seat_records


def match_records_store(*, match: Match) -> None:
    """Store on every seat of a finished match what its game records: won and score
    (final_money) always, and in `counts` what the game keeps (its
    presentation's `record_fields`: Helium 3's helium mined, Halite's territory,
    Skyport's points, ...).

    The caller holds the match row and its transaction (match_finish, or
    records_rebuild for matches finished before their game counted what it does).
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


def records_rebuild(*, ruleset: str = "") -> int:
    """Count every finished match's records again (of one game, or all) from its stored
    final state and turns, as its game counts them today: what a record did not hold
    when its match finished (a count a game added since) is filled in. One
    transaction per match; returns how many matches were counted."""
    matches = Match.objects.filter(status=Match.Status.FINISHED, state__isnull=False)
    if ruleset:
        matches = matches.filter(ruleset=ruleset)
    done = 0
    for pk in matches.order_by("pk").values_list("pk", flat=True).iterator():
        with transaction.atomic():
            match = Match.objects.select_for_update().defer("record").get(pk=pk)
            match_records_store(match=match)
        done += 1
    return done
