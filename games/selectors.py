"""Reads. Pages get what they show from here, and a player's page only ever
sees engine.view / engine.events_view output for that player's seat."""

from __future__ import annotations

import functools
import logging
import time
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any, cast

from django.contrib.auth.models import AnonymousUser, User
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connection, connections
from django.db.models import (
    BooleanField,
    Case,
    Exists,
    F,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Value,
    When,
)
from django.db.models.base import ModelState
from django.db.models.fields.related_descriptors import ForeignKeyDeferredAttribute
from django.db.models.query_utils import DeferredAttribute
from django.db.models.signals import post_init, pre_init
from django.utils import timezone
from django.utils.safestring import SafeString

import engine
from games import history, panel_rows
from games.models import AT_ONCE, Match, NotificationSettings, Orders, Resolution, Seat, Turn
from games.prepared import Prepared, execute_prepared, prepared_state, sql_id
from games.viewers import Viewer

LOBBY_LIMIT = 50


def can_watch(
    match: Match,
    user: User | AnonymousUser | Viewer,
    seat: Seat | None = None,
    *,
    seat_known: bool = False,
) -> bool:
    """Who may see a match: anyone a public one; a private one its players, its
    creator and staff. An open private match is an invitation: whoever has its
    link may see its seats and join (there is no board to hide yet).

    `seat` is the user's seat when the caller has looked it up already;
    `seat_known`: the caller looked, and None means the user has none.
    """
    if match.public or match.status == Match.Status.OPEN:
        return True
    if not user.is_authenticated or user.pk is None:
        return False
    if user.is_staff or match.created_by_id == user.pk:
        return True
    if seat is not None or seat_known:
        return seat is not None
    return Seat.objects.filter(match=match, user_id=user.pk).exists()


def watchable_matches(user: User | AnonymousUser) -> QuerySet[Match]:
    """The matches `user` may see (can_watch as a query)."""
    if user.is_authenticated and user.is_staff:
        return Match.objects.all()
    visible = Q(public=True) | Q(status=Match.Status.OPEN)
    if user.is_authenticated:
        visible |= Q(created_by=user) | Q(
            Exists(Seat.objects.filter(match=OuterRef("pk"), user=user))
        )
    return Match.objects.filter(visible)


def lobby_open_matches() -> QuerySet[Match]:
    """Public open matches with a free seat; a private one is joined by its link."""
    free = Seat.objects.filter(match=OuterRef("pk"), user__isnull=True, bot="")
    return (
        Match.objects.filter(status=Match.Status.OPEN, public=True)
        .filter(Exists(free))
        .prefetch_related("seats__user")
        .order_by("-created_at")[:LOBBY_LIMIT]
    )


def lobby_my_matches(user: User) -> QuerySet[Match]:
    """The user's unfinished matches, the ones waiting for the user's move first
    (the seat to move, or in a turn at once a seat whose orders are not in yet)."""
    my_move = Seat.objects.filter(
        match=OuterRef("pk"), user=user, number=OuterRef("to_move"), standin_bot=""
    )
    return (
        Match.objects.filter(
            seats__user=user,
            status__in=[Match.Status.OPEN, Match.Status.RUNNING, Match.Status.PAUSED],
        )
        .annotate(
            my_move=Case(
                When(
                    Q(status=Match.Status.RUNNING) & (Exists(my_move) | _my_orders_due(user)),
                    then=Value(True),
                ),
                default=Value(False),
                output_field=BooleanField(),
            )
        )
        .prefetch_related("seats__user")
        .order_by("-my_move", "-created_at")[:LOBBY_LIMIT]
    )


def _my_orders_due(user: User) -> Q:
    """For a match query: its current turn is at once and `user`'s seat (not played
    by a stand-in) has no orders in it yet."""
    mine = Seat.objects.filter(match=OuterRef("pk"), user=user, standin_bot="")
    at_once = Turn.objects.filter(
        match=OuterRef("pk"),
        number=OuterRef("turn_number"),
        seat=AT_ONCE,
        status=Turn.Status.WAITING,
    )
    # Nested one level deeper, the match is the outer query's outer query: a plain
    # OuterRef("pk") there would be the orders row's own id.
    my_number = Seat.objects.filter(match=OuterRef(OuterRef("pk")), user=user, standin_bot="")
    given = Orders.objects.filter(
        match=OuterRef("pk"),
        turn_number=OuterRef("turn_number"),
        step=0,
        seat=Subquery(my_number.values("number")[:1]),
    )
    return Q(Exists(at_once)) & Q(Exists(mine)) & ~Q(Exists(given))


def lobby_finished_matches(user: User) -> QuerySet[Match]:
    return (
        watchable_matches(user)
        .filter(status=Match.Status.FINISHED)
        .annotate(
            mine=Exists(Seat.objects.filter(match=OuterRef("pk"), user=user)),
        )
        .prefetch_related("seats__user")
        .order_by("-mine", "-finished_at")[:LOBBY_LIMIT]
    )


def watch_matches() -> QuerySet[Match]:
    """Public matches being played (or paused), the longest-running first (the
    earliest started; the page says so): what anyone may watch live, in the
    spectator's view."""
    return (
        Match.objects.filter(public=True, status__in=[Match.Status.RUNNING, Match.Status.PAUSED])
        .defer("state", "initial_state", "record")
        .prefetch_related("seats__user")
        .order_by("started_at", "pk")[:LOBBY_LIMIT]
    )


def seat_of(match: Match, user: User | AnonymousUser) -> Seat | None:
    if not user.is_authenticated:
        return None
    # By pk, not the model's ordering (by match, then number), which joins the match
    # table for nothing: at most one seat per user and match.
    return Seat.objects.filter(match=match, user=user).order_by("pk").first()


