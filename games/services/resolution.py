"""Resolution: the worker's side of a turn. An accepted turn is claimed (ACCEPTED ->
RESOLVED, a conditional update, so a second delivery does nothing), applied with the
engine as its shape says (games/services/turns.py), stored as one Resolution per
engine.apply, and the next turn begun.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, NamedTuple

from django.db import DatabaseError, connection, connections, router, transaction
from django.utils import timezone

import engine
from games.faults import fault_point, fault_point_on_commit
from games.models import AT_ONCE, Match, Orders, Resolution, Seat, Turn
from games.prepared import execute_prepared, statement_gone
from games.push.bell import ring_on_commit
from games.services.turns import (
    binds_on_client,
    bot_orders_for,
    chain_of,
    model_from_row,
    queue_resolution,
    resolution_store,
    row_store,
    seats_from_rows,
    seats_sql,
    shape_of,
    turn_begin,
    turn_moved_on,
    turns_chained,
)

log = logging.getLogger(__name__)


# The most turns one resolution plays in its transaction (the first and the bots'
# turns after it); the rest are queued as tasks, so a match of bots holds its row
# lock for a bounded time and other matches' tasks get their turn.
CHAIN_MAX = 32


def turn_resolve(*, match_id: int, number: int) -> Resolution | None:
    """Resolve an accepted turn with the engine and begin the next one.

    When the turns begun after it are accepted at once (every awaited seat a bot),
    they are resolved here too, in the same transaction, up to CHAIN_MAX turns: one
    task and one commit for a person's turn and the bots' that follow it. Each is
    claimed and stored exactly as its own task would (the same rows, the same
    events and history); a turn left over is queued after the commit as before.

    Returns the resolution of turn `number`, or None when there is nothing to do:
    the turn was resolved already (a second delivery), is not accepted yet, or the
    match is not running.

    The claim's statements are prepared on the connection (games.prepared). When
    they are gone (DEALLOCATE ALL, a pooler's reset) or stale (a migration changed
    a column they return), the failed transaction is rolled back and, if it was the
    connection's outermost, the resolution runs once more, preparing them anew: the
    turn waits for no sweep.
    """
    try:
        return _turn_resolve(match_id, number)
    except DatabaseError as error:
        db = connections[router.db_for_write(Match)]
        if not statement_gone(error) or db.in_atomic_block:
            raise
        log.info("turn %s of match %s: prepared statements gone, preparing again", number, match_id)
        return _turn_resolve(match_id, number)


def _turn_resolve(match_id: int, number: int) -> Resolution | None:
    with transaction.atomic():
        db = connections[router.db_for_write(Match)]
        if db.vendor == "postgresql" and binds_on_client(db):
            # The lock and the claim in one round trip (the claim only while the
            # match runs): nobody else sees the claim before the commit, so to the
            # other processes this is the same step as the lock alone.
            now = timezone.now()
            match, claim = _match_locked_claiming(db, match_id, number, now)
            if match is None or match.status != Match.Status.RUNNING:
                return None
            fault_point("resolve_locked")
        else:
            match = _match_locked(match_id)
            if match is None or match.status != Match.Status.RUNNING:
                return None
            fault_point("resolve_locked")
            now = timezone.now()
            claim = _claim(match, number, now, seats=True)
        if claim is None:
            log.info("turn %s of match %s: another delivery got there first", number, match_id)
            return None
        fault_point("resolve_claimed")
        # Registered before turn_begin's callbacks, so it runs first after the commit.
        fault_point_on_commit("resolve_committed")
        with turns_chained(match.pk) as chain:
            if claim.seats is not None:
                chain.seats = {seat.number: seat for seat in claim.seats}
            resolution = _resolve_claimed(match, number, now, claim)
            fault_point("resolve_next_turn")
            played = 1
            while chain.accepted and played < CHAIN_MAX and match.status == Match.Status.RUNNING:
                following, now = chain.accepted.pop(0), timezone.now()
                claim = _claim(match, following, now)
                if claim is not None:
                    _resolve_claimed(match, following, now, claim)
                    played += 1
        if chain.ring:
            ring_on_commit(match.pk)  # once for the chain's turns (games/push)
        for left in chain.accepted:  # outside the chain: queued after the commit
            queue_resolution(match.pk, left)
        # The transaction's last writes, and its commit with them when this is the
        # outermost transaction: nothing may run in it after this.
        chain.finish(match, commit=True)
    fault_point("resolve_done")
    return resolution


def _match_locked(match_id: int) -> Match | None:
    """The match, its row locked, without the replay columns (as big as the state, and
    nothing here reads them): `Match.objects.select_for_update().defer("initial_state",
    "record")`, in one query written once per database (the ORM took about as long to
    write it as the database to answer).

    On PostgreSQL the same statement makes this transaction's commit return before
    its WAL reaches the disk (asynchronous commit, set for the transaction: no round
    trip of its own). The disk flush took most of the time from a claim to the next
    turn visible.

    Nothing is lost that matters. Everything the resolution writes is made from rows
    committed for good before it (the state, the orders: a player's orders POST and
    every other commit keep waiting for the disk). A crash in the fraction of a second
    before the flush undoes the whole resolution, claim included: the turn is
    accepted again with its orders and the clock sweep queues it again. Nothing
    durable can rest on a lost resolution either: the next orders, made after seeing
    it, flush the log up to their own commit, which is after it.
    """
    db = connections[router.db_for_write(Match)]
    with db.cursor() as cursor:
        cursor.execute(_match_sql(db), [match_id])
        row = cursor.fetchone()
    return None if row is None else _match_from_row(db, row)


_MATCH_FIELDS = [
    f for f in Match._meta.concrete_fields if f.name not in ("initial_state", "record")
]


def _match_from_row(db: Any, row: Sequence[Any]) -> Match:
    match: Match = model_from_row(db, Match, row[: len(_MATCH_FIELDS)], _MATCH_FIELDS)
    return match


def _match_sql(db: Any) -> str:
    """_match_locked's statement (its one parameter: the match's id)."""
    fields = _MATCH_FIELDS
    sql = _match_sqls.get(db.vendor)
    if sql is None:

        def quote(name: str | None) -> str:
            return str(db.ops.quote_name(str(name)))

        columns = ", ".join(f"m.{quote(f.column)}" for f in fields)
        if db.vendor == "postgresql":
            columns += ", set_config('synchronous_commit', 'off', true)"
        lock = f" {db.ops.for_update_sql()}" if db.features.has_select_for_update else ""
        sql = _match_sqls[db.vendor] = (
            f"SELECT {columns} FROM {quote(Match._meta.db_table)} m"
            f" WHERE m.{quote(Match._meta.pk.column)} = %s{lock}"
        )
    return sql


_match_sqls: dict[str, str] = {}


class Claim(NamedTuple):
    """A turn claimed by this resolution, with what the claim read of it: its orders
    rows (step, seat order) and its row's seat, or None for what it did not read."""

    orders: list[Orders] | None = None
    seat: int | None = None
    seats: list[Seat] | None = None  # the match's, read with the claim


