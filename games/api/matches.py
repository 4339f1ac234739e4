"""The bot API's operations (docs/protocol.md, "Bot HTTP API"). Thin like the site's
views: check access with one helper, call one service or selector, and answer
with what the caller may see: its own seat's view until the match is over."""

from __future__ import annotations

import json
from typing import Any

from django.contrib.auth.models import User
from django.http import HttpRequest
from django.shortcuts import get_object_or_404
from ninja import Query, Router, Schema, Status
from pydantic import Field

import engine
from games import history, selectors, services
from games.api.errors import ApiError
from games.api.schemas import (
    ORDERS_BODY,
    TURN_MAX,
    ErrorOut,
    HistoryOut,
    MatchCreateIn,
    MatchOut,
    MatchStatus,
    MatchSummary,
    OrdersAccepted,
    ReplayOut,
    integral,
)
from games.compete.schemas import rating_change_out
from games.compete.selectors import match_rating_changes
from games.models import AT_ONCE, ApiToken, Match, Orders, Resolution, Seat, Turn

router = Router(tags=["matches"])

# Every operation may answer these: no or a bad token, too many requests.
_COMMON: dict[int, Any] = {401: ErrorOut, 429: ErrorOut}
# A match in the path may not exist (404) or be another's private match (403).
_ONE_MATCH: dict[int, Any] = {**_COMMON, 403: ErrorOut, 404: ErrorOut}
ORDERS_MAX_BYTES = 65_536  # a whole 50 x 50 map of moves is some 33 KB


def _known_query(request: HttpRequest, filters: Schema) -> None:
    """Refuse query parameters the operation does not have (a typo is an error)."""
    unknown = sorted(set(request.GET) - set(type(filters).model_fields))
    if unknown:
        raise ApiError(400, "bad_shape", f"Unknown query parameter {unknown[0][:40]!r}.")


def _user(request: HttpRequest) -> User:
    token = request.auth  # type: ignore[attr-defined]
    assert isinstance(token, ApiToken)
    return token.user


def _match_for(request: HttpRequest, match_id: int) -> tuple[Match, Seat | None]:
    """The match and the caller's seat; 404 if none, 403 if it may not see it."""
    match = get_object_or_404(Match, pk=match_id)
    user = _user(request)
    seat = Seat.objects.filter(match=match, user=user).first()
    if not selectors.can_watch(match, user, seat):
        raise ApiError(403, "private_match", "This match is private to its players.")
    return match, seat


def _your_turn(
    match: Match, seat: Seat | None, turn: Turn | None, your_orders: dict[str, Any] | None
) -> bool:
    if (
        seat is None
        or match.status != Match.Status.RUNNING
        or seat.driver_bot
        or turn is None
        or turn.status != Turn.Status.WAITING
    ):
        return False
    assert match.state is not None
    awaited = seat.number in engine.awaiting(match.state)
    # In a turn at once, a seat whose orders are in waits for the others.
    return awaited and (turn.seat != AT_ONCE or your_orders is None)


def _your_orders(match: Match, seat: Seat | None, turn: Turn | None) -> dict[str, Any] | None:
    """The caller's own stored orders for the current turn at once (nobody else's)."""
    if seat is None or turn is None or turn.seat != AT_ONCE:
        return None
    row = (
        Orders.objects.filter(match=match, turn_number=turn.number, seat=seat.number, step=0)
        .order_by("pk")
        .first()
    )
    return row.orders if row is not None and turn.status != Turn.Status.RESOLVED else None


def _scores(match: Match, view: dict[str, Any] | None) -> dict[str, Any]:
    """The scores the caller may know: its view's, else (a view without them) the state's."""
    if view is None or match.state is None:
        return {}
    if isinstance(view.get("scores"), dict):
        return dict(view["scores"])
    return dict(engine.scores(match.state))


