"""The statements an orders POST and a player's look run as SQL written once per
database (games/services/turns.py, games/services/notifications.py): they read and
write the same rows as the ORM calls they replace, on SQLite and on PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.db import transaction
from django.utils import timezone

from games import services
from games.models import Match, Seat, Turn
from games.services.turns import _turn_accept

pytestmark = pytest.mark.django_db


def _fields(instance: Any) -> dict[str, Any]:
    """The loaded fields of a model instance (the deferred ones are not in __dict__)."""
    return {
        f.attname: instance.__dict__.get(f.attname, "<deferred>")
        for f in instance._meta.concrete_fields
    }


def test_match_locked_reads_the_rows_the_orm_reads(running_match: Match, player: Any) -> None:
    with transaction.atomic():
        match, seat = services.match_locked(match_id=running_match.pk, user=player)
        expected = (
            Match.objects.select_for_update()
            .defer("initial_state", "record")
            .get(pk=running_match.pk)
        )
        expected_seat = Seat.objects.filter(match=running_match, user=player).order_by("pk").first()
    assert type(match) is Match and not match._state.adding
    assert _fields(match) == _fields(expected)
    assert (
        match.get_deferred_fields() == expected.get_deferred_fields() == {"initial_state", "record"}
    )
    assert match.state == expected.state and isinstance(match.state, dict)
    assert timezone.is_aware(match.created_at)
    assert seat is not None and expected_seat is not None
    assert _fields(seat) == _fields(expected_seat)
    # A deferred column is read when asked, as the ORM's instance reads it.
    assert match.initial_state == Match.objects.get(pk=running_match.pk).initial_state


def test_match_locked_without_a_seat_or_a_match(running_match: Match, spectator: Any) -> None:
    with transaction.atomic():
        match, seat = services.match_locked(match_id=running_match.pk, user=spectator)
    assert match.pk == running_match.pk and seat is None
    for missing in (running_match.pk + 1000, 0, 2**63, 10**30):
        with pytest.raises(Match.DoesNotExist), transaction.atomic():
            services.match_locked(match_id=missing, user=spectator)


def test_a_turn_is_accepted_once_and_only_while_waiting(running_match: Match) -> None:
    turn = Turn.objects.get(match=running_match, number=running_match.turn_number)
    assert turn.status == Turn.Status.WAITING
    now = datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)
    with transaction.atomic():
        assert _turn_accept(running_match.pk, turn.number, now, missed=True) is True
        # Claimed already: a second claim finds no waiting turn.
        assert _turn_accept(running_match.pk, turn.number, now, missed=False) is False
        # No such turn.
        assert _turn_accept(running_match.pk, turn.number + 5, now, missed=False) is False
    turn.refresh_from_db()
    assert turn.status == Turn.Status.ACCEPTED
    assert turn.accepted_at == now and turn.missed is True


def test_a_look_writes_the_time_given(running_match: Match, player: Any, opponent: Any) -> None:
    seen = timezone.now() - timedelta(minutes=3)
    services.seat_seen(match=running_match, user_id=player.pk, now=seen)
    assert Seat.objects.get(match=running_match, user=player).last_seen_at == seen
    # Only that player's seat of that match.
    assert Seat.objects.get(match=running_match, user=opponent).last_seen_at is None


def _looked(match: Match, user_id: int) -> tuple[list[str], datetime | None]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    seen = timezone.now() - timedelta(minutes=1)
    with CaptureQueriesContext(connection) as done:
        services.seat_seen(match=match, user_id=user_id, now=seen)
    return [q["sql"] for q in done.captured_queries], seen


@pytest.mark.django_db(transaction=True)
def test_a_look_outside_a_transaction_commits_without_waiting_for_the_disk(
    running_match: Match, player: Any
) -> None:
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("asynchronous commit is PostgreSQL's")
    with connection.cursor() as cursor:
        # The server's default, whatever the suite's connections start with.
        cursor.execute("SET synchronous_commit TO on")
        try:
            statements, seen = _looked(running_match, player.pk)
            assert len(statements) == 1
            assert "set_config('synchronous_commit', 'off', true)" in statements[0]
            assert Seat.objects.get(match=running_match, user=player).last_seen_at == seen
            # Set for that statement's own transaction only: the connection's next
            # commits (a player's orders among them) wait for the disk as before.
            cursor.execute("SHOW synchronous_commit")
            assert cursor.fetchone()[0] == "on"
        finally:
            cursor.execute("RESET synchronous_commit")


def test_a_look_inside_a_transaction_leaves_its_commit_as_it_was(
    running_match: Match, player: Any
) -> None:
    # The test's own transaction: whatever else it writes must reach the disk at
    # its commit.
    statements, seen = _looked(running_match, player.pk)
    assert len(statements) == 1 and "set_config" not in statements[0]
    assert Seat.objects.get(match=running_match, user=player).last_seen_at == seen