def current_turn(match: Match) -> Turn | None:
    if match.status not in (Match.Status.RUNNING, Match.Status.PAUSED):
        return None
    # One turn per (match, number): no ordering, so no join with the match table.
    return Turn.objects.filter(match=match, number=match.turn_number).order_by("pk").first()


@dataclass(frozen=True)
class PageVersion:
    """What a viewer's match page depends on besides the state, read in one query: the
    match's status and turn, its access fields, the current turn (status and
    deadline, as the page shows them) and the viewer's seat. The match page is
    cached under it (views.match_detail)."""

    match: Match  # not a full row: pk, status, turn_number, public, created_by, created_at, ruleset
    turn: Turn | None  # the live turn's status and deadline_at; None when not live
    seat: Seat | None  # the viewer's seat: number and standin_bot only
    # Steps resolved in the current turn (a turn of steps; 0 otherwise). Only the
    # page of the seat that plays the turn follows them: every other viewer learns
    # of the turn once it has ended (games/history.py).
    steps: int = 0
    turn_seat: int | None = None  # whose turn it is (AT_ONCE: every seat's)
    # The page frame's counts for a signed-in viewer (None for a visitor): the
    # matches waiting for their move (your_move_seats) and the challenges waiting
    # for their answer (games.compete.challenges.waiting_count), read fresh on every
    # view in the same query, so a cached page never shows an old badge.
    moves: int | None = None
    challenges: int | None = None

    # The match's row as the page reads it (_page_fields), not yet converted: only a
    # page rendered anew needs it (page_match), a cached one not. On PostgreSQL it is
    # left in the query's result (rest) until then.
    match_row: tuple[Any, ...] = ()
    rest: _VersionRest | None = None

    def page_match(self) -> Match:
        """The match as `Match.objects.defer(*PAGE_DEFERRED)` reads it, from the
        version's own row: the page needs no query of its own for it, and shows the
        same moment of the match as the version it is stored under."""
        row = self.match_row if self.rest is None else self.rest.values()
        return cast(Match, _from_row(Match, row, _page_fields()))

    def without_row(self) -> PageVersion:
        """This version without the match's row (what a process keeps of it between
        views, games/push/kept.py: a page rendered anew reads the version again)."""
        return replace(self, match_row=(), rest=None)

    @property
    def standin(self) -> str | None:
        return self.seat.standin_bot if self.seat is not None else None

    @property
    def steps_seen(self) -> int:
        mine = self.seat is not None and self.turn_seat == self.seat.number
        return self.steps if mine else 0


def match_page_version(match_id: int, user: User | AnonymousUser | Viewer) -> PageVersion | None:
    """The match page's version for `user`, in one query; None if there is no match.

    Plain SQL: it runs on every view of the most viewed page, and Django's compiler
    takes about ten times as long to write this query as the database to answer it.
    """
    if not 0 < match_id < 2**63:  # no such id: the ORM's range check, done by hand
        return None
    user_id = user.pk if user.is_authenticated else None
    signed_in = user_id is not None
    db = connections[DEFAULT_DB_ALIAS]
    rest: _VersionRest | None = None
    found: Any = _SLOW
    if db.vendor == "postgresql":
        found = _prepared_fast(db, ("version", signed_in), user_id, match_id)
        if type(found) is _VersionRest:
            rest, found = found, found.leading()
    if found is _SLOW:
        sql, count_params = _version_sql(signed_in=signed_in)
        with db.cursor() as cursor:
            if db.vendor == "postgresql":
                # The counts' constants are written into the prepared statement; only
                # the user and the match are sent with each view.
                found = _prepared_fetchone(
                    cursor,
                    ("version", signed_in),
                    sql,
                    [*count_params, _NOBODY, _MATCH],
                    user_id,
                    match_id,
                )
            else:
                params = [
                    *(user_id if p == _NOBODY else p for p in count_params),
                    user_id,
                    match_id,
                ]
                cursor.execute(sql, params)
                found = cursor.fetchone()
    if found is None:
        return None
    (
        status,
        turn_number,
        public,
        created_by_id,
        created_at,
        ruleset,
        turn_id,
        turn_status,
        turn_deadline,
        turn_seat,
        seat_number,
        seat_standin,
        steps,
        moves,
        challenges,
    ) = found[:_VERSION_COLUMNS]
    if rest is None:
        # SQLite gives naive UTC datetimes to a plain cursor (the ORM makes them aware).
        created_at, turn_deadline = _aware(created_at), _aware(turn_deadline)
    # As the ORM makes a row's instance (Model.from_db: the fields not read are
    # deferred, a read of one is a query), at a fraction of the cost of keywords.
    match = _instance(
        Match,
        _VERSION_MATCH_FIELDS,
        [match_id, created_by_id, created_at, status, ruleset, turn_number, bool(public)],
        db.alias,
    )
    turn_row = None
    if turn_id is not None and status in _LIVE:
        turn_row = _instance(
            Turn,
            _VERSION_TURN_FIELDS,
            [turn_id, match_id, turn_number, turn_seat, turn_status, turn_deadline],
            db.alias,
        )
    seat = None
    if seat_number is not None:
        # No pk (the query does not read it): the seat's number and stand-in only.
        seat = _instance(
            Seat, _VERSION_SEAT_FIELDS, [None, match_id, seat_number, seat_standin], db.alias
        )
    return PageVersion(
        match=match,
        turn=turn_row,
        seat=seat,
        steps=int(steps or 0),
        turn_seat=turn_seat if turn_row is not None else None,
        moves=None if moves is None else int(moves),
        challenges=None if challenges is None else int(challenges),
        match_row=() if rest is not None else tuple(found[_VERSION_COLUMNS:]),
        rest=rest,
    )


_LIVE = (Match.Status.RUNNING, Match.Status.PAUSED)
# The version query's own columns, before the match's row (_version_sql).
_VERSION_COLUMNS = 15


def _aware(value: Any) -> datetime | None:
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    if value is not None and timezone.is_naive(value):
        value = timezone.make_aware(value, UTC)
    return cast(datetime | None, value)


