"""The worker's resolution in few round trips (games/services/resolution.py,
games/services/turns.py): the lock and the claim sent together, the commit sent
with the last writes, the chain's inserts written once and their parameters made
as the ORM makes them."""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest
from django.db import DatabaseError, connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from site_support import statements_sent

from games import services
from games.models import Match, Notification, NotificationKind, Resolution, Turn
from games.prepared import prepared_state
from games.services import turns


def _plain(params: Any) -> list[Any]:
    # psycopg's JSON wrappers have no equality of their own: compare what they wrap.
    return [getattr(p, "obj", p) for p in params]


def _rows(match: Match, at: Any) -> list[Any]:
    made: list[Any] = [
        Turn(match=match, number=50 + n, seat=1, started_at=at, deadline_at=at, warn_at=at)
        for n in range(2)
    ]
    made += [
        Resolution(
            match=match,
            turn_number=50,
            step=0,
            seat=1,
            orders={"actions": []},
            events=[{"kind": "pass"}],
            state={"turn": 51},
            turn_ms=0,
        )  # fmt: skip
    ]
    made += [
        Notification(
            user=match.created_by,
            match=match,
            kind=NotificationKind.YOUR_TURN,
            turn_number=51,
            context={"deadline": at.isoformat()},
            send_after=at,
        )  # fmt: skip
    ]
    return made


def test_a_kept_insert_statement_has_the_compilers_parameters(running_match):
    at = timezone.now()
    for model, returning in ((Turn, True), (Resolution, True), (Notification, False)):
        rows = [row for row in _rows(running_match, at) if type(row) is model]
        turns._insert_sqls.clear()
        with mock.patch("django.utils.timezone.now", return_value=at):  # auto_now_add
            compiled = turns._insert_sql(connection, model, rows, returning=returning)
            assert len(turns._insert_sqls) == 1, model  # kept
            kept = turns._insert_sql(connection, model, rows, returning=returning)
        assert kept[0] == compiled[0]
        assert _plain(kept[1]) == _plain(compiled[1]), model
        assert len(kept[1]) == len(rows) * (len(model._meta.local_concrete_fields) - 1)
    # Another number of rows is another statement.
    one = _rows(running_match, at)[:1]
    assert (
        turns._insert_sql(connection, Turn, one)[0]
        != turns._insert_sql(connection, Turn, one * 2)[0]
    )


def test_a_paused_match_turn_is_not_claimed(running_match, player):
    services.orders_submit(match_id=running_match.pk, user=player, turn=0, actions=[])
    Match.objects.filter(pk=running_match.pk).update(status=Match.Status.PAUSED)
    assert services.turn_resolve(match_id=running_match.pk, number=0) is None
    turn = Turn.objects.get(match=running_match, number=0)
    assert (turn.status, turn.resolved_at) == (Turn.Status.ACCEPTED, None)
    Match.objects.filter(pk=running_match.pk).update(status=Match.Status.RUNNING)
    assert services.turn_resolve(match_id=running_match.pk, number=0) is not None
    assert Turn.objects.get(match=running_match, number=0).status == Turn.Status.RESOLVED
    # A second delivery claims nothing.
    assert services.turn_resolve(match_id=running_match.pk, number=0) is None


@pytest.fixture
def resolved_here() -> Any:
    """The test resolves the turn itself: the orders' commit queues no task. The
    run's worker thread, started by an earlier test, would otherwise take the turn
    (this test's resolution then finds it claimed) or resolve it while the test's
    database is being emptied (a deadlock on PostgreSQL)."""
    with mock.patch.object(turns, "turn_resolve_queue") as queued:
        yield queued


def _postgresql() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("the round trips asked of PostgreSQL")


@pytest.mark.django_db(transaction=True)
def test_the_worker_resolves_in_two_round_trips_begun_and_committed_with_its_statements(
    running_match, player, resolved_here
):
    _postgresql()
    services.orders_submit(match_id=running_match.pk, user=player, turn=0, actions=[])
    assert resolved_here.called  # the commit asked for the worker, which is not told
    connection.ensure_connection()
    raw = type(connection.connection)
    begun = []
    start = raw._get_tx_start_command  # what psycopg sends as a round trip of its own

    def counted(self: Any) -> bytes:
        begun.append(self)
        return start(self)

    with (
        mock.patch.object(raw, "_get_tx_start_command", counted),
        CaptureQueriesContext(connection) as queries,
    ):
        assert services.turn_resolve(match_id=running_match.pk, number=0) is not None
    sent = statements_sent(queries.captured_queries)
    # Django's BEGIN (noted, sent with the lock); the lock, the claim and the seats;
    # the writes and the COMMIT. Django's own COMMIT is noted after them, but psycopg
    # sends nothing for it (the connection is idle then).
    assert sent[0] == "BEGIN" and sent[-1] == "COMMIT" and len(sent) == 4, sent
    assert not begun  # psycopg sent no BEGIN of its own
    assert sent[1].startswith("BEGIN; SELECT") and "FOR UPDATE" in sent[1]
    assert 'UPDATE "games_turn"' in sent[1]
    assert 'FROM "games_seat"' in sent[1]
    assert sent[2].startswith('INSERT INTO "games_turn"') and sent[2].endswith("; COMMIT")
    assert not connection.in_atomic_block
    assert connection.connection.info.transaction_status == 0  # idle: nothing left open
    running_match.refresh_from_db()
    assert (running_match.turn_number, running_match.to_move) == (1, 3)
    assert Turn.objects.get(match=running_match, number=1).status == Turn.Status.WAITING