def _reader(match: Match, viewer: int | None, *, over: bool) -> history.Reader:
    return history.reader_for(match.ruleset, match.state, viewer, over=over)


def _last_turn(match: Match, viewer: int | None, *, over: bool) -> dict[str, Any] | None:
    """The viewer's entry of the last turn it may know of (games/history.py): a turn
    of steps is one entry, and another seat's only once it has ended."""
    if match.state is None:
        return None
    reader = _reader(match, viewer, over=over)
    rows = Resolution.objects.filter(match=match)
    hidden = reader.hidden_turn
    if hidden is not None:
        rows = rows.exclude(turn_number=hidden)
    newest = rows.order_by("-turn_number").values_list("turn_number", flat=True).first()
    if newest is None:
        return None
    turn = rows.filter(turn_number=newest).order_by("step")
    return history.entry(
        list(turn.only("turn_number", "step", "seat", "turn_ms", "events")), reader
    )


def match_out(match: Match, seat: Seat | None) -> dict[str, Any]:
    """GET /matches/ID/'s body, built from the caller's view only."""
    viewer = seat.number if seat is not None else None
    turn = selectors.current_turn(match)
    state = engine.view(match.state, viewer) if match.state is not None else None
    your_orders = _your_orders(match, seat, turn)
    over = bool(state and state["over"])
    last = _last_turn(match, viewer, over=over)
    seats = Seat.objects.filter(match=match).select_related("user")
    changes = match_rating_changes(match)  # no query unless over and rated
    return {
        "id": match.pk,
        "ruleset": match.ruleset,
        "options": dict(match.options or {}),
        "status": match.status,
        "seat": viewer,
        "your_turn": _your_turn(match, seat, turn, your_orders),
        "deadline": turn.deadline_at if turn is not None else None,
        "state": state,
        "awaiting": engine.awaiting(match.state) if match.state is not None else [],
        # The view's own scores: a game with fog (the arena) shows a seat its own only.
        "scores": _scores(match, state),
        # Another seat's steps are its own: a viewer counts only those of its turn.
        "step": _reader(match, viewer, over=over).step_now,
        "your_orders": your_orders,
        "last_events": last["events"] if last is not None else [],
        "public": match.public,
        "seats": [
            {
                "number": s.number,
                "player": s.user.get_username() if s.user is not None else None,
                "bot": s.driver_bot or None,
                "api": s.api,
                "rating_change": rating_change_out(changes.get(s.number)),
            }
            for s in seats
        ],
        "turn_seconds": match.turn_seconds,
        "length_ms": match.length_ms,
        "winners": list(match.winners or []),
        "rated": match.rated,
    }


@router.post(
    "/matches/",
    response={201: MatchOut, 400: ErrorOut, 413: ErrorOut, **_COMMON},
    summary="Create a match",
    description="You take the first seat, the named built-in bots the next ones; "
    "seats left over wait for players. The match starts when every seat is taken.",
)
def create_match(request: HttpRequest, payload: MatchCreateIn | None = None) -> Status[dict]:
    data = payload or MatchCreateIn()
    seats = data.seats
    if seats is None:
        seats = services.ruleset_default_seats(data.ruleset)
    match = services.match_create(
        creator=_user(request),
        ruleset=data.ruleset,
        options=data.options,
        seat_count=seats,
        turn_seconds=data.turn_seconds,
        length_ms=data.length_ms,
        bots=data.bots,
        public=data.public,
        api=True,
        rated=data.rated,
    )
    match.refresh_from_db()
    return Status(201, match_out(match, selectors.seat_of(match, _user(request))))


class ListFilter(Schema):
    status: MatchStatus | None = Field(default=None, description="Only matches in this status.")
    limit: int = Field(default=100, ge=1, le=500, description="At most this many, newest first.")