# The fields of the version's own instances (match_page_version), in the models' order.
_VERSION_MATCH_FIELDS = [
    "id",
    "created_by_id",
    "created_at",
    "status",
    "ruleset",
    "turn_number",
    "public",
]
_VERSION_TURN_FIELDS = ["id", "match_id", "number", "seat", "status", "deadline_at"]
_VERSION_SEAT_FIELDS = ["id", "match_id", "number", "standin_bot"]


def match_seats(match: Match) -> list[Seat]:
    """The match's seats in order, each with its user (as
    `Seat.objects.filter(match=match).select_related("user")` gives them), in one
    query written once per database: the ORM takes longer to write that query than
    the database to answer it, on every first view of a page after a turn and on
    every poll that brings one."""
    db = connections[DEFAULT_DB_ALIAS]
    with db.cursor() as cursor:
        cursor.execute(_seats_sql(db), [match.pk])
        rows = cursor.fetchall()
    return _seats_from(match, rows, db)


def _seats_sql(db: Any) -> str:
    """match_seats' query, written once per database (one parameter: the match)."""
    sql = _seats_sqls.get(db.vendor)
    if sql is None:
        seat_t, user_t = Seat._meta.db_table, User._meta.db_table
        quote = db.ops.quote_name
        columns = [f"s.{quote(str(f.column))}" for f in Seat._meta.concrete_fields]
        columns += [f"u.{quote(str(f.column))}" for f in User._meta.concrete_fields]
        sql = _seats_sqls[db.vendor] = (
            f"SELECT {', '.join(columns)} FROM {seat_t} s"
            f" LEFT JOIN {user_t} u ON u.id = s.user_id"
            f" WHERE s.match_id = %s ORDER BY s.number"
        )
    return sql


def _seats_from(match: Match, rows: list[tuple[Any, ...]], db: Any) -> list[Seat]:
    """The seats (each with its user) of match_seats' query's rows."""
    width = len(Seat._meta.concrete_fields)
    seats = []
    for row in rows:
        seat = _from_row(Seat, row[:width], db=db)
        # The seat's user, or None (a bot's or a free seat): no query when read.
        user = _from_row(User, row[width:], db=db) if seat.user_id is not None else None
        seat._state.fields_cache["user"] = user
        seat._state.fields_cache["match"] = match
        seats.append(seat)
    return seats


_seats_sqls: dict[str, str] = {}


@dataclass(frozen=True)
class SeatsAndHistory:
    """A page's seats (match_seats) and the history rows read with them for the page
    of one viewer (`history_for`: that viewer and _history_rows' arguments; None:
    not read, match_page reads them itself)."""

    seats: list[Seat]
    history_for: tuple[Any, ...] | None = None
    history: list[Resolution] = field(default_factory=list)


def seats_and_history(match: Match, viewer: int | None, history_page: int = 1) -> SeatsAndHistory:
    """The match's seats and, on PostgreSQL, the history rows that match_page reads
    for seat `viewer`'s page (None: a spectator's) at `history_page`, in one round
    trip: the two statements are sent together. Elsewhere (and for a state the
    engine will not read, which the page reports itself) the seats alone; match_page
    then reads the history with a query of its own, as it does whenever what it
    needs is not what was read here."""
    db = connections[DEFAULT_DB_ALIAS]
    if match.state is None or db.vendor != "postgresql":
        return SeatsAndHistory(match_seats(match))
    try:
        over = bool(match.state.get("over"))
        wanted = _history_wanted(match, viewer, over, max(1, history_page))[1]
    except (engine.EngineError, AttributeError, KeyError, TypeError, ValueError):
        return SeatsAndHistory(match_seats(match))
    with db.cursor() as cursor:
        execute_prepared(
            cursor,
            "seats_history",
            [(_seats_sql(db), [match.pk]), (_history_sql(db), _history_params(match, *wanted))],
        )
        seat_rows = cursor.fetchall()
        cursor.nextset()
        history_rows = cursor.fetchall()
    return SeatsAndHistory(
        _seats_from(match, seat_rows, db), (viewer, *wanted), _history_from(history_rows, db)
    )


def _from_row(model: Any, row: tuple[Any, ...], fields: Any = None, *, db: Any = None) -> Any:
    """An instance of `model` from the values of `fields` (all its concrete ones
    unless told; the others deferred) as the database gave them, converted as the
    ORM converts them. `db`: the default connection, if the caller has it (each
    read of `django.db.connection` looks the connection up in a context-local
    store, twice for each row otherwise)."""
    db = connections[DEFAULT_DB_ALIAS] if db is None else db
    fields = model._meta.concrete_fields if fields is None else fields
    names, converting = _reader(model, fields, db)
    if len(row) != len(names):
        raise ValueError(f"{model.__name__}: {len(row)} values for {len(names)} fields")
    values = list(row)
    for at, col, converters in converting:
        value = values[at]
        for convert in converters:
            value = convert(value, col, db)
        values[at] = value
    return _instance(model, names, values, db.alias)


def _instance(model: Any, names: list[str], values: list[Any], alias: str | None = None) -> Any:
    """`model.from_db(alias, names, values)` (`names`: the fields' attnames in the
    model's order, the others deferred), made without Model.__init__ when that is
    the same thing: no pre_init or post_init receiver for the model and every field
    a plain attribute. __init__ walks every field of the model for each instance,
    and the page makes one for each seat, user, resolution and the version's rows."""
    alias = connection.alias if alias is None else alias
    if not _plain_model(model):
        return model.from_db(alias, names, values)
    made = model.__new__(model)
    state = made.__dict__["_state"] = ModelState()
    state.adding = False
    state.db = alias
    made.__dict__.update(zip(names, values, strict=True))
    return made