@pytest.mark.django_db(transaction=True)
def test_inside_an_outer_transaction_the_resolution_commits_nothing(
    running_match, player, resolved_here
):
    _postgresql()
    services.orders_submit(match_id=running_match.pk, user=player, turn=0, actions=[])

    class Undo(Exception):
        pass

    with pytest.raises(Undo), transaction.atomic():
        with CaptureQueriesContext(connection) as queries:
            assert services.turn_resolve(match_id=running_match.pk, number=0) is not None
        assert not any("COMMIT" in q["sql"] for q in queries.captured_queries)
        raise Undo
    # The outer transaction's rollback took the whole resolution with it.
    assert Turn.objects.get(match=running_match, number=0).status == Turn.Status.ACCEPTED
    assert not Turn.objects.filter(match=running_match, number=1).exists()
    assert not Resolution.objects.filter(match=running_match).exists()


def _claim_names() -> list[str]:
    names = prepared_state(connection).names
    return [names[kind] for kind in sorted(names) if kind[0] == "claim"]


@pytest.mark.django_db(transaction=True)
def test_the_claims_statements_are_prepared_once_then_only_executed(
    running_match, player, opponent, resolved_here
):
    _postgresql()
    connection.ensure_connection()
    prepared_state(connection).names.clear()  # as on a new connection
    services.orders_submit(match_id=running_match.pk, user=player, turn=0, actions=[])
    with CaptureQueriesContext(connection) as first:
        assert services.turn_resolve(match_id=running_match.pk, number=0) is not None
    names = _claim_names()
    assert len(names) == 3  # the lock, the claim, the seats
    assert all(f"PREPARE {name} AS" in first.captured_queries[1]["sql"] for name in names)
    services.orders_submit(match_id=running_match.pk, user=opponent, turn=1, actions=[])
    with CaptureQueriesContext(connection) as again:
        assert services.turn_resolve(match_id=running_match.pk, number=1) is not None
    # The same names, only executed: nothing for the server to parse or plan.
    assert _claim_names() == names
    lock = again.captured_queries[1]["sql"]
    assert lock.startswith(f"BEGIN; EXECUTE {names[0]}(") and "PREPARE" not in lock, lock
    assert [part.split("(")[0] for part in lock.split("; ")[1:]] == [
        f"EXECUTE {name}" for name in names
    ]
    running_match.refresh_from_db()
    assert (running_match.turn_number, running_match.to_move) == (2, 1)


# What leaves the claim's prepared statements unusable, and what puts the database
# back: gone (DEALLOCATE ALL, as a pooler's reset), or stale (a migration changes the
# type of a column the seats' statement returns: PostgreSQL refuses to run it as
# prepared, "cached plan must not change result type").
SPOILED = {
    "gone": ("DEALLOCATE ALL", None),
    "stale": (
        'ALTER TABLE "games_seat" ALTER COLUMN "number" TYPE integer',
        'ALTER TABLE "games_seat" ALTER COLUMN "number" TYPE smallint',
    ),
}


@pytest.mark.parametrize("spoiled", sorted(SPOILED))
@pytest.mark.django_db(transaction=True)
def test_claim_statements_gone_or_stale_are_prepared_again_and_the_turn_resolved_at_once(
    running_match, player, opponent, resolved_here, caplog, spoiled
):
    _postgresql()
    services.orders_submit(match_id=running_match.pk, user=player, turn=0, actions=[])
    assert services.turn_resolve(match_id=running_match.pk, number=0) is not None
    before = _claim_names()
    spoil, undo = SPOILED[spoiled]
    with connection.cursor() as cursor:
        cursor.execute(spoil)
    try:
        services.orders_submit(match_id=running_match.pk, user=opponent, turn=1, actions=[])
        with caplog.at_level("INFO", logger="games.services.resolution"):
            assert services.turn_resolve(match_id=running_match.pk, number=1) is not None
        assert "prepared statements gone, preparing again" in caplog.text
        assert _claim_names() != before and len(_claim_names()) == 3
        assert Turn.objects.get(match=running_match, number=1).status == Turn.Status.RESOLVED
        assert Resolution.objects.filter(match=running_match, turn_number=1).count() == 1
        running_match.refresh_from_db()
        assert (running_match.turn_number, running_match.to_move) == (2, 1)
    finally:
        if undo is not None:
            with connection.cursor() as cursor:
                cursor.execute(undo)


@pytest.mark.django_db(transaction=True)
def test_inside_an_outer_transaction_claim_statements_gone_fail_it_and_change_nothing(
    running_match, player, resolved_here
):
    _postgresql()
    services.orders_submit(match_id=running_match.pk, user=player, turn=0, actions=[])
    connection.ensure_connection()
    prepared_state(connection).names.clear()
    with transaction.atomic():
        # Prepared here (a PREPARE outlives a rollback); the resolution itself undone.
        sid = transaction.savepoint()
        assert services.turn_resolve(match_id=running_match.pk, number=0) is not None
        transaction.savepoint_rollback(sid)
    with connection.cursor() as cursor:
        cursor.execute("DEALLOCATE ALL")
    with pytest.raises(DatabaseError), transaction.atomic():
        services.turn_resolve(match_id=running_match.pk, number=0)
    # The outer transaction is the caller's: no second try inside it. Nothing changed.
    assert Turn.objects.get(match=running_match, number=0).status == Turn.Status.ACCEPTED
    assert not Resolution.objects.filter(match=running_match).exists()
    # Forgotten, so the next resolution prepares them again.
    assert not _claim_names()
    assert services.turn_resolve(match_id=running_match.pk, number=0) is not None
    assert Turn.objects.get(match=running_match, number=0).status == Turn.Status.RESOLVED