def _claim(match: Match, number: int, now: datetime, seats: bool = False) -> Claim | None:
    """ACCEPTED -> RESOLVED, a conditional update: a Claim for the one caller that got
    it, None for any other. (A turn begun in this resolution's chain is claimed in
    memory, TurnChain.claim.) On PostgreSQL the same statement reads the turn's
    orders and its seat, which the resolution reads next."""
    chain = chain_of(match)
    if chain is not None:
        claimed_here = chain.claim(
            number, Turn.Status.ACCEPTED, Turn.Status.RESOLVED, resolved_at=now
        )
        if claimed_here is not None:
            return Claim() if claimed_here else None
    if connection.vendor == "postgresql":
        return _claim_reading_orders(match, number, now, seats)
    claimed = Turn.objects.filter(match=match, number=number, status=Turn.Status.ACCEPTED).update(
        status=Turn.Status.RESOLVED, resolved_at=now
    )
    return Claim() if claimed == 1 else None


def _claim_reading_orders(
    match: Match, number: int, now: datetime, seats: bool = False
) -> Claim | None:
    """_claim's conditional update and the read of the turn's orders in one statement
    (a data-modifying WITH): no row when the turn was not ACCEPTED; else one per
    orders row, each with the turn's seat (one with no orders row if it has none).
    `seats`: the match's seats are read in the same round trip (a second statement
    in the query string, with client-side binding), for the turn the claim begins.

    The orders read is the statement's snapshot, taken after the match's row lock
    was granted: whatever accepted the turn held that lock and committed its orders
    with the turn's status, so they are all in it (and if none were seen, the
    resolution reads them again)."""
    db = connections[router.db_for_write(Turn)]
    sql = _claim_sql()
    params = _claim_params(match.pk, number, now)
    seats = seats and binds_on_client(db)
    if seats:
        sql = f"{sql}; {seats_sql(db)}"
        params.append(match.pk)
    with db.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
        if seats:
            cursor.nextset()
            seat_rows = cursor.fetchall()
    return _claim_from_rows(db, match, rows, seat_rows if seats else None)


