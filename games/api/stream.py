"""The bot API's event stream, GET /api/v1/stream/ (docs/api-stream.md): one JSON
object per line for each event of the caller's matches, and a blank line every
KEEPALIVE_SECONDS so that a dead connection shows.

The database is the source of truth. A `Session` remembers what it has told its
caller about each match (a `Cursor`); asked to catch up, it re-reads the matches
whose fingerprint changed and says what is new since. Waking it is the server's
business: under ASGI one loop per process reads every stream's fingerprints in one
query (games/api/stream_asgi.py); under WSGI `stream_view` polls for its own stream.
A wake that comes late or for nothing costs a re-read, never an event; a stream
that (re)connects first hears every match that waits for the caller's orders.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any
from urllib.parse import parse_qsl

from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection
from django.db.models import Q
from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.http.request import split_domain_port, validate_host
from django.http.response import HttpResponseBase
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt

import engine
from games import history
from games.api.errors import error_body
from games.api.matches import match_out
from games.api.ratelimit import RateLimited, rate_limit_hit
from games.models import ApiToken, Match, Resolution, Seat, Turn
from games.services.tokens import token_authenticate

log = logging.getLogger(__name__)

STREAM_PATH = "/api/v1/stream/"
# A blank line after this long without an event: proxies keep the connection, and a
# client whose read times out (say after 3 of them) knows the connection is dead.
KEEPALIVE_SECONDS = 5.0
# How often a stream's matches are looked at: the ASGI hub, one query for all of a
# process's streams; a WSGI stream, one query for itself.
POLL_SECONDS = 0.1
WSGI_POLL_SECONDS = 0.2
WSGI_KEEPALIVE_SECONDS = 1.0
# How often a stream's token is checked again: a revoked token's streams end.
TOKEN_CHECK_SECONDS = 10.0
# Streams one token may hold open in one web process at once.
STREAMS_PER_TOKEN = 8
# Users per fingerprint query (SQLite takes at most 32766 parameters).
USERS_PER_QUERY = 500

ACTIVE = (Match.Status.OPEN, Match.Status.RUNNING, Match.Status.PAUSED)
OVER = (Match.Status.FINISHED, Match.Status.ABORTED)

# What a stream's caller could be told about one match: its status and turn, the
# turn row's status, the steps resolved in the turn, the seat's bot. Equal
# fingerprints: nothing to tell; different ones: re-read the match.
Fingerprint = tuple[str, int, str | None, int | None, str, str]
# A user's active matches, by id.
Digest = dict[int, Fingerprint]


def _digest_sql(users: int) -> str:
    match_t, seat_t, turn_t, resolution_t = (
        model._meta.db_table for model in (Match, Seat, Turn, Resolution)
    )
    return (
        f"SELECT s.user_id, s.match_id, m.status, m.turn_number,"
        f" (SELECT t.status FROM {turn_t} t"
        f"   WHERE t.match_id = s.match_id AND t.number = m.turn_number),"
        f" (SELECT MAX(r.step) FROM {resolution_t} r"
        f"   WHERE r.match_id = s.match_id AND r.turn_number = m.turn_number),"
        f" s.bot, s.standin_bot"
        f" FROM {seat_t} s JOIN {match_t} m ON m.id = s.match_id"
        f" WHERE s.user_id IN ({', '.join(['%s'] * users)})"
        f" AND m.status IN ({', '.join(['%s'] * len(ACTIVE))})"
    )


# A challenge's key in a digest: its id, negated (match ids are positive), with the
# challenge's status where a match has its own. A pending challenge is in the digests
# of both its accounts, an answered one for a while after its answer (so that an
# answer given between two reads is still told). games/compete/challenge_stream.py
# says what a stream tells of it.
CHALLENGE_ANSWER_SECONDS = 60


def _challenges_sql(users: int) -> str:
    """The challenges' rows of the digest, each account's in the same columns as a
    match's (one query reads both: the hub's cost stays one query a poll)."""
    from games.compete.models import Challenge

    table = Challenge._meta.db_table
    marks = ", ".join(["%s"] * users)
    return " UNION ALL ".join(
        f"SELECT c.{who}_id, -c.id, c.status, 0, NULL, NULL, '', '' FROM {table} c"
        f" WHERE c.{who}_id IN ({marks}) AND (c.status = %s OR c.answered_at > %s)"
        for who in ("challenged", "challenger")
    )


def read_digests(user_ids: Collection[int]) -> dict[int, Digest]:
    """Every user's digest, in one query per USERS_PER_QUERY users.

    Plain SQL: the hub runs it ten times a second, and Django's compiler takes
    longer to write it than the database to answer it (as selectors'
    match_page_version). A turn and a (match, turn, step) are unique, so each
    subquery reads one index entry.
    """
    digests: dict[int, Digest] = {user_id: {} for user_id in user_ids}
    ids = sorted(digests)
    with connection.cursor() as cursor:
        for start in range(0, len(ids), USERS_PER_QUERY):
            chunk = ids[start : start + USERS_PER_QUERY]
            since = timezone.now() - timedelta(seconds=CHALLENGE_ANSWER_SECONDS)
            challenges: list[Any] = [*chunk, "pending", since] * 2
            cursor.execute(
                f"{_digest_sql(len(chunk))} UNION ALL {_challenges_sql(len(chunk))}",
                [*chunk, *(s.value for s in ACTIVE), *challenges],
            )
            for user_id, match_id, *fingerprint in cursor.fetchall():
                digests[user_id][match_id] = tuple(fingerprint)
    return digests


def active_tokens(token_ids: Collection[int]) -> set[int]:
    """Those of the tokens that still authenticate (not revoked, their user active)."""
    return set(
        ApiToken.objects.filter(
            pk__in=list(token_ids), revoked_at__isnull=True, user__is_active=True
        ).values_list("pk", flat=True)
    )


def encode(events: list[dict[str, Any]]) -> bytes:
    """Events as newline-delimited JSON."""
    return b"".join(
        json.dumps(event, cls=DjangoJSONEncoder, separators=(",", ":")).encode() + b"\n"
        for event in events
    )


@dataclass
class Cursor:
    """What a stream has told about one match: whether it started, the resolutions
    before `upto` (turn, step), and the turn and step it said were the caller's."""

    started: bool
    upto: tuple[int, int] = (0, 0)
    told_turn: tuple[int, int] | None = None