@functools.cache
def _plain_model(model: Any) -> bool:
    """True when Model.__init__ with positional values only sets each field's
    attname in the instance's __dict__ (and the model state): no signal receivers
    and no field attribute but Django's deferred ones (whose __set__ only writes it)."""
    if pre_init.has_listeners(model) or post_init.has_listeners(model):
        return False
    plain = (DeferredAttribute, ForeignKeyDeferredAttribute)
    return all(type(getattr(model, f.attname, None)) in plain for f in model._meta.concrete_fields)


_Reader = tuple[list[str], list[tuple[int, Any, list[Any]]]]


def _reader(model: Any, fields: Any, db: Any) -> _Reader:
    """The field names of `fields` and, for each field whose value the ORM converts,
    its position, column and converters (the database's and the field's), found once
    per connection for each field list (they were looked up anew for every row of
    every page and poll). A field list is known by its identity: the lists given
    are the model's own or kept by this module."""
    known: dict[int, tuple[Any, _Reader]] | None = getattr(db, "_h3_readers", None)
    if known is None:
        known = {}
        db._h3_readers = known
    hit = known.get(id(fields))
    if hit is not None and hit[0] is fields:
        return hit[1]
    order = [f for f in model._meta.concrete_fields if f in fields]
    if list(fields) != order:  # Model.from_db takes the values in the model's order
        raise ValueError(f"{model.__name__}: fields not in the model's order")
    table = model._meta.db_table
    converting = []
    for at, f in enumerate(fields):
        col = f.get_col(table)
        converters = db.ops.get_db_converters(col) + f.get_db_converters(db)
        if converters:
            converting.append((at, col, converters))
    reader: _Reader = ([f.attname for f in fields], converting)
    known[id(fields)] = (fields, reader)
    return reader


_HISTORY_FIELDS = ("id", "turn_number", "step", "seat", "events", "turn_ms")
_history_sqls: dict[str, str] = {}


def _history_wanted(
    match: Match, viewer: int | None, over: bool, history_page: int
) -> tuple[history.Reader, tuple[int | None, int, int, int]]:
    """The reader of seat `viewer`'s page (None: a spectator's) and the arguments of
    _history_rows for its history page `history_page`: the turn hidden from the
    reader, the first turn wanted (newest first), how many (one more than a page
    shows: whether there are older ones) and the turn they end before."""
    reader = history.reader_for(match.ruleset, match.state, viewer, over=over)
    first = (history_page - 1) * HISTORY_PAGE_TURNS
    # The turns the state has played: those before its turn number, and while a turn
    # of steps is played (or once the match is over) that turn's rows too.
    running = match.status == Match.Status.RUNNING and reader.open_turn is None
    upto = match.turn_number + (0 if running else 1)
    return reader, (reader.hidden_turn, first, HISTORY_PAGE_TURNS + 1, upto)


def _history_rows(
    match: Match, hidden: int | None, first: int, count: int, *, upto: int
) -> list[Resolution]:
    """Every resolution (each step) of `count` played turns before turn `upto`, newest
    first from the `first`-th, but the `hidden` one (a turn still being played),
    oldest first, with the fields the history reads: one query, written once per
    database. `upto` keeps the history to the state the page draws: a turn the
    worker commits between the page's read of the match and this query is not told
    beside a board that does not show it yet."""
    db = connections[DEFAULT_DB_ALIAS]
    with db.cursor() as cursor:
        cursor.execute(_history_sql(db), _history_params(match, hidden, first, count, upto))
        rows = cursor.fetchall()
    return _history_from(rows, db)


def _history_params(
    match: Match, hidden: int | None, first: int, count: int, upto: int
) -> list[Any]:
    # No turn is numbered -1: nothing is left out.
    return [match.pk, match.pk, -1 if hidden is None else hidden, upto, count, first]


def _history_from(rows: list[tuple[Any, ...]], db: Any) -> list[Resolution]:
    fields = _resolution_fields(_HISTORY_FIELDS)
    return [_from_row(Resolution, row, fields, db=db) for row in rows]


def _history_sql(db: Any) -> str:
    """_history_rows' query, written once per database."""
    sql = _history_sqls.get(db.vendor)
    if sql is None:
        quote = db.ops.quote_name
        columns = ", ".join(f"r.{quote(name)}" for name in _HISTORY_FIELDS)
        table = Resolution._meta.db_table
        sql = _history_sqls[db.vendor] = (
            f"SELECT {columns} FROM {table} r WHERE r.match_id = %s AND r.turn_number IN"
            f" (SELECT DISTINCT p.turn_number FROM {table} p"
            f"  WHERE p.match_id = %s AND p.turn_number <> %s AND p.turn_number < %s"
            f"  ORDER BY p.turn_number DESC LIMIT %s OFFSET %s)"
            f" ORDER BY r.turn_number, r.step"
        )
    return sql


@functools.cache
def _resolution_fields(names: tuple[str, ...]) -> tuple[Any, ...]:
    """The resolution's fields of these names, as a hand-written query's rows hold them."""
    return tuple(Resolution._meta.get_field(name) for name in names)


# In the model's order, as Model.from_db takes them.
_MOVIE_FIELDS = ("id", "turn_number", "step", "seat", "events", "state", "turn_ms")
_movie_sqls: dict[str, str] = {}


def movie_rows(match: Match, first: int, last: int) -> list[Resolution]:
    """Every resolution (each step) of turns first..last, in order, with the fields a
    movie reads (as `.only()` of them gives them): one query, written once per
    database, on every poll that plays the turns since as a movie."""
    sql = _movie_sqls.get(connection.vendor)
    if sql is None:
        quote = connection.ops.quote_name
        columns = ", ".join(f"r.{quote(name)}" for name in _MOVIE_FIELDS)
        sql = _movie_sqls[connection.vendor] = (
            f"SELECT {columns} FROM {Resolution._meta.db_table} r"
            f" WHERE r.match_id = %s AND r.turn_number >= %s AND r.turn_number <= %s"
            f" ORDER BY r.turn_number, r.step"
        )
    db = connections[DEFAULT_DB_ALIAS]
    with db.cursor() as cursor:
        cursor.execute(sql, [match.pk, first, last])
        rows = cursor.fetchall()
    fields = _resolution_fields(_MOVIE_FIELDS)
    return [_from_row(Resolution, row, fields, db=db) for row in rows]