def _match_locked_claiming(
    db: Any, match_id: int, number: int, now: datetime
) -> tuple[Match | None, Claim | None]:
    """_match_locked, then _claim(seats=True) if the match is running, in one round
    trip (PostgreSQL, client-side binding): the lock's statement, the claim's (its
    update made only while the locked match's status is running) and the seats', in
    one query string. Each statement reads a snapshot taken after the one before it
    ended, so the claim's and its read of the orders come after the lock was granted,
    as when they were sent after it. The lock and the claim each took a round trip
    of their own, on the way from a turn's acceptance to the next turn visible."""
    claim = _claim_params(match_id, number, now)
    # The claim's update, its running check (the match's id and status) and its join.
    running = [*claim[:-2], match_id, Match.Status.RUNNING.value, *claim[-2:]]
    statements = [
        (_match_sql(db), [match_id]),
        (_claim_sql(running=True), running),
        (seats_sql(db), [match_id]),
    ]
    with db.cursor() as cursor:
        raw = db.connection
        begin = _begins_here(db, raw)
        if begin:
            # The transaction's BEGIN at the head of the same query string: psycopg,
            # told it is in autocommit for this one call, does not send its own
            # first (a round trip of its own, before the lock).
            raw._autocommit = True
        try:
            # Prepared on the worker's connection the first time: sent as text, the
            # three were planned again on every turn (0.72 against 0.44 ms for the
            # round trip, medians of 600 on a warm connection).
            execute_prepared(cursor, "claim", statements, db=db, head=["BEGIN"] if begin else [])
        finally:
            if begin:
                raw._autocommit = False
        match_row = cursor.fetchone()
        cursor.nextset()
        rows = cursor.fetchall()
        cursor.nextset()
        seat_rows = cursor.fetchall()
    if match_row is None:
        return None, None
    match = _match_from_row(db, match_row)
    return match, _claim_from_rows(db, match, rows, seat_rows)


def _begins_here(db: Any, raw: Any) -> bool:
    """Whether the statement about to be sent on `db` may begin its transaction
    itself: Django's outermost atomic block has begun it and psycopg has sent nothing
    yet (it would send a plain BEGIN before the statement, no isolation level or
    read-only mode being asked), and psycopg keeps its autocommit flag as a plain
    attribute (psycopg 3). Otherwise psycopg sends its BEGIN as before."""
    from psycopg import pq

    return bool(
        db.in_atomic_block
        and len(db.atomic_blocks) == 1
        and not db.savepoint_ids
        and raw is not None
        and vars(raw).get("_autocommit") is False
        and raw.isolation_level is None
        and raw.read_only is None
        and raw.info.transaction_status == pq.TransactionStatus.IDLE
    )


def _claim_params(match_id: int, number: int, now: datetime) -> list[Any]:
    """_claim_sql()'s parameters: the update's five, the join's two."""
    return [Turn.Status.RESOLVED.value, now, match_id, number, Turn.Status.ACCEPTED.value,
            match_id, number]  # fmt: skip


def _claim_from_rows(
    db: Any, match: Match, rows: Sequence[Sequence[Any]], seat_rows: Sequence[Sequence[Any]] | None
) -> Claim | None:
    if not rows:
        return None
    width = len(Orders._meta.concrete_fields)
    orders = [model_from_row(db, Orders, row[:width]) for row in rows if row[0] is not None]
    return Claim(
        orders=orders or None,
        seat=int(rows[0][width]),
        seats=None if seat_rows is None else seats_from_rows(db, match, seat_rows),
    )


@functools.cache
def _claim_sql(running: bool = False) -> str:
    """The claim and its read of the orders; `running`: the update only while the
    match's status is running (two parameters more, its id and that status, before
    the join's two)."""
    turn, orders = Turn._meta, Orders._meta
    columns = ", ".join(f'o."{field.column}"' for field in orders.concrete_fields)
    check = (
        f' AND EXISTS (SELECT 1 FROM "{Match._meta.db_table}" m'
        f' WHERE m."{Match._meta.pk.column}" = %s AND m."status" = %s)'
        if running
        else ""
    )
    return (
        f'WITH claimed AS (UPDATE "{turn.db_table}" SET "status" = %s, "resolved_at" = %s'
        f' WHERE "match_id" = %s AND "number" = %s AND "status" = %s{check} RETURNING "seat")'
        f' SELECT {columns}, claimed."seat" AS "claimed_seat" FROM claimed'
        f' LEFT JOIN "{orders.db_table}" o ON o."match_id" = %s AND o."turn_number" = %s'
        ' ORDER BY o."step", o."seat"'
    )