def _position(match: Match, seat: Seat) -> tuple[int, int]:
    """Where the match's state is, as far as `seat` may know: resolutions before this
    (turn, step) made it. Another seat's turn of steps is at its step 0 until it ends."""
    if match.state is None:
        return (0, 0)
    reader = history.reader_for(match.ruleset, match.state, seat.number, over=False)
    return (match.turn_number, reader.step_now)


@dataclass
class Session:
    """One stream's memory of its caller's matches, and the reads that advance it.
    Its methods query the database: call them from a thread, never the event loop."""

    user_id: int
    seen: Digest = field(default_factory=dict)
    cursors: dict[int, Cursor] = field(default_factory=dict)
    over: set[int] = field(default_factory=set)
    # The status each challenge had when last told (or seen) on this stream.
    challenges: dict[int, str] = field(default_factory=dict)

    def open(self) -> list[dict[str, Any]]:
        """The caller's current state: a `your_turn` for every match that waits for
        its orders. Every active match is taken as told up to now."""
        self.seen = read_digests([self.user_id])[self.user_id]
        events: list[dict[str, Any]] = []
        for match_id in sorted(self.seen):
            events += self._look(match_id, connecting=True)
        return events

    def catch_up(self, latest: Digest) -> list[dict[str, Any]]:
        """What is new in the matches whose fingerprint differs from the last seen
        (a match that left the digest has ended, or the seat is no longer the caller's)."""
        changed = sorted(
            m for m in latest.keys() | self.seen.keys() if latest.get(m) != self.seen.get(m)
        )
        self.seen = latest
        events: list[dict[str, Any]] = []
        for match_id in changed:
            events += self._look(match_id, connecting=False)
        return events

    def _look(self, match_id: int, *, connecting: bool) -> list[dict[str, Any]]:
        if match_id < 0:
            from games.compete.challenge_stream import challenge_events

            return challenge_events(self.user_id, -match_id, self.challenges, connecting=connecting)
        if match_id in self.over:
            return []
        match = Match.objects.defer("initial_state", "record").filter(pk=match_id).first()
        seat = (
            Seat.objects.filter(match_id=match_id, user_id=self.user_id).order_by("pk").first()
            if match is not None
            else None
        )
        if match is None or seat is None:
            self.cursors.pop(match_id, None)
            return []
        cursor = self.cursors.get(match_id)
        if cursor is None:
            started = match.started_at is not None
            # Connecting: everything so far is the past. A match met later is told
            # from its start (it started, or was created, after the stream opened).
            cursor = Cursor(
                started=connecting and started,
                upto=_position(match, seat) if connecting else (0, 0),
            )
            self.cursors[match_id] = cursor
        events: list[dict[str, Any]] = []
        body: dict[str, Any] | None = None

        def detail() -> dict[str, Any]:
            nonlocal body
            if body is None:
                body = match_out(match, seat)
            return body

        if not cursor.started and match.started_at is not None:
            cursor.started = True
            events.append({"type": "match_started", "match_id": match_id, "match": detail()})
        events += self._resolved(match, seat, cursor)
        if match.status in OVER:
            events.append({"type": "match_over", "match_id": match_id, "match": detail()})
            self.cursors.pop(match_id, None)
            self.over.add(match_id)
            return events
        # A quick no before the full read: another seat's turn alone.
        due = (
            match.status == Match.Status.RUNNING
            and not seat.driver_bot
            and match.state is not None
            and seat.number in engine.awaiting(match.state)
            and detail()["your_turn"]
        )
        key = (match.turn_number, detail()["step"]) if due else None
        if key is not None and cursor.told_turn != key:
            events.append({"type": "your_turn", "match_id": match_id, "match": detail()})
        cursor.told_turn = key
        return events

    def _resolved(self, match: Match, seat: Seat, cursor: Cursor) -> list[dict[str, Any]]:
        """`turn_resolved` for each resolution from the cursor up to the state read (a
        resolution is stored with the state it made, so none is missing): one per
        step of the caller's own turns of steps, one per turn of everything else,
        another seat's turn of steps once it has ended (games/history.py)."""
        turn, step = cursor.upto
        rows = Resolution.objects.filter(match=match).filter(
            Q(turn_number__gt=turn) | Q(turn_number=turn, step__gte=step)
        )
        if match.status not in OVER:
            upto = _position(match, seat)
            rows = rows.filter(
                Q(turn_number__lt=upto[0]) | Q(turn_number=upto[0], step__lt=upto[1])
            )
        over = match.status == Match.Status.FINISHED
        reader = history.reader_for(match.ruleset, match.state, seat.number, over=over)
        events = []
        found = rows.order_by("turn_number", "step").only(
            "turn_number", "step", "seat", "turn_ms", "events"
        )
        for rows_of_turn in history.group(found):
            # The caller's own turn of steps step by step, as it played them.
            own = reader.steps and rows_of_turn[0].seat == seat.number
            told = [[row] for row in rows_of_turn] if own else [rows_of_turn]
            for part in told:
                entry = history.entry(part, reader)
                if entry is None:
                    continue
                events.append(
                    {
                        "type": "turn_resolved",
                        "match_id": match.pk,
                        "turn": entry["turn"],
                        "step": part[0].step if own else 0,
                        "seat": entry["seat"],
                        "turn_ms": entry["turn_ms"],
                        "events": entry["events"],
                    }
                )
                cursor.upto = (part[-1].turn_number, part[-1].step + 1)
        if match.status not in OVER:
            cursor.upto = max(cursor.upto, _position(match, seat))
        return events