@router.get(
    "/matches/",
    response={200: list[MatchSummary], 400: ErrorOut, **_COMMON},
    summary="Your matches",
)
def list_matches(request: HttpRequest, filters: Query[ListFilter]) -> list[dict[str, Any]]:
    _known_query(request, filters)
    user = _user(request)
    seats = Seat.objects.filter(user=user).select_related("match").order_by("-match__created_at")
    if filters.status is not None:
        seats = seats.filter(match__status=filters.status)
    rows = list(seats[: filters.limit])
    waiting = {
        (match_id, number): seat
        for match_id, number, seat in Turn.objects.filter(
            match_id__in=[s.match_id for s in rows], status=Turn.Status.WAITING
        ).values_list("match_id", "number", "seat")
    }
    # In a turn at once the seats whose orders are in wait for the others.
    submitted = set(
        Orders.objects.filter(
            match_id__in=[m for (m, _), seat in waiting.items() if seat == AT_ONCE], step=0
        ).values_list("match_id", "turn_number", "seat")
    )

    def your_turn(s: Seat) -> bool:
        key = (s.match_id, s.match.turn_number)
        if s.match.status != Match.Status.RUNNING or s.driver_bot or key not in waiting:
            return False
        assert s.match.state is not None
        awaited = s.number in engine.awaiting(s.match.state)
        return awaited and (waiting[key] != AT_ONCE or (*key, s.number) not in submitted)

    def to_move(s: Seat) -> int | None:
        """The one seat the turn waits for; None in a turn at once, before the start
        and once over."""
        if s.match.state is None or engine.ruleset(s.match.ruleset).shape.simultaneous:
            return None
        awaiting = engine.awaiting(s.match.state)
        return awaiting[0] if len(awaiting) == 1 else None

    return [
        {
            "id": s.match.pk,
            "status": s.match.status,
            "seat": s.number,
            "your_turn": your_turn(s),
            "turn": s.match.turn_number,
            "to_move": to_move(s),
            "public": s.match.public,
            "created_at": s.match.created_at,
        }
        for s in rows
    ]


@router.get(
    "/matches/{int:match_id}/",
    response={200: MatchOut, **_ONE_MATCH},
    summary="A match as you see it",
)
def get_match(request: HttpRequest, match_id: int) -> dict[str, Any]:
    match, seat = _match_for(request, match_id)
    return match_out(match, seat)


@router.post(
    "/matches/{int:match_id}/join/",
    response={200: MatchOut, **_ONE_MATCH, 409: ErrorOut},
    summary="Take the lowest free seat",
    description="409 if the match is full or has started. A private match is joined "
    "by its id, which its creator hands out.",
)
def join_match(request: HttpRequest, match_id: int) -> dict[str, Any]:
    match = get_object_or_404(Match, pk=match_id)
    seat = services.seat_join(match_id=match.pk, user=_user(request), api=True)
    match.refresh_from_db()
    return match_out(match, seat)


@router.post(
    "/matches/{int:match_id}/reclaim/",
    response={200: MatchOut, **_ONE_MATCH, 409: ErrorOut},
    summary="Play your seat again after the clock handed it to a bot",
)
def reclaim_seat(request: HttpRequest, match_id: int) -> dict[str, Any]:
    match = get_object_or_404(Match, pk=match_id)
    seat = services.seat_reclaim(match_id=match.pk, user=_user(request))
    match.refresh_from_db()
    return match_out(match, seat)


def _orders_body(request: HttpRequest) -> dict[str, Any]:
    if len(request.body) > ORDERS_MAX_BYTES:
        raise ApiError(413, "too_large", f"Orders are at most {ORDERS_MAX_BYTES} bytes.")
    try:
        data = integral(json.loads(request.body))
    except (ValueError, RecursionError):
        raise ApiError(400, "bad_json", "The request body is not valid JSON.") from None
    if not isinstance(data, dict):
        raise ApiError(400, "bad_shape", "Orders must be a JSON object with turn and actions.")
    turn = data.get("turn")
    if type(turn) is not int or not 0 <= turn <= TURN_MAX:
        raise ApiError(400, "bad_shape", "Orders need 'turn', the state's turn number.")
    if "seat" in data and type(data["seat"]) is not int:
        raise ApiError(400, "bad_shape", "'seat' is the seat number you play.")
    # The rest is the game's: its engine checks it, with protocol error codes.
    return data


