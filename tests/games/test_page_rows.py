"""The page's rows made by hand (games/selectors.py) are the ORM's rows."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import DatabaseError, connection, transaction
from django.test.utils import CaptureQueriesContext
from site_support import drain

from games import selectors, services
from games.models import Match, Resolution


@pytest.mark.django_db(transaction=True)
def test_a_movie_s_rows_are_the_orm_s(player):
    match = services.match_create(creator=player, seat_count=2, bots=["random"], turn_seconds=3600)
    for turn in (0, 2):
        services.orders_submit(match_id=match.pk, user=player, turn=turn, actions=[])
        drain(match, emails=False)
    fields = ("turn_number", "step", "seat", "events", "turn_ms", "state")
    orm = list(
        Resolution.objects.filter(match=match, turn_number__gte=1, turn_number__lte=3)
        .order_by("turn_number", "step")
        .only(*fields)
    )
    mine = selectors.movie_rows(match, 1, 3)
    assert len(orm) == len(mine) >= 2
    for theirs, ours in zip(orm, mine, strict=True):
        assert ours.pk == theirs.pk
        assert isinstance(ours.state, dict) and isinstance(ours.events, list)
        assert {f: getattr(ours, f) for f in fields} == {f: getattr(theirs, f) for f in fields}


def test_fields_out_of_the_model_s_order_are_refused():
    out_of_order = tuple(Resolution._meta.get_field(n) for n in ("id", "turn_ms", "state"))
    with pytest.raises(ValueError, match="order"):
        selectors._from_row(Resolution, (1, 5, "{}"), out_of_order)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("history_page", [1, 2])
def test_the_seats_and_history_read_together_are_those_read_apart(player, history_page):
    match = services.match_create(creator=player, seat_count=2, bots=["random"], turn_seconds=3600)
    for turn in range(0, 24, 2):  # the bot may end it sooner: the history is what it is
        services.orders_submit(match_id=match.pk, user=player, turn=turn, actions=[])
        drain(match, emails=False)
        match.refresh_from_db()
        if match.status != match.Status.RUNNING:
            break
    for viewer in (1, None):
        seat = (
            next(s for s in selectors.match_seats(match) if s.number == viewer) if viewer else None
        )
        read = selectors.seats_and_history(match, viewer, history_page)
        apart = selectors.match_seats(match)
        assert [(s.pk, s.number, s.user_id) for s in read.seats] == [
            (s.pk, s.number, s.user_id) for s in apart
        ]
        assert [s.user for s in read.seats] == [s.user for s in apart]
        together = selectors.match_page(match, seat, history_page=history_page, read=read)
        alone = selectors.match_page(match, seat, seats=apart, history_page=history_page)
        assert together.recent_turns == alone.recent_turns
        assert together.recent_turns or history_page > 1
        assert together.history_more == alone.history_more
        # Read for another viewer or page: the page reads its own history instead.
        other = selectors.seats_and_history(match, 2 if viewer else 1, history_page + 1)
        assert (
            selectors.match_page(match, seat, history_page=history_page, read=other).recent_turns
            == alone.recent_turns
        )


def _played(player: Any, turns: int) -> Match:
    match = services.match_create(creator=player, seat_count=2, bots=["random"], turn_seconds=3600)
    for turn in range(0, turns, 2):
        services.orders_submit(match_id=match.pk, user=player, turn=turn, actions=[])
        drain(match, emails=False)
    return match


def _read(match: Match, viewer: int | None) -> Any:
    read = selectors.seats_and_history(match, viewer)
    return (
        [(s.pk, s.number, s.user_id) for s in read.seats],
        read.history_for,
        [(r.pk, r.turn_number, r.step, r.events) for r in read.history],
    )


@pytest.mark.skipif(connection.vendor != "postgresql", reason="read together on PostgreSQL")
@pytest.mark.django_db(transaction=True)
def test_the_seats_and_history_are_prepared_once_then_only_executed(player):
    match = _played(player, 4)
    for viewer in (1, None):
        first = _read(match, viewer)  # prepared, if it was not
        with CaptureQueriesContext(connection) as queries:
            assert _read(match, viewer) == first
        # One round trip, both statements prepared: nothing left for the server to plan.
        assert [q["sql"][:24] for q in queries] == ["EXECUTE h3_seats_history"]
        assert first[2]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="read together on PostgreSQL")
@pytest.mark.django_db(transaction=True)
def test_seats_and_history_statements_gone_are_djangos_error_then_prepared_again(player):
    match = _played(player, 4)
    expected = _read(match, 1)
    try:
        with pytest.raises(DatabaseError), transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("DEALLOCATE ALL")
            selectors.seats_and_history(match, 1)
        # A DEALLOCATE outlives the savepoint's rollback: the next read prepares anew.
        assert _read(match, 1) == expected
        assert _read(match, 1) == expected
    finally:
        # The version's statements went too: the tests after this one, on the same
        # connection, have theirs prepared again.
        connection._h3_prepared.names.clear()