# --- the request: the same checks as the rest of the API, without ninja -------------


@dataclass(frozen=True)
class Refusal:
    """An error answer: docs/protocol.md's error object, its status and headers."""

    status: int
    code: str
    message: str
    headers: tuple[tuple[str, str], ...] = ()

    def body(self) -> bytes:
        return json.dumps(error_body(self.code, self.message)).encode()


UNAUTHORIZED = Refusal(
    401,
    "unauthorized",
    "Send a valid API token: Authorization: Bearer <token> (create one on your settings page).",
    (("WWW-Authenticate", 'Bearer realm="helium3"'),),
)


def _allowed_host(host: str) -> bool:
    allowed = settings.ALLOWED_HOSTS
    if settings.DEBUG and not allowed:  # as HttpRequest.get_host
        allowed = [".localhost", "127.0.0.1", "[::1]"]
    domain, _port = split_domain_port(host)
    return bool(domain) and validate_host(domain, allowed)


def check_request(
    method: str, host: str | None, query: str, authorization: str | None
) -> ApiToken | Refusal:
    """The caller's token, counted as one request against its limit; or why not.
    `host`: the Host header, None when Django's request checked it already."""
    if host is not None and not _allowed_host(host):
        return Refusal(400, "bad_request", "This host is not served here.")
    if method != "GET":
        return Refusal(
            405,
            "method_not_allowed",
            f"This path does not take {method[:10]}.",
            (("Allow", "GET"),),
        )
    unknown = sorted({key for key, _ in parse_qsl(query, keep_blank_values=True)})
    if unknown:
        return Refusal(400, "bad_shape", f"Unknown query parameter {unknown[0][:40]!r}.")
    scheme, _, raw = (authorization or "").partition(" ")
    if scheme.lower() != "bearer":
        return UNAUTHORIZED
    token = token_authenticate(raw.strip())
    if token is None:
        return UNAUTHORIZED
    try:
        rate_limit_hit(f"token:{token.pk}")
    except RateLimited as limited:
        return Refusal(
            429,
            "rate_limited",
            f"Too many requests with this token; try again in {limited.retry_after} s.",
            (("Retry-After", str(limited.retry_after)),),
        )
    return token