def _accepted(row: Orders) -> dict[str, Any]:
    return {
        "match": row.match_id,
        "turn": row.turn_number,
        "seat": row.seat,
        "step": row.step,
        "status": "accepted",
        "orders": row.orders,
        "accepted_at": row.created_at,
    }


@router.post(
    "/matches/{int:match_id}/orders/",
    response={202: OrdersAccepted, 400: ErrorOut, **_ONE_MATCH, 409: ErrorOut, 413: ErrorOut},
    openapi_extra={"requestBody": ORDERS_BODY},
    summary="Send your orders for the current turn",
    description="202: accepted, the worker resolves the turn. 400: illegal or malformed "
    "(protocol error code). 403: not your match or not your seat. 409: not your turn, "
    "stale turn, match over, or other orders already accepted for this turn. The same "
    "orders for the same turn again answer as the first time did. In a turn where every "
    "seat gives orders at once, other orders replace yours until every seat's are in. "
    "A step of a turn made of steps (with `step_no`) is resolved before the answer.",
)
def post_orders(request: HttpRequest, match_id: int) -> Status[dict]:
    match, seat = _match_for(request, match_id)
    if seat is None:
        raise ApiError(403, "not_a_player", "You do not play in this match.")
    data = _orders_body(request)
    if data.get("seat", seat.number) != seat.number:
        raise ApiError(403, "not_your_seat", f"You play seat {seat.number} in this match.")
    stepping = (
        services.ruleset_has_steps(match.ruleset)
        and match.state is not None
        and len(engine.awaiting(match.state)) == 1  # one seat at a time, not the setup
        # Orders for a past turn (a build posted again once it resolved) are not a step
        # now: the service answers them as their first post, or as stale.
        and data["turn"] == match.turn_number
    )
    if stepping and "step_no" not in data:
        # So that a repeated post of the same step is recognised as a repeat (a setup
        # phase at once, such as the arena's build, is not made of steps).
        raise ApiError(400, "bad_shape", "A turn of this game has steps: send 'step_no'.")
    row = services.orders_submit(
        match_id=match.pk, user=_user(request), turn=data["turn"], orders=data, api=True
    )
    return Status(202, _accepted(row))


class HistoryFilter(Schema):
    since: int = Field(default=0, ge=0, le=TURN_MAX, description="From this turn on.")


@router.get(
    "/matches/{int:match_id}/history/",
    response={200: HistoryOut, 400: ErrorOut, **_ONE_MATCH},
    summary="Past turns as you saw them",
    description="Each resolved turn's events, your copy (a spectator's without any "
    "shield) while the match runs; everything, orders included, once it is over.",
)
def match_history(
    request: HttpRequest, match_id: int, filters: Query[HistoryFilter]
) -> dict[str, Any]:
    _known_query(request, filters)
    match, seat = _match_for(request, match_id)
    viewer = seat.number if seat is not None else None
    return {
        "match": match.pk,
        "over": match.status == Match.Status.FINISHED,
        "turns": selectors.match_history(match, viewer, since=filters.since),
    }


@router.get(
    "/matches/{int:match_id}/replay/",
    response={200: ReplayOut, **_ONE_MATCH},
    summary="The replay file (404 until the match is over)",
)
def match_replay(request: HttpRequest, match_id: int) -> dict[str, Any]:
    match, _seat = _match_for(request, match_id)
    if match.status != Match.Status.FINISHED:
        raise ApiError(404, "not_over", "The replay is there once the match is over.")
    return match.record or selectors.match_record(match)
