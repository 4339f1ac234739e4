"""Turns: orders in, the next turn begun (the worker's resolution in between is
games/services/resolution.py).

A turn moves WAITING -> ACCEPTED (orders stored, resolution queued after commit)
-> RESOLVED. Each step is a conditional update on the turn row, so whoever gets
there second (a redelivered task, the sweeper, a double click) changes nothing.

The ruleset shapes a turn (engine.Ruleset.shape, engine.awaiting):
- one seat at a time: that seat's orders accept the turn;
- at once (a simultaneous turn, a setup phase): the Turn row's seat is AT_ONCE;
  each awaited seat's orders are checked and stored in a row of their own, which
  the seat may replace and nobody else sees; the last seat's orders (or the
  deadline, with the default orders for the missing seats) accept the turn and
  the worker resolves it with the list of every seat's orders;
- steps: each step is applied in the request that brings it (its result, a scan
  say, is in the seat's view at once) and stored as orders and a resolution of
  their own; the turn ends when the state's turn moves on (or the deadline
  passes: the worker plays the default orders until it does).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import connections, router, transaction
from django.db.models import Model
from django.db.models.constants import OnConflict
from django.db.models.sql.compiler import SQLInsertCompiler
from django.db.models.sql.subqueries import InsertQuery
from django.utils import timezone

import engine
from games.compete.services import match_rate
from games.errors import Conflict, NotAPlayer, ServiceError, from_engine_error
from games.faults import fault_point
from games.models import (
    AT_ONCE,
    Match,
    Notification,
    NotificationKind,
    NotificationSettings,
    Orders,
    Resolution,
    Seat,
    Turn,
)
from games.push.bell import ring_on_commit
from games.queue import turn_deadline_queue, turn_resolve_queue
from games.services.notifications import insert_unless_present, notify
from games.services.records import match_records_store
from games.webpush.models import PushSubscription
from games.webpush.services import webpush_your_turn

log = logging.getLogger(__name__)


@dataclass
class TurnChain:
    """The turns of one match accepted while its resolution runs (bots' turns begun
    and accepted in the resolution's transaction): resolution.turn_resolve resolves
    them in the same transaction instead of queueing a task for each."""

    match_id: int
    accepted: list[int] = field(default_factory=list)
    # What the transaction holds already, so the chain reads it once: the orders
    # each accepted turn was given (one seat's, by orders_accept) and the seats.
    orders: dict[int, list[Orders]] = field(default_factory=dict)
    seats: dict[int, Seat] | None = None
    # Fields of the match changed and not saved yet (turn_begin; the chain saves them).
    unsaved: set[str] = field(default_factory=set)
    ring: bool = False  # the match's bell is to ring after the commit
    # Rows of the chain's one-seat turns not inserted yet (turns, orders and
    # resolutions, in the order made), inserted by `store` in one statement per
    # table; the turns among them by number: claimed and resolved in memory (no
    # other transaction sees them before the commit, the match's row is locked).
    rows: list[Turn | Orders | Resolution] = field(default_factory=list)
    turns: dict[int, Turn] = field(default_factory=dict)
    # "Your turn" rows (due later: nothing reads them in the transaction), inserted
    # with the rows above, each unless one is there already (notify's `later`).
    notices: list[Notification] = field(default_factory=list)

    def store(self) -> None:
        """Insert the rows made so far (before anything reads them from the database:
        a turn at once, the match's end, the commit)."""
        for model in (Turn, Orders, Resolution):
            made: list[Any] = [row for row in self.rows if type(row) is model]
            if made:
                rows_insert(model, made)
        self.rows.clear()
        self.turns.clear()
        for notice in self.notices:
            insert_unless_present(notice)
        self.notices.clear()

    def claim(self, number: int, was: str, to: str, **fields: Any) -> bool | None:
        """A conditional update of turn `number` made in this chain and not inserted
        yet, in memory: True if it was `was` (now `to`), False if not; None when the
        turn is not one of those (the caller updates the row)."""
        turn = self.turns.get(number)
        if turn is None:
            return None
        if turn.status != was:
            return False
        turn.status = to
        for name, value in fields.items():
            setattr(turn, name, value)
        return True

    def save_match(self, match: Match, also: list[str] | None = None) -> None:
        """Save what the chain's turns changed in the match (and `also`), once."""
        fields = sorted(self.unsaved.union(also or []))
        self.unsaved.clear()
        if fields:
            match.save(update_fields=fields)

    def finish(self, match: Match, commit: bool = False) -> None:
        """`store`, then `save_match`: the chain's last writes. On PostgreSQL with
        client-side binding (Django's default) they go as one query string of several
        statements, each with its own result: one round trip to the database where
        they took one each (a turn's, its resolution's and the match's, and the bots'
        orders in a chain), on the way from the claim to the next turn visible.

        `commit`: the caller's transaction ends with these writes. When it is the
        connection's outermost atomic block, the COMMIT goes in the same query string
        (the next turn is visible once it has run, a round trip sooner); the block's
        own commit then finds the transaction ended (psycopg sends no COMMIT when
        the connection is idle) and runs the on-commit callbacks as before. A
        failing statement skips the ones after it, the COMMIT included, and raises
        here: the block rolls back as before. Inside an outer transaction (a
        savepoint) nothing is committed here."""
        using = router.db_for_write(Match)
        connection = connections[using]
        if connection.vendor != "postgresql" or not binds_on_client(connection):
            self.store()
            self.save_match(match)
            return
        statements: list[tuple[str, Sequence[Any], list[Any]]] = []
        for model in (Turn, Orders, Resolution):
            made: list[Any] = [row for row in self.rows if type(row) is model]
            if made:
                sql, params = _insert_sql(connection, model, made)
                statements.append((sql, params, made))
        self.rows.clear()
        self.turns.clear()
        if self.notices:
            sql, params = _insert_sql(connection, Notification, self.notices, returning=False)
            statements.append((sql, params, []))
            self.notices.clear()
        fields = sorted(self.unsaved)
        self.unsaved.clear()
        if fields:
            statements.append((*_update_sql(connection, match, fields), []))
        if not statements:
            return
        if commit and _ends_with_commit(connection):
            statements.append(("COMMIT", (), []))
        with connection.cursor() as cursor:
            cursor.execute(
                "; ".join(sql for sql, _, _ in statements),
                [param for _, params, _ in statements for param in params],
            )
            for n, (_, _, rows) in enumerate(statements):
                if n:
                    cursor.nextset()
                if rows:
                    _took_pks(rows, cursor.fetchall(), using)


def _ends_with_commit(connection: Any) -> bool:
    """Whether the connection's transaction is its outermost atomic block's, with
    nothing to roll back (TurnChain.finish's `commit`)."""
    return bool(
        connection.in_atomic_block
        and connection.commit_on_exit
        and len(connection.atomic_blocks) == 1
        and not connection.savepoint_ids
        and not connection.needs_rollback
    )


def rows_insert(model: type[Model], rows: list[Any]) -> None:
    """bulk_create(rows) as INSERT ... VALUES (...), (...) RETURNING the pks, on every
    database. Django's PostgreSQL compiler writes several rows as UNNEST of one array
    per column instead, and psycopg quotes each JSON value inside its array literal
    with a Python regular expression, a call per quote: for a chain's resolutions
    (their states and events) that cost more of the worker's CPU than the rest of the
    insert. In VALUES each is one literal, escaped by libpq."""
    meta = model._meta
    using = router.db_for_write(model)
    connection = connections[using]
    fields = [f for f in meta.local_concrete_fields if f is not meta.pk]
    size = connection.ops.bulk_batch_size(fields, rows) or len(rows)
    for start in range(0, len(rows), size):
        batch = rows[start : start + size]
        query = InsertQuery(model)
        query.insert_values(fields, batch)
        # The base compiler: its rows are VALUES lists (bulk_insert_sql's own form).
        compiler = SQLInsertCompiler(query, connection, using)
        returned = compiler.execute_sql([meta.pk])  # type: ignore[list-item]
        _took_pks(batch, returned, using)


def _took_pks(rows: list[Any], returned: Sequence[Sequence[Any]], using: str) -> None:
    for row, values in zip(rows, returned, strict=True):
        row.pk = values[0]
        row._state.adding = False
        row._state.db = using


def _insert_sql(
    connection: Any, model: type[Model], rows: list[Any], returning: bool = True
) -> tuple[str, Sequence[Any]]:
    """rows_insert's one statement for all `rows` (PostgreSQL: no limit on its size);
    without `returning`, each row unless one with its unique values is there already
    (ON CONFLICT DO NOTHING), and no pks returned."""
    meta = model._meta
    fields = [f for f in meta.local_concrete_fields if f is not meta.pk]
    key = (connection.alias, model, len(rows), returning)
    sql = _insert_sqls.get(key)
    if sql is not None:
        params = _insert_params(connection, fields, rows)
        if params is not None:
            return sql, params
    query = InsertQuery(model, on_conflict=None if returning else OnConflict.IGNORE)
    query.insert_values(fields, rows)
    compiler = SQLInsertCompiler(query, connection, connection.alias)
    if returning:
        compiler.returning_fields = [meta.pk]
    [(sql, compiled)] = compiler.as_sql()
    # The statement is kept when each value is one plain "%s" (no field writes a
    # placeholder of its own, no expression): then only the parameters change.
    if len(compiled) == len(rows) * len(fields) and not any(
        hasattr(f, "get_placeholder") for f in fields
    ):
        _insert_sqls[key] = sql
    return sql, compiled


def _insert_params(connection: Any, fields: list[Any], rows: list[Any]) -> list[Any] | None:
    """The parameters SQLInsertCompiler.as_sql gives `rows` (its pre_save_val and
    prepare_value, field by field), without writing the statement again, which took
    longer than making them; None for a value that is an expression (the compiler's
    own way then)."""
    params: list[Any] = []
    for row in rows:
        for f in fields:
            value = f.pre_save(row, True)
            if hasattr(value, "resolve_expression"):
                return None
            params.append(f.get_db_prep_save(value, connection=connection))
    return params


# _insert_sql's statements by (database alias, model, rows, returning).
_insert_sqls: dict[tuple[str, type[Model], int, bool], str] = {}


def _update_sql(connection: Any, match: Match, names: list[str]) -> tuple[str, list[Any]]:
    """`match.save(update_fields=names)`'s UPDATE (no model signals are connected)."""

    def quote(name: str | None) -> str:
        return str(connection.ops.quote_name(str(name)))

    columns, params = [], []
    for name in names:
        f = Match._meta.get_field(name)
        assert f.concrete and not f.primary_key
        columns.append(f"{quote(f.column)} = %s")
        params.append(f.get_db_prep_save(f.pre_save(match, False), connection=connection))
    table, pk = quote(Match._meta.db_table), quote(Match._meta.pk.column)
    params.append(match.pk)
    return f"UPDATE {table} SET {', '.join(columns)} WHERE {pk} = %s", params


def binds_on_client(connection: Any) -> bool:
    """Whether the connection's cursors merge the parameters into the query text
    (psycopg's ClientCursor), which may hold several statements."""
    import psycopg

    with connection.cursor() as cursor:
        return isinstance(cursor.cursor, psycopg.ClientCursor)


def chain_of(match: Match) -> TurnChain | None:
    """The chain of `match`'s resolution running in this thread, if any."""
    chain = _chain.get()
    return chain if chain is not None and chain.match_id == match.pk else None


_chain: ContextVar[TurnChain | None] = ContextVar("turn_chain", default=None)


@contextmanager
def turns_chained(match_id: int) -> Iterator[TurnChain]:
    """While inside, a turn of `match_id` accepted in this thread is collected in the
    chain rather than queued; the caller resolves or queues each one itself."""
    chain = TurnChain(match_id)
    token = _chain.set(chain)
    try:
        yield chain
    finally:
        _chain.reset(token)


def _ring(match: Match) -> None:
    """Ring the match's bell after the commit (games/push); a chain rings once, for
    all its turns, when its resolution ends (the pages then read every turn)."""
    chain = chain_of(match)
    if chain is not None:
        chain.ring = True
    else:
        ring_on_commit(match.pk)


def queue_resolution(match_id: int, number: int) -> None:
    """Queue the worker's resolution of a turn once the current transaction commits
    (or, in a resolution's chain of this match, leave it to that resolution).

    robust: the orders are committed by then, so a broker that is down must not
    turn "accepted" into a 500; the clock sweep queues the turn again (the
    database, not the queue, says what is pending).
    """
    chain = _chain.get()
    if chain is not None and chain.match_id == match_id:
        chain.accepted.append(number)
        return
    transaction.on_commit(lambda: turn_resolve_queue(match_id, number), robust=True)


def orders_accept(
    *,
    match: Match,
    number: int,
    seat: int,
    orders: dict[str, Any],
    source: str,
    user: User | None,
    now: datetime,
    step: int = 0,
) -> Orders:
    """Claim a waiting turn for these orders, store them and queue the resolution.

    The caller holds the match row lock and has validated the orders. `step`: the
    step of a turn made of steps that these orders are for.
    """
    chain = chain_of(match)
    missed = source == Orders.Source.CLOCK
    claimed = (
        chain.claim(
            number, Turn.Status.WAITING, Turn.Status.ACCEPTED, accepted_at=now, missed=missed
        )
        if chain
        else None
    )
    if claimed is None:
        claimed = _turn_accept(match.pk, number, now, missed=missed)
    if not claimed:
        raise Conflict("already_submitted", "Orders for this turn were already accepted.")
    row = Orders(
        match=match,
        turn_number=number,
        seat=seat,
        step=step,
        orders=orders,
        source=source,
        submitted_by=user,
    )
    row_store(match, row)
    if chain is not None:
        chain.orders[number] = [row]
    queue_resolution(match.pk, number)
    # No ring here: the resolution queued rings when it commits, once for the turn
    # (and the bots' after it), which is what the pages wait for; the state between
    # (the orders in, the turn not resolved yet) reaches them with the push hub's
    # sweep (games/push) if the resolution is late.
    return row


def _turn_accept(match_id: int, number: int, now: datetime, *, missed: bool) -> bool:
    """As `Turn.objects.filter(match=..., number=..., status=WAITING).update(status=
    ACCEPTED, accepted_at=now, missed=missed) == 1`, in SQL written once per database
    (the ORM took longer to write it than the database to run it, on every orders
    POST)."""
    db = connections[router.db_for_write(Turn)]
    sql = _accept_sqls.get(db.vendor)
    if sql is None:

        def quote(name: str | None) -> str:
            return str(db.ops.quote_name(str(name)))

        def column(name: str) -> str:
            return quote(Turn._meta.get_field(name).column)  # type: ignore[union-attr]

        sql = _accept_sqls[db.vendor] = (
            f"UPDATE {quote(Turn._meta.db_table)} SET {column('status')} = %s,"
            f" {column('accepted_at')} = %s, {column('missed')} = %s"
            f" WHERE {column('match')} = %s AND {column('number')} = %s"
            f" AND {column('status')} = %s"
        )
    accepted_at = Turn._meta.get_field("accepted_at").get_db_prep_save(now, db)
    params = [Turn.Status.ACCEPTED.value, accepted_at, missed, match_id, number]
    with db.cursor() as cursor:
        cursor.execute(sql, [*params, Turn.Status.WAITING.value])
        return bool(cursor.rowcount == 1)


_accept_sqls: dict[str, str] = {}


def orders_submit(
    *,
    match_id: int,
    user: User,
    turn: int,
    actions: list[dict[str, Any]] | None = None,
    orders: dict[str, Any] | None = None,
    api: bool = False,
) -> Orders:
    """A player's orders: validated by the engine, stored, resolution queued.

    `actions` are a Helium 3 turn's actions; `orders` the orders object of any
    ruleset (its `seat` and `turn` are set here). Illegal orders raise (nothing is
    stored). The same orders for the same turn again return the row stored the
    first time; other orders for a turn whose orders were accepted are a conflict,
    legal or not. In a turn at once the seat's stored orders are replaced until the
    turn resolves; a step of a turn made of steps is resolved here and now. `api`:
    they came through the bot API, so the seat is API-driven (no emails) until
    orders come otherwise.
    """
    with transaction.atomic():
        match, seat = match_locked(match_id=match_id, user=user)
        if seat is None:
            raise NotAPlayer("not_a_player", "You do not play in this match.")
        return orders_submit_locked(
            match=match, seat=seat, user=user, turn=turn, actions=actions, orders=orders, api=api
        )


def match_locked(*, match_id: int, user: User) -> tuple[Match, Seat | None]:
    """The match, its row locked (without the replay columns), and `user`'s seat in
    it read under the lock (None: no seat). Match.DoesNotExist if there is no match.
    The caller is in a transaction: it holds the lock until the commit."""
    if not 0 < match_id < 2**63:  # no such id: the ORM's range check, done by hand
        raise Match.DoesNotExist("Match matching query does not exist.")
    db = connections[router.db_for_write(Match)]
    match_sql, seat_sql = _locked_sqls(db)
    fields = _locked_match_fields()
    with db.cursor() as cursor:
        cursor.execute(match_sql, [match_id])
        row = cursor.fetchone()
        if row is None:
            raise Match.DoesNotExist("Match matching query does not exist.")
        match: Match = model_from_row(db, Match, row, fields)
        fault_point("submit_locked")
        # A statement of its own after the lock is held: it sees a seat changed by
        # whoever held the lock before (one statement would read the seat as it was
        # when it began, before waiting for the lock).
        cursor.execute(seat_sql, [match.pk, user.pk])
        seat_row = cursor.fetchone()
    seat = model_from_row(db, Seat, seat_row) if seat_row is not None else None
    return match, seat


@functools.cache
def _locked_match_fields() -> tuple[Any, ...]:
    """The match's columns match_locked reads: all but the replay's two."""
    return tuple(
        f for f in Match._meta.concrete_fields if f.name not in ("initial_state", "record")
    )


def _locked_sqls(db: Any) -> tuple[str, str]:
    """match_locked's two queries, written once per database: as
    `Match.objects.select_for_update().defer("initial_state", "record").get(pk=...)`
    and `Seat.objects.filter(match=..., user=...).order_by("pk").first()` read the
    rows (the ORM took longer to write them than the database to answer, on every
    orders POST, the turn's critical path)."""
    sqls = _locked_sql_by_vendor.get(db.vendor)
    if sqls is None:

        def quote(name: str | None) -> str:
            return str(db.ops.quote_name(str(name)))

        columns = ", ".join(f"m.{quote(f.column)}" for f in _locked_match_fields())
        lock = f" {db.ops.for_update_sql()}" if db.features.has_select_for_update else ""
        seat_columns = ", ".join(f"s.{quote(f.column)}" for f in Seat._meta.concrete_fields)
        seat_match = quote(Seat._meta.get_field("match").column)
        seat_user = quote(Seat._meta.get_field("user").column)
        sqls = _locked_sql_by_vendor[db.vendor] = (
            f"SELECT {columns} FROM {quote(Match._meta.db_table)} m"
            f" WHERE m.{quote(Match._meta.pk.column)} = %s{lock}",
            f"SELECT {seat_columns} FROM {quote(Seat._meta.db_table)} s"
            f" WHERE s.{seat_match} = %s AND s.{seat_user} = %s"
            f" ORDER BY s.{quote(Seat._meta.pk.column)} LIMIT 1",
        )
    return sqls


_locked_sql_by_vendor: dict[str, tuple[str, str]] = {}


def orders_submit_locked(
    *,
    match: Match,
    seat: Seat,
    user: User,
    turn: int,
    actions: list[dict[str, Any]] | None = None,
    orders: dict[str, Any] | None = None,
    api: bool = False,
) -> Orders:
    """orders_submit for a caller that holds the match and the seat (match_locked,
    in its transaction): the orders view, which builds its form from the same rows.
    A refusal raises before anything is written."""
    if orders is None:
        given: dict[str, Any] = {"seat": seat.number, "turn": turn, "actions": actions or []}
    else:
        given = {**orders, "seat": seat.number, "turn": turn}
    shape = shape_of(match)
    # Helium 3's turns need no turn row here (the turn's claim is the check).
    current = _open_turn(match) if shape.simultaneous or shape.setup or shape.steps else None
    if current is not None and current.seat == AT_ONCE:
        row, fresh = _submit_at_once(match=match, turn=current, seat=seat, orders=given, user=user)
    elif shape.steps:
        row, fresh = _submit_step(match=match, turn=current, seat=seat, orders=given, user=user)
    else:
        row, fresh = _submit_one(match=match, seat=seat, orders=given, user=user)
    # A player who submits is back: the clock's count restarts, a stand-in
    # leaves. (The seat was read under the match lock: nothing changed it.)
    if fresh and (seat.missed_in_row or seat.standin_bot or seat.api != api):
        Seat.objects.filter(pk=seat.pk).update(missed_in_row=0, standin_bot="", api=api)
    return row


def shape_of(match: Match) -> engine.Shape:
    return engine.ruleset(match.ruleset).shape


def _open_turn(match: Match) -> Turn | None:
    """The match's current turn row (by pk: one per match and number)."""
    if match.state is None:
        return None
    return Turn.objects.filter(match=match, number=match.turn_number).order_by("pk").first()


def _same_post(row: Orders | None, user: User, orders: dict[str, Any]) -> bool:
    """A repeat of the post that stored `row` (the clock's or a bot's pass never is)."""
    return row is not None and row.submitted_by_id == user.pk and row.orders == orders


def _submit_one(
    *, match: Match, seat: Seat, orders: dict[str, Any], user: User
) -> tuple[Orders, bool]:
    """One seat at a time: these orders accept the turn. (The row, and whether it is new.)"""
    number = orders["turn"]
    refusal = _refusal(match, orders)
    if refusal is None:
        try:
            row = orders_accept(
                match=match,
                number=number,
                seat=seat.number,
                orders=orders,
                source=Orders.Source.PLAYER,
                user=user,
                now=timezone.now(),
            )
            return row, True
        except Conflict as taken:
            refusal = taken
    # Refused, unless this turn's orders were accepted already: the same post
    # again answers as the first one did; other orders from this seat conflict.
    # (Looked up only here: a turn that was claimed just now has no orders yet.) This
    # seat's row: a past turn at once, a setup say, has a row for each seat.
    existing = (
        Orders.objects.filter(match=match, turn_number=number, seat=seat.number)
        .order_by("pk")
        .first()
    )
    if existing is not None:
        if _same_post(existing, user, orders):
            return existing, False
        raise Conflict("already_submitted", "Different orders for this turn were already accepted.")
    raise refusal


def _submit_at_once(
    *, match: Match, turn: Turn, seat: Seat, orders: dict[str, Any], user: User
) -> tuple[Orders, bool]:
    """A turn at once: store (or replace) this seat's orders; the last seat's accept it."""
    number = orders["turn"]
    existing = (
        Orders.objects.filter(match=match, turn_number=number, seat=seat.number, step=0)
        .order_by("pk")
        .first()
    )
    if _same_post(existing, user, orders):
        assert existing is not None
        return existing, False
    refusal = _refusal(match, orders)
    if refusal is not None:
        raise refusal
    if turn.status != Turn.Status.WAITING:
        raise Conflict(
            "already_submitted", "Every seat's orders are in: the turn is being resolved."
        )
    now = timezone.now()
    if existing is not None:
        existing.orders = orders
        existing.source = Orders.Source.PLAYER
        existing.submitted_by = user
        existing.save(update_fields=["orders", "source", "submitted_by"])
        row = existing
    else:
        row = Orders.objects.create(
            match=match,
            turn_number=number,
            seat=seat.number,
            orders=orders,
            source=Orders.Source.PLAYER,
            submitted_by=user,
        )
    at_once_accept_if_complete(match=match, number=number, now=now)
    return row, True


def at_once_accept_if_complete(*, match: Match, number: int, now: datetime) -> bool:
    """Accept a turn at once when every awaited seat's orders are stored. True if so."""
    assert match.state is not None
    awaited = set(engine.awaiting(match.state))
    stored = set(
        Orders.objects.filter(match=match, turn_number=number, step=0).values_list(
            "seat", flat=True
        )
    )
    if not awaited <= stored:
        return False
    claimed = Turn.objects.filter(match=match, number=number, status=Turn.Status.WAITING).update(
        status=Turn.Status.ACCEPTED, accepted_at=now
    )
    if claimed == 1:
        queue_resolution(match.pk, number)
    return claimed == 1


def turn_pass(
    *, match: Match, turn: Turn, source: str, user: User | None, now: datetime
) -> list[int]:
    """Accept a waiting turn with the default orders (a pass) for every awaited seat
    that gave none: the deadline's pass, an admin's. The seats passed ([] when other
    orders got there first). In a turn made of steps the worker plays the seat's
    default orders until its turn ends. The caller holds the match row lock."""
    state = match.state
    assert state is not None
    if turn.seat != AT_ONCE:
        try:
            orders_accept(
                match=match,
                number=turn.number,
                seat=turn.seat,
                orders=engine.default_orders(state, turn.seat),
                source=source,
                user=user,
                now=now,
                step=engine.step(state),
            )
        except Conflict:
            return []  # orders arrived in the meantime
        return [turn.seat]
    stored = set(
        Orders.objects.filter(match=match, turn_number=turn.number, step=0).values_list(
            "seat", flat=True
        )
    )
    missing = [s for s in engine.awaiting(state) if s not in stored]
    claimed = Turn.objects.filter(pk=turn.pk, status=Turn.Status.WAITING).update(
        status=Turn.Status.ACCEPTED,
        accepted_at=now,
        missed=source == Orders.Source.CLOCK and bool(missing),
    )
    if claimed != 1:
        return []
    for seat in missing:
        Orders.objects.create(
            match=match,
            turn_number=turn.number,
            seat=seat,
            orders=engine.default_orders(state, seat),
            source=source,
            submitted_by=user,
        )
    queue_resolution(match.pk, turn.number)
    return missing


def bot_joins_turn(*, match: Match, seat: Seat, now: datetime) -> None:
    """A seat just handed to a bot moves in the current turn if it still waits for it."""
    turn = _open_turn(match)
    if turn is None or turn.status != Turn.Status.WAITING:
        return
    if turn.seat == seat.number:
        bot_move(match=match, seat=seat, number=turn.number, now=now)
    elif turn.seat == AT_ONCE and match.state and seat.number in engine.awaiting(match.state):
        row = Orders.objects.filter(match=match, turn_number=turn.number, seat=seat.number)
        if not row.filter(step=0).exists():
            Orders.objects.create(match=match, turn_number=turn.number, seat=seat.number,
                                  orders=bot_orders_for(match, seat), source=_bot_source(seat))  # fmt: skip
            at_once_accept_if_complete(match=match, number=turn.number, now=now)


def _submit_step(
    *, match: Match, turn: Turn | None, seat: Seat, orders: dict[str, Any], user: User
) -> tuple[Orders, bool]:
    """One step of a turn made of steps: stored, applied and resolved in this request."""
    number = orders["turn"]
    step_no = orders.get("step_no")
    refusal = _refusal(match, orders)
    if refusal is None and (turn is None or turn.status != Turn.Status.WAITING):
        refusal = Conflict("already_submitted", "The clock has ended this turn.")
    if refusal is not None:
        # A repeated post of a step already taken answers as the first one did; so
        # do orders without a step (a build of the setup at once) posted again.
        earlier = Orders.objects.filter(match=match, turn_number=number, seat=seat.number)
        if type(step_no) is int:
            earlier = earlier.filter(step=step_no)
        for row in earlier.order_by("pk"):
            if _same_post(row, user, orders):
                return row, False
        raise refusal
    assert match.state is not None and turn is not None
    step = engine.step(match.state)
    row = Orders.objects.create(
        match=match,
        turn_number=number,
        seat=seat.number,
        step=step,
        orders=orders,
        source=Orders.Source.PLAYER,
        submitted_by=user,
    )
    applied = engine.apply(match.state, orders)
    resolution_store(match=match, number=number, step=step, seat=seat.number, orders=orders,
                      applied=applied, fallback=None)  # fmt: skip
    match.state = applied.state
    now = timezone.now()
    if turn_moved_on(applied.state, number):
        Turn.objects.filter(pk=turn.pk, status=Turn.Status.WAITING).update(
            status=Turn.Status.RESOLVED, accepted_at=now, resolved_at=now
        )
        turn_begin(match=match, now=now, also_save=["state"])
    else:
        match.save(update_fields=["state"])
    return row, True


def turn_moved_on(state: dict[str, Any], number: int) -> bool:
    return bool(state["over"]) or int(state["turn"]) != number


def row_store(match: Match, row: Turn | Orders | Resolution) -> None:
    """Insert a row of `match`, or in its resolution's chain leave it to the chain's
    one insert of its kind (TurnChain.store)."""
    chain = chain_of(match)
    if chain is None:
        row.save(force_insert=True)
    else:
        chain.rows.append(row)


def resolution_store(
    *,
    match: Match,
    number: int,
    step: int,
    seat: int,
    orders: Any,
    applied: engine.Applied,
    fallback: dict[str, Any] | None,
) -> Resolution:
    row = Resolution(
        match=match,
        turn_number=number,
        step=step,
        seat=seat,
        orders=orders,
        events=applied.events,
        state=applied.state,
        turn_ms=applied.turn_ms,
        fallback_error=fallback,
    )
    row_store(match, row)
    return row


def _refusal(match: Match, orders: dict[str, Any]) -> ServiceError | None:
    """Why these orders cannot be accepted now (the match's status, then the
    engine's verdict on them), or None."""
    if match.status == Match.Status.OPEN:
        return Conflict("not_started", "The match has not started yet.")
    if match.status == Match.Status.PAUSED:
        return Conflict("match_paused", "The match is paused; send your orders when it resumes.")
    if match.status in (Match.Status.FINISHED, Match.Status.ABORTED):
        return Conflict("match_over", "The match is over.")
    try:
        engine.validate(match.state, orders)
    except engine.EngineError as error:
        refused = from_engine_error(error)
        refused.__cause__ = error
        return refused
    return None


def deadline_task_wanted(turn_seconds: int) -> bool:
    """Whether a turn this long has a task queued for its deadline, beside the clock
    sweep: when it is shorter than four sweeps, the sweep alone could pass it a
    quarter of its time late or more (the ladder's ten-second turns). Longer turns
    are left to the sweep: no long ETA tasks (a broker may redeliver them)."""
    return turn_seconds < 4 * settings.CLOCK_SWEEP_SECONDS


def deadline_queue_if_short(*, match: Match, number: int, deadline: datetime) -> None:
    """Queue, once the transaction commits, the task that passes turn `number` at
    `deadline` when the match's turns are short (deadline_task_wanted). robust: the
    turn is committed by then and the sweep passes it if the broker is down."""
    if deadline_task_wanted(match.turn_seconds):
        match_id = match.pk
        transaction.on_commit(lambda: turn_deadline_queue(match_id, number, deadline), robust=True)


def turn_begin(*, match: Match, now: datetime, also_save: list[str] | None = None) -> Turn | None:
    """Start the turn the state says comes next (or finish the match).

    A bot-driven seat moves at once: its orders are accepted (or, in a turn at
    once, stored) in this transaction and the worker resolves them, without
    waiting for anybody. `also_save`: fields of the match the caller changed,
    saved in the same UPDATE as the new turn's.
    """
    state = match.state
    assert state is not None  # a started match always has one (a DB constraint)
    if state["over"]:
        match_finish(match=match, now=now, also_save=also_save)
        return None
    number = int(state["turn"])
    awaited = engine.awaiting(state)
    at_once = shape_of(match).simultaneous or len(awaited) > 1
    seat_number = AT_ONCE if at_once else awaited[0]
    deadline = now + timedelta(seconds=match.turn_seconds)
    turn = Turn(
        match=match,
        number=number,
        seat=seat_number,
        started_at=now,
        deadline_at=deadline,
        warn_at=deadline - timedelta(seconds=match.turn_seconds / 4),
    )
    chain = chain_of(match)
    if chain is not None and not at_once:
        chain.rows.append(turn)  # inserted with the chain's other rows
        chain.turns[number] = turn
    else:
        if chain is not None:
            chain.store()  # a turn at once reads its orders' rows and updates its own
        turn.save(force_insert=True)
    deadline_queue_if_short(match=match, number=number, deadline=deadline)
    match.turn_number = number
    match.to_move = None if at_once else seat_number
    fields = ["turn_number", "to_move", *(also_save or [])]
    if chain is not None:
        # The chain's resolution saves the match once, after its last turn: each
        # turn's state would be written only to be written over in the same
        # transaction (the rows of the turns themselves are all stored).
        chain.unsaved.update(fields)
    else:
        match.save(update_fields=fields)
    _ring(match)  # the pages watching it hear of the new turn (games/push)
    for seat in _seats_awaited(match, awaited):
        if not (seat.driver_bot or seat.user is None):
            notify(
                user=seat.user,
                match=match,
                kind=NotificationKind.YOUR_TURN,
                turn_number=number,
                context={"deadline": deadline.isoformat()},
                seat=seat,
                later=chain.notices if chain is not None else None,
            )
            if getattr(seat, "push_subscribed", True):  # read with the seat (_seats_awaited)
                webpush_your_turn(user=seat.user, match=match, turn_number=number, seat=seat)
        elif at_once:
            Orders.objects.create(
                match=match,
                turn_number=number,
                seat=seat.number,
                orders=bot_orders_for(match, seat),
                source=_bot_source(seat),
            )
        else:
            bot_move(match=match, seat=seat, number=number, now=now)
    if at_once:
        at_once_accept_if_complete(match=match, number=number, now=now)
    return turn


def _seats_awaited(match: Match, awaited: list[int]) -> list[Seat]:
    """The awaited seats with their users, email settings and whether the user has a
    browser subscribed to web push (`push_subscribed`), by number; in a
    resolution's chain every seat is read once for the whole chain (nothing in the
    chain's transaction changes a seat)."""
    chain = chain_of(match)
    seats = chain.seats if chain is not None else None
    if seats is None:
        seats = {seat.number: seat for seat in _seats_with_users(match)}
        if chain is not None:
            chain.seats = seats
    return [seats[n] for n in sorted(awaited) if n in seats]


def _seats_with_users(match: Match) -> list[Seat]:
    """The match's seats by number, as
    `Seat.objects.select_related("user", "user__notification_settings")` gives them,
    each with `push_subscribed`; in one query written once per database (the ORM took
    several times longer to write it than the database to answer, in every
    resolution)."""
    connection = connections[router.db_for_read(Seat)]
    with connection.cursor() as cursor:
        cursor.execute(seats_sql(connection), [match.pk])
        rows = cursor.fetchall()
    return seats_from_rows(connection, match, rows)


def seats_sql(connection: Any) -> str:
    """_seats_with_users's query (its one parameter: the match's id)."""
    sql = _seats_sqls.get(connection.vendor)
    if sql is None:

        def quote(name: str | None) -> str:
            return str(connection.ops.quote_name(str(name)))

        tables = {"s": Seat, "u": User, "n": NotificationSettings}
        columns = [
            f"{alias}.{quote(f.column)}"
            for alias, model in tables.items()
            for f in model._meta.concrete_fields
        ]
        subscribed = PushSubscription._meta
        sql = _seats_sqls[connection.vendor] = (
            f"SELECT {', '.join(columns)}, EXISTS(SELECT 1 FROM"
            f" {quote(subscribed.db_table)} p WHERE p.{quote(subscribed.get_field('user').column)}"
            f" = s.{quote(Seat._meta.get_field('user').column)}) FROM"
            f" {quote(Seat._meta.db_table)} s"
            f" LEFT JOIN {quote(User._meta.db_table)} u ON u.{quote(User._meta.pk.column)}"
            f" = s.{quote(Seat._meta.get_field('user').column)}"
            f" LEFT JOIN {quote(NotificationSettings._meta.db_table)} n"
            f" ON n.{quote(NotificationSettings._meta.pk.column)} = u.{quote(User._meta.pk.column)}"
            f" WHERE s.{quote(Seat._meta.get_field('match').column)} = %s"
            f" ORDER BY s.{quote(Seat._meta.get_field('number').column)}"
        )
    return sql


def seats_from_rows(connection: Any, match: Match, rows: Sequence[Sequence[Any]]) -> list[Seat]:
    """The seats of seats_sql's rows, each with its user and their email settings."""
    widths = [len(model._meta.concrete_fields) for model in (Seat, User, NotificationSettings)]
    # The reverse one-to-one's cache on the user (notifications.wants reads it).
    prefs_cache = NotificationSettings._meta.get_field("user").remote_field.get_accessor_name()
    seats = []
    for row in rows:
        at = 0
        made: list[Any] = []
        for model, width in zip((Seat, User, NotificationSettings), widths, strict=True):
            values = row[at : at + width]
            at += width
            made.append(None if values[0] is None else model_from_row(connection, model, values))
        seat, user, prefs = made
        seat.push_subscribed = bool(row[at])
        seat._state.fields_cache["user"] = user
        seat._state.fields_cache["match"] = match
        if user is not None:
            user._state.fields_cache[prefs_cache] = prefs
        seats.append(seat)
    return seats


_seats_sqls: dict[str, str] = {}


def model_from_row(
    connection: Any, model: type[Model], values: Sequence[Any], fields: Sequence[Any] = ()
) -> Any:
    """An instance of `model` from the values of its concrete `fields` (all of them by
    default; the others deferred) as the database gave them, converted as the ORM
    converts them."""
    meta = model._meta
    fields = fields or meta.concrete_fields
    key = (connection.alias, model, tuple(f.attname for f in fields))
    converters = _converters.get(key)
    if converters is None:
        converters = []
        for f in fields:
            col = f.get_col(meta.db_table)
            found = connection.ops.get_db_converters(col) + f.get_db_converters(connection)
            converters.append((col, found))
        _converters[key] = converters
    converted = []
    for (col, found), value in zip(converters, values, strict=True):
        for convert in found:
            value = convert(value, col, connection)
        converted.append(value)
    return model.from_db(connection.alias, list(key[2]), converted)


_converters: dict[tuple[str, type[Model], tuple[str, ...]], list[tuple[Any, list[Any]]]] = {}


def standin_bot(ruleset: str) -> str:
    """The bot that plays for a person who missed too many turns: the site's choice
    (settings.STANDIN_BOT) when the game has that bot, else the game's first."""
    names = engine.bot_names(ruleset)
    return settings.STANDIN_BOT if settings.STANDIN_BOT in names or not names else names[0]


def _bot_source(seat: Seat) -> str:
    return Orders.Source.BOT if seat.bot else Orders.Source.STANDIN


def bot_orders_for(match: Match, seat: Seat) -> dict[str, Any]:
    """The built-in bot's orders for a bot-driven seat, checked; the default if it fails."""
    name = seat.driver_bot or standin_bot(match.ruleset)
    try:
        orders = engine.bot_orders(name, match.state, seat.number)
        engine.check(match.state, orders)
    except Exception:
        # A bot's bug must not stall a match: it passes, and the log says why.
        log.exception("bot %r failed for match %s seat %s; passing", name, match.pk, seat.number)
        orders = engine.default_orders(match.state, seat.number)
    return orders


def bot_move(*, match: Match, seat: Seat, number: int, now: datetime) -> Orders:
    """Accept the built-in bot's orders for a bot-driven seat's waiting turn."""
    assert match.state is not None
    return orders_accept(
        match=match,
        number=number,
        seat=seat.number,
        orders=bot_orders_for(match, seat),
        source=_bot_source(seat),
        user=None,
        now=now,
        step=engine.step(match.state),
    )


def match_finish(*, match: Match, now: datetime, also_save: list[str] | None = None) -> None:
    """Store the result the engine gave: winners, final money and the full record."""
    from games.selectors import match_record

    state = match.state
    assert state is not None
    chain = chain_of(match)
    if chain is not None:
        chain.store()  # the record and the ratings read the turns' rows
    match.status = Match.Status.FINISHED
    match.finished_at = now
    match.winners = list(state.get("winners", []))
    match.final_money = engine.scores(state)
    match.turn_number = int(state["turn"])
    match.to_move = None
    match.record = match_record(match)
    fields = [
        "status",
        "finished_at",
        "winners",
        "final_money",
        "turn_number",
        "to_move",
        "record",
        *(also_save or []),
    ]
    if chain is not None:
        chain.save_match(match, fields)  # with what the chain's turns changed
    else:
        match.save(update_fields=fields)
    _ring(match)  # the pages watching it hear of the end (games/push)
    match_records_store(match=match)
    # Ratings change in this transaction, once (games/compete/services.py).
    match_rate(match=match)
    seats = Seat.objects.filter(match=match, user__isnull=False)
    for seat in seats.select_related("user", "user__notification_settings"):
        notify(
            user=seat.user,
            match=match,
            kind=NotificationKind.MATCH_OVER,
            turn_number=match.turn_number,
            context={"winners": match.winners, "money": match.final_money, "seat": seat.number},
            seat=seat,
        )