UNAVAILABLE = Refusal(
    503, "unavailable", "The site cannot answer now; try again.", (("Retry-After", "5"),)
)
TOO_MANY_STREAMS = Refusal(
    429,
    "too_many_streams",
    f"This token has {STREAMS_PER_TOKEN} streams open here already; close one first.",
    (("Retry-After", str(int(KEEPALIVE_SECONDS))),),
)

# The response's headers: no cache or proxy may hold the lines back.
STREAM_HEADERS = (
    ("Content-Type", "application/x-ndjson"),
    ("Cache-Control", "no-store"),
    ("X-Accel-Buffering", "no"),
    ("X-Content-Type-Options", "nosniff"),
)


class OpenStreams:
    """How many streams each token holds open in this process."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._count: dict[int, int] = {}

    def take(self, token_id: int, *, most: int | None = None) -> bool:
        """Count one more stream of the token, unless it holds STREAMS_PER_TOKEN
        already (or the process holds `most`)."""
        with self._lock:
            if self._count.get(token_id, 0) >= STREAMS_PER_TOKEN:
                return False
            if most is not None and sum(self._count.values()) >= most:
                return False
            self._count[token_id] = self._count.get(token_id, 0) + 1
            return True

    def give_back(self, token_id: int) -> None:
        with self._lock:
            left = self._count.get(token_id, 0) - 1
            if left > 0:
                self._count[token_id] = left
            else:
                self._count.pop(token_id, None)

    def total(self) -> int:
        with self._lock:
            return sum(self._count.values())


OPEN_STREAMS = OpenStreams()


# --- under WSGI: a thread per stream --------------------------------------------------


def _refused(refusal: Refusal) -> HttpResponse:
    response = JsonResponse(error_body(refusal.code, refusal.message), status=refusal.status)
    for name, value in refusal.headers:
        response[name] = value
    return response


# Streams one WSGI process holds at most, a thread each (development servers).
WSGI_STREAMS_MOST = 16
# 421 Misdirected Request: this server does not answer for the path; the site's
# ASGI process does (a 4xx: nothing is wrong with the server that says so).
NOT_HERE = Refusal(
    421,
    "stream_elsewhere",
    "This server holds no more streams: the stream is served by the site's ASGI process "
    "(helium3_site.asgi, docs/api-stream.md).",
    (("Retry-After", "30"),),
)


@csrf_exempt
def stream_view(request: HttpRequest) -> HttpResponseBase:
    """The stream under a threaded WSGI server (runserver, the tests' live server):
    each open stream holds a server thread and polls for itself, WSGI_STREAMS_MOST at
    most. An ASGI server never gets here: helium3_site.asgi serves the path without
    a thread (stream_asgi.py); in production the proxy sends the path there."""
    if hasattr(request, "scope"):  # Django's own ASGI handler, without helium3_site.asgi
        return _refused(NOT_HERE)
    try:
        request.get_host()
    except DisallowedHost:
        return _refused(Refusal(400, "bad_request", "This host is not served here."))
    found = check_request(
        request.method or "",
        None,
        request.META.get("QUERY_STRING", ""),
        request.headers.get("Authorization"),
    )
    if isinstance(found, Refusal):
        return _refused(found)
    if not request.META.get("wsgi.multithread"):
        # A process that serves one request at a time (gunicorn's sync workers)
        # would be this stream's alone.
        return _refused(NOT_HERE)
    if not OPEN_STREAMS.take(found.pk, most=WSGI_STREAMS_MOST):
        return _refused(NOT_HERE if OPEN_STREAMS.total() >= WSGI_STREAMS_MOST else TOO_MANY_STREAMS)
    response = StreamingHttpResponse(_wsgi_lines(found))
    for name, value in STREAM_HEADERS:
        response[name] = value
    return response


def _wsgi_lines(token: ApiToken) -> Iterator[bytes]:
    """The stream's lines, polling for this stream alone. A WSGI server learns that
    the client left only when a write fails, so it keeps alive every second."""
    try:
        session = Session(token.user_id)
        yield b""  # the headers go out now: the caller knows it is connected
        lines = encode(session.open())
        last_line = time.monotonic()
        token_checked = last_line
        if lines:
            yield lines
        while True:
            time.sleep(WSGI_POLL_SECONDS)
            now = time.monotonic()
            if now - token_checked >= TOKEN_CHECK_SECONDS:
                if not active_tokens([token.pk]):
                    return
                token_checked = now
            latest = read_digests([token.user_id])[token.user_id]
            lines = encode(session.catch_up(latest)) if latest != session.seen else b""
            if not lines and now - last_line >= WSGI_KEEPALIVE_SECONDS:
                lines = b"\n"
            if lines:
                last_line = now
                yield lines
    except Exception:
        # The stream ends; the bot reconnects and hears the current state.
        log.exception("stream: reading the matches of user %s failed", token.user_id)
    finally:
        OPEN_STREAMS.give_back(token.pk)