@functools.cache
def _page_fields() -> tuple[Any, ...]:
    """The match's columns a page reads (all but the replay's two, as big as the
    state): the version query brings them along, as they came from the database."""
    return tuple(f for f in Match._meta.concrete_fields if f.attname not in PAGE_DEFERRED)


PAGE_DEFERRED = ("record", "initial_state")


# A user id no account has: the frame's counts are compiled once with it and the
# request's user put in its place (the ORM takes about a millisecond to write them).
_NOBODY = -7_340_033
# The match's id in the version query's parameters (_prepared_fetchone).
_MATCH = object()


_version_sqls: dict[tuple[str, bool], tuple[str, tuple[Any, ...]]] = {}


def _version_sql(*, signed_in: bool) -> tuple[str, tuple[Any, ...]]:
    """The version query and the parameters of its counts (_NOBODY for the user),
    written once per database and kind of viewer."""
    known = _version_sqls.get((connection.vendor, signed_in))
    if known is not None:
        return known
    match_t, turn_t, seat_t, res_t = (m._meta.db_table for m in (Match, Turn, Seat, Resolution))
    counts, count_params = _frame_counts_sql() if signed_in else ("NULL, NULL", ())
    columns = ", ".join("m." + connection.ops.quote_name(f.column) for f in _page_fields())
    sql = (
        f"SELECT m.status, m.turn_number, m.public, m.created_by_id, m.created_at, m.ruleset,"
        f" t.id, t.status, t.deadline_at, t.seat, s.number, s.standin_bot,"
        f" (SELECT COUNT(*) FROM {res_t} r"
        f"  WHERE r.match_id = m.id AND r.turn_number = m.turn_number), {counts}, {columns}"
        f" FROM {match_t} m"
        f" LEFT JOIN {turn_t} t ON t.match_id = m.id AND t.number = m.turn_number"
        f" LEFT JOIN {seat_t} s ON s.match_id = m.id AND s.user_id = %s"
        f" WHERE m.id = %s"
    )
    known = _version_sqls[(connection.vendor, signed_in)] = (sql, count_params)
    return known


def _prepared_fetchone(
    cursor: Any,
    kind: tuple[str, bool],
    sql: str,
    params: list[Any],
    user_id: int | None,
    match_id: int,
) -> tuple[Any, ...] | None:
    """`sql`'s first row, run as a statement prepared on this connection.

    `params` are the values of its placeholders, but _NOBODY for the user's id and
    _MATCH for the match's: those two are the statement's parameters, every other
    value is written into it when it is prepared, so each view sends only the two
    ids (written as numbers: no value to quote or to send apart).

    PostgreSQL plans the version query anew each time it is sent (its counts'
    subqueries: about two thirds of its cost to the database, on every view of
    the page); prepared once per connection, it is planned once. The PREPARE
    goes with the first EXECUTE in one round trip, so a request's query count is
    the same either way. A PREPARE outlives a rolled-back transaction; a failed
    first round leaves its name unused (the next tries under a new one), and a
    statement no longer there (DEALLOCATE ALL by someone) is prepared again, at
    once outside a transaction, else on the next call.
    """
    state = prepared_state()
    args = f"({sql_id(user_id)}, {sql_id(match_id)})"
    name = state.names.get(kind)
    if name is not None:
        try:
            cursor.execute(f"EXECUTE {name}{args}")
            found = cast(tuple[Any, ...] | None, cursor.fetchone())
            _read_later(state, name, cursor)
            return found
        except DatabaseError:
            state.names.pop(kind, None)
            if connection.in_atomic_block:
                raise  # the transaction is spoilt: no second try in it
    state.made += 1
    name = f"h3_{kind[0]}_{int(kind[1])}_{state.made}"
    pieces = sql.split("%s")
    assert len(pieces) == len(params) + 1, "one parameter for each placeholder"
    numbered = pieces[0]
    constants = []
    for value, piece in zip(params, pieces[1:], strict=True):
        if value is not _MATCH and value == _NOBODY:
            numbered += "$1" + piece
        elif value is _MATCH:
            numbered += "$2" + piece
        else:  # bound by the client (Django's cursor), so written into the statement
            numbered += "%s" + piece
            constants.append(value)
    state.texts[name] = numbered
    cursor.execute(f"PREPARE {name} AS {numbered}; EXECUTE {name}{args}", constants)
    cursor.nextset()
    found = cast(tuple[Any, ...] | None, cursor.fetchone())
    state.names[kind] = name
    _read_later(state, name, cursor)
    return found


def _read_later(state: Prepared, name: str, cursor: Any) -> None:
    """After the cursor ran statement `name` once: how _prepared_fast converts its
    answer's leading columns, found from that answer's column types."""
    if name in state.readers:
        return
    result = getattr(cursor.cursor, "pgresult", None)
    if result is None or result.nfields < _VERSION_COLUMNS:
        state.readers[name] = None
        return
    state.readers[name] = _readers(state.raw, connection.timezone, result)


# _prepared_fast's answer when the statement is to be run by Django's cursor.
_SLOW = object()