def _resolve_claimed(match: Match, number: int, now: datetime, claim: Claim) -> Resolution:
    """Apply a claimed turn's orders, store the resolution and begin the next turn."""
    chain = chain_of(match)
    given = chain.orders.pop(number, None) if chain is not None else None
    if given is not None:
        # A turn a bot accepted in this transaction (orders_accept): one seat's
        # orders, the row just stored; no turn at once is accepted that way.
        rows, at_once = given, False
    else:
        if claim.orders is not None:
            rows = claim.orders
        else:
            rows = list(
                Orders.objects.filter(match=match, turn_number=number).order_by("step", "seat")
            )
        shape = shape_of(match)
        at_once = len({row.seat for row in rows}) > 1 or (
            (shape.simultaneous or shape.setup)
            and (_turn_seat(match, number) if claim.seat is None else claim.seat) == AT_ONCE
        )
    if at_once:
        resolution = _resolve_at_once(match=match, number=number, rows=rows)
    else:
        resolution = _resolve_one(match=match, number=number, row=rows[-1])
    fault_point("resolve_applied")
    turn_begin(match=match, now=now, also_save=["state"])
    return resolution


def _turn_seat(match: Match, number: int) -> int:
    return int(
        Turn.objects.filter(match=match, number=number)
        .order_by("pk")
        .values_list("seat", flat=True)[0]
    )


def _apply_or_default(
    match: Match, number: int, orders: Any, default: Callable[[], Any]
) -> tuple[engine.Applied, Any, dict[str, Any] | None]:
    """Apply stored orders; if the engine refuses them, the default orders instead
    (`default()`: made only then, each costs the engine a read of the state).

    Validated orders cannot fail against an unchanged state; if they do (an engine
    upgrade mid-match), the seats pass rather than the match stalling, and the
    reason is kept on the resolution.
    """
    state = match.state
    try:
        return engine.apply(state, orders), orders, None
    except engine.EngineError as error:
        log.error("match %s turn %s: stored orders rejected: %s", match.pk, number, error)
        passed = default()
        return engine.apply(state, passed), passed, error.to_json()


def _resolve_one(*, match: Match, number: int, row: Orders) -> Resolution:
    """A one-seat turn, or the step a bot or the clock took in a turn made of steps:
    in the latter the same seat plays on (its bot, or the default orders once the
    clock passed it) until the turn moves on."""
    assert match.state is not None
    step, orders, source = row.step, row.orders, row.source
    while True:
        passing = functools.partial(engine.default_orders, match.state, row.seat)
        applied, used, fallback = _apply_or_default(match, number, orders, passing)
        resolution = resolution_store(match=match, number=number, step=step, seat=row.seat,
                                       orders=used, applied=applied, fallback=fallback)  # fmt: skip
        match.state = applied.state
        if not shape_of(match).steps or turn_moved_on(applied.state, number):
            return resolution
        step = engine.step(applied.state)
        if step > STEPS_MAX:
            raise RuntimeError(f"match {match.pk} turn {number}: no end after {step} steps")
        if source in (Orders.Source.BOT, Orders.Source.STANDIN):
            seat = Seat.objects.get(match=match, number=row.seat)
            orders = bot_orders_for(match, seat)
        else:
            orders = engine.default_orders(applied.state, row.seat)
        row_store(match, Orders(match=match, turn_number=number, seat=row.seat, step=step,
                                orders=orders, source=source))  # fmt: skip


# A turn made of steps that the worker plays on (a bot's, a passed one) ends within
# this many steps, or the ruleset is broken.
STEPS_MAX = 1000


def _resolve_at_once(*, match: Match, number: int, rows: list[Orders]) -> Resolution:
    """A turn at once: every awaited seat's stored orders, in seat order, as one list
    (the default orders for a seat without any, as the clock stored them)."""
    state = match.state
    assert state is not None
    awaited = engine.awaiting(state)
    given = {row.seat: row.orders for row in rows if row.step == 0}
    orders = [given.get(s) or engine.default_orders(state, s) for s in awaited]
    applied, used, fallback = _apply_or_default(
        match, number, orders, lambda: [engine.default_orders(state, s) for s in awaited]
    )
    resolution = resolution_store(match=match, number=number, step=0, seat=AT_ONCE,
                                   orders=used, applied=applied, fallback=fallback)  # fmt: skip
    match.state = applied.state
    return resolution