def _prepared_fast(
    db: Any, kind: tuple[str, bool], user_id: int | None, match_id: int
) -> _VersionRest | None | object:
    """The statement `kind` prepared on this connection (_prepared_fetchone) run
    straight on libpq (psycopg's PGconn): its first row as a _VersionRest, None if
    there is none, or _SLOW when the cursor is to run it (not prepared yet, an
    execute wrapper installed, a transaction that psycopg would begin first, a
    time zone of the cursor's own).

    Django's cursor and psycopg's take about six times as long as libpq to run the
    version query, which is one statement whose answer is one row, and psycopg
    converts every column as it fetches it, where a cached page needs the first
    fifteen. The connection's health check and thread check run as the cursor's
    do; the query is logged as a cursor logs it when queries are; an error is
    Django's, as the cursor raises it (psycopg's error of the result, wrapped).
    """
    state = getattr(db, "_h3_prepared", None)
    raw = db.connection
    if state is None or raw is None or state.raw is not raw or db.execute_wrappers:
        return _SLOW
    name = state.names.get(kind)
    reader = state.readers.get(name) if name is not None else None
    if reader is None or (not raw.autocommit and raw.pgconn.transaction_status == _TX_IDLE):
        return _SLOW
    db.close_if_health_check_failed()
    db.validate_thread_sharing()
    if db.connection is not raw:  # closed by the health check
        return _SLOW
    text = f"EXECUTE {name}({sql_id(user_id)}, {sql_id(match_id)})"
    logged = db.queries_logged
    start = time.monotonic() if logged else 0.0
    try:
        with db.wrap_database_errors:
            result = raw.pgconn.exec_(text.encode())
            if result.status != _TUPLES_OK:
                raise _pg_error(result, raw)
    except DatabaseError:
        # As _prepared_fetchone: a statement no longer there is prepared again, at
        # once outside a transaction (by the cursor), else on the next call.
        state.names.pop(kind, None)
        if db.in_atomic_block:
            raise
        return _SLOW
    finally:
        if logged:
            duration = time.monotonic() - start
            db.queries_log.append({"sql": text, "time": f"{duration:.3f}"})
            _db_log.debug(
                "(%.3f) %s; args=%s; alias=%s",
                duration,
                text,
                None,
                db.alias,
                extra={"duration": duration, "sql": text, "params": None, "alias": db.alias},
            )
    if result.ntuples == 0:
        return None
    return _VersionRest(result, raw, reader)


def _pg_error(result: Any, raw: Any) -> Exception:
    from psycopg import errors

    return errors.error_from_result(result, encoding=raw.info.encoding)


class _VersionRest:
    """The version query's answer as libpq gave it: the version's own columns
    (leading) converted at once, the match's row (values) only when asked."""

    __slots__ = ("result", "raw", "reader")

    def __init__(self, result: Any, raw: Any, reader: list[Any]) -> None:
        self.result, self.raw, self.reader = result, raw, reader

    def leading(self) -> tuple[Any, ...]:
        """The first _VERSION_COLUMNS values, as psycopg's loaders give them."""
        get = self.result.get_value
        values = []
        for at, load in enumerate(self.reader):
            data = get(0, at)
            values.append(None if data is None else load(data))
        return tuple(values)

    def values(self) -> tuple[Any, ...]:
        """The rest of the row (the match's columns), converted by psycopg as its
        cursor would."""
        from psycopg.adapt import Transformer
        from psycopg.pq import Format

        result = self.result
        columns = range(_VERSION_COLUMNS, result.nfields)
        transformer = Transformer(self.raw)
        transformer.set_loader_types([result.ftype(at) for at in columns], Format.TEXT)
        return tuple(transformer.load_sequence([result.get_value(0, at) for at in columns]))


def _readers(raw: Any, timezone_: Any, result: Any) -> list[Any] | None:
    """How to convert each of the version's own columns of `result`: a plain function
    where it gives what psycopg's loader gives (a number, a flag, text, a time in
    UTC), the loader itself otherwise; None when the connection's times are not in
    the time zone Django asks for (its cursor then registers a loader of its own) or
    a column's type has no loader."""
    from psycopg.pq import Format

    adapters = raw.adapters
    stamp = adapters.get_loader(_TIMESTAMPTZ, Format.TEXT)
    if getattr(stamp, "timezone", None) != timezone_:
        return None
    encoding = raw.info.encoding
    readers: list[Any] = []
    for at in range(_VERSION_COLUMNS):
        oid = result.ftype(at)
        made = adapters.get_loader(oid, Format.TEXT)
        if made is None:  # a type psycopg has no loader for: its cursor decides
            return None
        loader = made(oid, raw).load
        if oid in _INTEGERS:
            readers.append(int)
        elif oid == _BOOL:
            readers.append(_true)
        elif oid in _TEXTS and encoding == "utf-8":
            readers.append(_utf8)
        elif oid == _TIMESTAMPTZ and timezone_ is UTC:
            readers.append(functools.partial(_utc_stamp, loader))
        else:
            readers.append(loader)
    return readers


# PostgreSQL's type oids (pg_type), as psycopg's own table gives them.
_BOOL, _TIMESTAMPTZ = 16, 1184
_INTEGERS = frozenset({20, 21, 23})  # int8, int2, int4
_TEXTS = frozenset({25, 1043})  # text, varchar
_TUPLES_OK = 2  # libpq's PGRES_TUPLES_OK
_TX_IDLE = 0  # libpq's PQTRANS_IDLE
_db_log = logging.getLogger("django.db.backends")


def _true(data: bytes) -> bool:
    return data == b"t"


def _utf8(data: bytes) -> str:
    return data.decode()


def _utc_stamp(loader: Any, data: bytes) -> datetime:
    """A timestamptz as PostgreSQL writes it in the UTC session Django sets
    ("2026-01-02 03:04:05.678901+00"), as psycopg's loader reads it; anything else
    by the loader."""
    if data.endswith(b"+00"):
        try:
            return datetime.fromisoformat(data.decode())
        except ValueError:
            pass
    return cast(datetime, loader(data))


def _frame_counts_sql() -> tuple[str, tuple[Any, ...]]:
    """The page frame's two counts as columns of the version query, and their
    parameters (_NOBODY for the user): the same query as your_move_seats and the
    challenges that games.compete.challenges.waiting_count counts."""
    from games.compete.models import Challenge

    query = your_move_seats(_NOBODY).order_by().values("pk").query
    sql, params = query.get_compiler(connection=connection).as_sql()
    assert params.count(_NOBODY) == 1, "the user id is the query's one sentinel"
    challenge_t = Challenge._meta.db_table
    counts = (
        f"(SELECT COUNT(*) FROM ({sql}) ym),"
        f" (SELECT COUNT(*) FROM {challenge_t} c WHERE c.challenged_id = %s"
        f"  AND c.status = %s AND c.expires_at > CURRENT_TIMESTAMP)"
    )
    return counts, (*params, _NOBODY, Challenge.Status.PENDING.value)


@dataclass
class MatchPage:
    """What the match page shows, computed from the viewer's view only."""

    match: Match
    seat: Seat | None
    seats: list[Seat]
    view: dict[str, Any] | None
    last_events: list[dict[str, Any]] = field(default_factory=list)
    last_turn: int | None = None
    recent_turns: list[dict[str, Any]] = field(default_factory=list)
    turn: Turn | None = None
    my_robots: list[dict[str, Any]] = field(default_factory=list)
    money: list[dict[str, Any]] = field(default_factory=list)
    # The board page's history: one page of turns, newest first, each with the
    # viewer's copy of its events and those events as sentences.
    history_page: int = 1
    history_more: bool = False

    @property
    def my_move(self) -> bool:
        return (
            self.seat is not None
            and self.view is not None
            and not self.view["over"]
            and self.match.status == Match.Status.RUNNING
            and self.seat.number in awaited_in(self.view)
            and not self.seat.driver_bot
            and self.turn is not None
            and self.turn.status == Turn.Status.WAITING
        )

    @property
    def over(self) -> bool:
        return bool(self.view and self.view["over"])

    def seat_rows(self) -> SafeString:
        """The panel's players table rows (games/panel_rows.py)."""
        return panel_rows.seat_rows(
            self.money, self.view, self.seat.number if self.seat is not None else None
        )

    def robot_rows(self) -> SafeString:
        """The panel's table rows of the viewer's robots (games/panel_rows.py)."""
        return panel_rows.robot_rows(self.my_robots)

    def turn_rows(self) -> SafeString:
        """The history's list items of this page's turns (games/panel_rows.py)."""
        return panel_rows.turn_rows(self.recent_turns)


def awaited_in(view: dict[str, Any]) -> list[int]:
    """The seats a view says the turn waits for: every awaited seat of a turn at once,
    else the one to move (Helium 3's views say only `to_move`)."""
    awaiting = view.get("awaiting")
    if isinstance(awaiting, list):
        return [s for s in awaiting if type(s) is int]
    return [view["to_move"]] if type(view.get("to_move")) is int else []


HISTORY_PAGE_TURNS = 8


def match_page(
    match: Match,
    seat: Seat | None,
    *,
    seats: list[Seat] | None = None,
    history_page: int = 1,
    version: PageVersion | None = None,
    read: SeatsAndHistory | None = None,
) -> MatchPage:
    """The page for `seat` (None: a spectator), built from engine.view only.

    `seats` saves a query when the caller has them; `history_page` picks which
    turns the history shows (1: the newest); `read`: the seats and the history as
    seats_and_history read them (a query less when they are this page's). A
    constant number of queries.
    """
    if read is not None and seats is None:
        seats = read.seats
    if seats is None:
        seats = list(Seat.objects.filter(match=match).select_related("user"))
    page = MatchPage(match=match, seat=seat, seats=seats, view=None)
    page.history_page = max(1, history_page)
    if match.state is None:
        return page
    viewer = seat.number if seat is not None else None
    view = engine.view(match.state, viewer)
    page.view = view
    # The version read the current turn already (for the same match turn: the caller
    # checks), which saves the query.
    page.turn = version.turn if version is not None else current_turn(match)
    # One query gives the history page (HISTORY_PAGE_TURNS turns, newest first, and
    # whether there are older ones); the newest page is also "the last round". A
    # turn of steps is one entry, and only its own seat knows of it before it ends.
    over = bool(view["over"])
    reader, wanted = _history_wanted(match, viewer, over, page.history_page)
    if read is not None and read.history_for == (viewer, *wanted):
        recent = read.history
    else:
        hidden, first, count, upto = wanted
        recent = _history_rows(match, hidden, first, count, upto=upto)
    turns = history.entries(recent, reader)[::-1]
    page.history_more = len(turns) > HISTORY_PAGE_TURNS
    page.recent_turns = [_history_turn(t, match.ruleset) for t in turns[:HISTORY_PAGE_TURNS]]
    if page.recent_turns and page.history_page == 1:
        page.last_turn = page.recent_turns[0]["number"]
        page.last_events = page.recent_turns[0]["events"]
    labels = {s.number: s.label for s in seats}
    # What the game ranks by: the view's scores, else (Helium 3) each player's money.
    scores = view.get("scores")
    if not isinstance(scores, dict):
        scores = {str(p["seat"]): p["money"] for p in view["players"] if "money" in p}
    robots = view.get("robots", [])  # a game without robots counts none
    # A seat whose score the view does not hold is one the viewer has not seen (a fog):
    # "?" for its score, never a 0 that reads as destroyed; its robots are what the
    # view says of the seat (the arena's: still in, "alive", or "out"), else "?".
    page.money = [
        {
            "seat": p["seat"],
            "money": scores.get(str(p["seat"]), "?"),
            "who": labels.get(p["seat"], "?"),
            "winner": p["seat"] in view.get("winners", []),
            "robots": sum(1 for r in robots if r["seat"] == p["seat"] and r["alive"])
            if str(p["seat"]) in scores
            else {True: "alive", False: "out"}.get(p.get("alive"), "?"),
        }
        for p in view["players"]
    ]
    if viewer is not None:
        # The table of the viewer's robots is Helium 3's (robots named by id, with what
        # they mined); another game's robots (the arena's one) are shown by its board.
        page.my_robots = [r for r in robots if r["seat"] == viewer and r.get("alive") and "id" in r]
    return page


def match_history(match: Match, seat: int | None, *, since: int = 0) -> list[dict[str, Any]]:
    """Every turn from `since` on that `seat` may know of, as its copy (None: a
    spectator's), one entry per turn (games/history.py).

    While the match runs each turn's events go through engine.events_view, so a
    player sees its own shields only and a spectator none, and another seat's turn
    of steps shows once it has ended; orders are not shown (they name shields and
    deflects). Once it is over, everything is public, orders included.
    """
    over = match.status == Match.Status.FINISHED
    reader = history.reader_for(match.ruleset, match.state, seat, over=over)
    rows = Resolution.objects.filter(match=match, turn_number__gte=since).order_by(
        "turn_number", "step"
    )
    fields = ("turn_number", "step", "seat", "turn_ms", "events", "orders")
    return history.entries(rows.only(*fields), reader, orders=over)


def _history_turn(turn: dict[str, Any], ruleset: str) -> dict[str, Any]:
    """A history entry as the page shows it: the sentences of its events (those of
    each step, in a turn the viewer saw step by step)."""
    from games import presentation

    sentences = presentation.get(ruleset).sentences
    steps = turn.get("steps")
    if steps is None:
        lines = sentences(turn["events"])
    else:
        lines = [line for step in steps for line in sentences(step["events"])]
    return {
        "number": turn["turn"],
        "seat": turn["seat"],
        "turn_ms": turn["turn_ms"],
        "events": turn["events"],
        "lines": lines,
        "lines_html": presentation.lines_html(lines),
    }


def match_record(match: Match) -> dict[str, Any]:
    """The replay file: initial state, every turn's orders and full events, final state."""
    turns = [
        {"orders": r.orders, "events": r.events}
        for r in Resolution.objects.filter(match=match).order_by("turn_number", "step")
    ]
    return {"initial": match.initial_state, "turns": turns, "final": match.state}


def orders_sent(page: MatchPage) -> dict[str, Any] | None:
    """The orders the viewer already sent for the turn now open, in a turn where
    every seat moves at once (they are replaceable until it resolves); None when
    none are stored or the game moves one seat at a time (then no query)."""
    if not page.my_move or page.seat is None or page.view is None:
        return None
    if len(awaited_in(page.view)) < 2 and not engine.ruleset(page.match.ruleset).shape.simultaneous:
        return None
    row = (
        Orders.objects.filter(
            match=page.match, seat=page.seat.number, turn_number=page.view["turn"], step=0
        )
        .only("orders")
        .first()
    )
    return row.orders if row is not None else None


def orders_view(match: Match, seat: Seat) -> dict[str, Any] | None:
    """The seat's view, which the orders form is built from (its pieces, its turn).

    No query: an orders POST needs only this, not the whole page (it is on the
    turn's critical path, see bench/turn_latency.py).
    """
    if match.state is None:
        return None
    return engine.view(match.state, seat.number)


def notification_settings_for(user: User) -> NotificationSettings:
    prefs = NotificationSettings.objects.filter(user=user).first()
    return prefs if prefs is not None else NotificationSettings(user=user)


def your_move_seats(user_id: int) -> QuerySet[Seat]:
    """The seats whose move it is of player `user_id`: the navigation badge's count
    and the push channel's `moves` (one query). A running match whose seat to move
    is the player's own, not played by a stand-in bot, and whose turn still waits for
    its orders (orders accepted and being resolved are no longer the player's move),
    or whose turn at once waits for this seat's orders."""
    return seats_to_move(Seat.objects.filter(user_id=user_id))


_move_count_sqls: dict[str, tuple[str, tuple[Any, ...]]] = {}


def your_move_count(user_id: int) -> int:
    """How many of your_move_seats(user_id) there are: the navigation badge of every
    page but the match page (whose version query brings it). The same query, written
    once per database with _NOBODY for the user: the ORM took longer to write its
    three subqueries on each page than the database to answer them."""
    known = _move_count_sqls.get(connection.vendor)
    if known is None:
        query = your_move_seats(_NOBODY).order_by().values("pk").query
        sql, params = query.get_compiler(connection=connection).as_sql()
        assert params.count(_NOBODY) == 1, "the user id is the query's one sentinel"
        known = _move_count_sqls[connection.vendor] = (
            f"SELECT COUNT(*) FROM ({sql}) ym",
            tuple(params),
        )
    sql, params = known
    with connection.cursor() as cursor:
        cursor.execute(sql, [user_id if p == _NOBODY else p for p in params])
        row = cursor.fetchone()
    return int(row[0]) if row else 0


def seats_to_move(seats: QuerySet[Seat]) -> QuerySet[Seat]:
    """Of `seats`, those whose move it is (your_move_seats' rule, for any seats: the
    push channel counts every listener's at once)."""
    accepted = Turn.objects.filter(
        match=OuterRef("match_id"),
        number=OuterRef("match__turn_number"),
        status=Turn.Status.ACCEPTED,
    )
    at_once = Turn.objects.filter(
        match=OuterRef("match_id"),
        number=OuterRef("match__turn_number"),
        seat=AT_ONCE,
        status=Turn.Status.WAITING,
    )
    given = Orders.objects.filter(
        match=OuterRef("match_id"),
        turn_number=OuterRef("match__turn_number"),
        seat=OuterRef("number"),
        step=0,
    )
    return seats.filter(standin_bot="", match__status=Match.Status.RUNNING).filter(
        (Q(match__to_move=F("number")) & ~Exists(accepted)) | (Exists(at_once) & ~Exists(given))
    )
