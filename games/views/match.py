"""The match page and what a player does there: send orders, join, leave,
reclaim a seat, ask for a rematch, download the replay. Thin views: parse with a
form, check access with one helper, call one service, redirect. Services raise
ServiceError subclasses; those become a form error or a 4xx page, never a 500."""

from __future__ import annotations

import hashlib
import logging
import time
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.cache import BaseCache
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.loader import render_to_string
from django.views.decorators.http import require_GET, require_POST

import engine
from engine import EngineError
from games import frame, presentation, selectors, services, viewers
from games.context_processors import Frame
from games.errors import ServiceError
from games.forms import LENGTH_OPTION
from games.models import Match, Seat
from games.push import kept
from games.services.rematch import match_rematch as match_rematch_create
from games.viewers import Viewer
from games.views.access import match_for, may_watch, player_seat, refused, signed_in_user
from games.views.board import (
    board_context,
    engine_refusal,
    orders_context,
    seat_among,
    seen,
    version_token,
)
from helium3_site import pagecache

log = logging.getLogger(__name__)


def _render(
    request: HttpRequest,
    match: Match,
    seat: Seat | None,
    form: Any | None,
    seats: list[Seat] | None = None,
    version: selectors.PageVersion | None = None,
    read: selectors.SeatsAndHistory | None = None,
) -> bytes:
    """The match page with a slot for each of the viewer's own parts (games/frame.py):
    the page as every viewer of its kind (this seat, or any spectator) gets it.
    `read`: its seats and history, if the caller read them (seats_and_history)."""
    page = selectors.match_page(
        match, seat, seats=seats, history_page=_history_page(request), version=version, read=read
    )
    context: dict[str, Any] = {
        "page": page,
        "match": match,
        "seat": seat,
        "frame_slots": frame.slots(),
        # Each token is taken out of the page (frame.without_csrf): none is made here.
        "csrf_token": frame.CSRF_STANDIN,
        **board_context(page),
        **orders_context(page, form),
        **header_context(match, page.seats),
    }
    html = render_to_string("games/match_detail.html", context, request)
    return frame.without_csrf(html.encode())


def _history_page(request: HttpRequest) -> int:
    """Which page of the turn history the match page shows (?history=, 1: the newest)."""
    try:
        return max(1, int(request.GET.get("history", 1)))
    except ValueError:
        return 1


def _detail(
    request: HttpRequest,
    match: Match,
    seat: Seat | None,
    form: Any | None,
    status: int,
) -> HttpResponse:
    content = _render(request, match, seat, form)
    return HttpResponse(frame.fill(request, content, Frame(request)), status=status)


def header_context(match: Match, seats: list[Seat]) -> dict[str, Any]:
    """The header line's and the legend's words that differ by game: what a spectator
    is not shown, whether a battle clock times the match, the seats it has."""
    return {
        "spectator_note": presentation.get(match.ruleset).spectator_note,
        "timed": any(o.name == LENGTH_OPTION for o in engine.ruleset(match.ruleset).options),
        "legend_seats": sorted(s.number for s in seats),
    }


# The match page is cached under its version (selectors.PageVersion: the poll's
# token, so whatever changes the page changes the key) and the minute (the deadline
# reads "in N minutes"), once for each seat's player and once for all its
# spectators: a seat's page shows what only that seat may know and is never given
# to anyone else, while every spectator's page is the spectator's view, the same for
# all. The viewer's own parts (the header, the badges, the CSRF tokens) are slots
# filled in for each request (games/frame.py). A view of an unchanged page then
# costs one query (the version, with the frame's counts) and no rendering; none while
# the process keeps the version it read (no ring since: games/push/kept.py).
PAGE_CACHE_SECONDS = 60
SPECTATORS = "spectators"


def _page_key(request: HttpRequest, version: selectors.PageVersion, viewer: Viewer) -> str | None:
    """The cache key of this viewer's page, or None: not to be cached (an open match's
    seats change without a new version; a flash message shows once; a player's
    orders of a turn at once change without one)."""
    match = version.match
    if match.status == Match.Status.OPEN or len(messages.get_messages(request)):
        return None
    if not selectors.can_watch(match, viewer, version.seat, seat_known=True):
        return None
    if version.seat is not None and services.ruleset_at_once(match.ruleset):
        # A player's page of a game whose seats give orders at once shows the orders
        # the seat sent, which it may replace without a new version of the page.
        return None
    token = version_token(version)
    # A seat's page is this player's own; every spectator's is one page.
    who = SPECTATORS if version.seat is None else f"seat{version.seat.number}.u{viewer.pk}"
    query = hashlib.sha256(request.META.get("QUERY_STRING", "").encode()).hexdigest()[:16]
    minute = int(time.time() // 60)
    # created_at too: a match id that SQLite hands out again never meets the old page.
    born = int(match.created_at.timestamp() * 1e6)
    return f"match-page:{match.pk}.{born}:{who}:{token}:{minute}:{query}"


def _page_cache() -> BaseCache:
    return pagecache.pages()


def _page_from_cache(key: str) -> frame.Pieces | None:
    """The page kept under `key`, cut at its slots (frame.cut), or None."""
    try:
        hit = _page_cache().get(key)
    except Exception:  # a cache that is down is a miss, never an error page
        log.warning("match page cache unavailable", exc_info=True)
        return None
    return hit if isinstance(hit, tuple) else None


def _page_to_cache(key: str, content: frame.Pieces) -> None:
    try:
        _page_cache().set(key, content, PAGE_CACHE_SECONDS)
    except Exception:
        log.warning("match page cache unavailable", exc_info=True)


# No login needed: anyone may watch a public match (the spectator's view).
@require_GET
def match_detail(request: HttpRequest, match_id: int) -> HttpResponse:
    viewer = viewers.viewer_of(request)
    # No ring since this process read the version: the page stored under it is still
    # the page, and no query is needed (games/push/kept.py).
    heard = kept.mark()
    known = kept.kept(match_id, viewer.pk, heard)
    if known is not None:
        seen(known, viewer)  # even on a cache hit
        served = _cached_page(request, known, viewer, _page_key(request, known, viewer))
        if served is not None:
            return served
    version = selectors.match_page_version(match_id, viewer)
    if version is None:
        raise Http404("No such match.")
    if known is None:
        seen(version, viewer)
    key = _page_key(request, version, viewer)
    served = _cached_page(request, version, viewer, key)
    if served is not None:
        kept.keep(match_id, viewer.pk, version.without_row(), heard)
        return served
    # The match comes with the version (one read: the page shows the moment it is
    # stored under), its seats and its history with one query (on PostgreSQL; the
    # viewer's seat number, which the history depends on, came with the version).
    match = version.page_match()
    read = selectors.seats_and_history(
        match, version.seat.number if version.seat is not None else None, _history_page(request)
    )
    seats = read.seats
    seat = seat_among(seats, viewer.pk)
    if not selectors.can_watch(match, viewer, seat, seat_known=True):
        refusal = may_watch(request, match, seat)
        if refusal is not None:
            return refusal
    # A seat's stand-in changed between the two reads: drawn as it is now, not stored.
    same = (seat.standin_bot if seat is not None else None) == version.standin
    try:
        content = frame.cut(_render(request, match, seat, None, seats, version, read))
    except EngineError as error:  # a state the engine will not read: a 409, not a 500
        log.exception("match %s: page refused by the engine", match_id)
        return refused(request, engine_refusal(error))
    if key is not None and same:
        _page_to_cache(key, content)
        kept.keep(match_id, viewer.pk, version.without_row(), heard)
    shown = Frame(request, viewer=viewer, moves=version.moves, challenges=version.challenges)
    return HttpResponse(frame.fill(request, content, shown))


def _cached_page(
    request: HttpRequest, version: selectors.PageVersion, viewer: Viewer, key: str | None
) -> HttpResponse | None:
    """The page stored under `key` (_page_key) for this viewer, or None (not stored,
    or not to be: then it is rendered)."""
    cached = _page_from_cache(key) if key is not None else None
    if cached is None:
        return None
    # The frame's counts came with the version: this page's frame costs no query.
    shown = Frame(request, viewer=viewer, moves=version.moves, challenges=version.challenges)
    return HttpResponse(frame.fill(request, cached, shown))


@login_required
@require_POST
def match_orders(request: HttpRequest, match_id: int) -> HttpResponse:
    user = signed_in_user(request)
    failed: ServiceError | None = None
    # The form is built from the rows the service works on, read once under the
    # match's lock (on the turn's critical path: bench/turn_latency.py).
    with transaction.atomic():
        try:
            match, seat = services.match_locked(match_id=match_id, user=user)
        except Match.DoesNotExist:
            raise Http404("No such match.") from None
        if seat is None:
            raise PermissionDenied("You do not play in this match.")
        form = presentation.get(match.ruleset).orders_form(
            request.POST, view=selectors.orders_view(match, seat)
        )
        if form.is_valid():
            try:
                services.orders_submit_locked(
                    match=match,
                    seat=seat,
                    user=user,
                    turn=form.cleaned_data["turn"],
                    orders=form.orders(),
                )
            except ServiceError as error:  # refused before anything was written
                failed = error
    by_script = _wants_json(request)
    if not form.is_valid():
        if by_script:
            return _refusal_json(request, match, seat, form, 400)
        return _detail(request, match, seat, form, 400)
    if failed is not None:
        form.add_engine_error(failed.message, failed.action)
        if by_script:
            return _refusal_json(request, match, seat, form, failed.status, failed)
        # The whole page only for a refusal: was it this seat's move?
        page = selectors.match_page(match, seat)
        match.refresh_from_db()
        if not page.my_move:
            return refused(request, failed, match)
        return _detail(request, match, seat, form, failed.status)
    if by_script:
        # The page stays where it is and asks the poll for what changed.
        return JsonResponse(
            {
                "accepted": True,
                "message": ORDERS_ACCEPTED,
                "turn": form.cleaned_data["turn"],
                # A step changes the board within its turn: the page asks for the board.
                # A game of steps begins with its setup (turn 0, every seat's build),
                # whose resolution plays as a movie as any other turn's.
                "steps": services.ruleset_has_steps(match.ruleset)
                and form.cleaned_data["turn"] > 0,
            }
        )
    # Tagged with its turn: the page's script takes it away once that turn is resolved.
    turn = form.cleaned_data["turn"]
    messages.success(request, ORDERS_ACCEPTED, extra_tags=f"orders-accepted turn-{turn}")
    return redirect("games:match-detail", match.pk)


ORDERS_ACCEPTED = "Orders accepted. The turn is being resolved."


def _wants_json(request: HttpRequest) -> bool:
    """The match page's script sends orders asking for JSON; a plain form post (no
    script) gets the page back by a redirect, as before."""
    return "application/json" in request.headers.get("Accept", "")


def _refusal_json(
    request: HttpRequest,
    match: Match,
    seat: Seat,
    form: Any,
    status: int,
    error: ServiceError | None = None,
) -> JsonResponse:
    """Why the orders were refused, in words the page shows beside the planner, and
    the orders section as the page without script gets it (the orders sent, each
    error beside its field), which the page puts in place so its plan stays."""
    said: list[str] = []
    for errors in form.errors.values():
        for text in errors:
            if str(text) not in said:
                said.append(str(text))
    if error is not None and error.message not in said:
        said.insert(0, error.message)
    page = selectors.match_page(match, seat)
    context = {"page": page, "match": match, "seat": seat, **board_context(page)}
    context.update(orders_context(page, form))
    body: dict[str, Any] = {
        "accepted": False,
        "message": " ".join(said) or "The orders were refused.",
        "errors": form.errors.get_json_data(),
        "orders": render_to_string("games/_orders.html", context, request=request),
    }
    if error is not None:
        body["code"] = error.code
        if error.action is not None:
            body["action"] = error.action
    return JsonResponse(body, status=status)


@login_required
@require_POST
def match_join(request: HttpRequest, match_id: int) -> HttpResponse:
    match = get_object_or_404(Match, pk=match_id)
    try:
        services.seat_join(match_id=match.pk, user=signed_in_user(request))
    except ServiceError as error:
        return refused(request, error, match)
    return redirect("games:match-detail", match.pk)


@login_required
@require_POST
def match_leave(request: HttpRequest, match_id: int) -> HttpResponse:
    match, _seat = player_seat(request, match_id)
    try:
        services.seat_leave(match_id=match.pk, user=signed_in_user(request))
    except ServiceError as error:
        return refused(request, error, match)
    messages.info(request, "You left the match.")
    return redirect("games:lobby")


@login_required
@require_POST
def match_reclaim(request: HttpRequest, match_id: int) -> HttpResponse:
    match, _seat = player_seat(request, match_id)
    try:
        services.seat_reclaim(match_id=match.pk, user=signed_in_user(request))
    except ServiceError as error:
        return refused(request, error, match)
    messages.success(request, "Welcome back: you play your seat again from your next turn.")
    return redirect("games:match-detail", match.pk)


@login_required
@require_POST
def match_rematch(request: HttpRequest, match_id: int) -> HttpResponse:
    """A new match like this finished one, asked for by one of its players."""
    match, _seat = match_for(request, match_id)
    try:
        rematch = match_rematch_create(match_id=match.pk, user=signed_in_user(request))
    except ServiceError as error:
        return refused(request, error, match)
    if rematch.status == Match.Status.OPEN:
        messages.info(
            request, "Rematch created: it starts when the other players' seats are taken."
        )
    return redirect("games:match-detail", rematch.pk)


@require_GET
def match_replay(request: HttpRequest, match_id: int) -> HttpResponse:
    """The full record, once the match is over (404 before), to whoever may watch it."""
    match = get_object_or_404(Match, pk=match_id, status=Match.Status.FINISHED)
    refusal = may_watch(request, match, selectors.seat_of(match, request.user))
    if refusal is not None:
        return refusal
    response = JsonResponse(match.record or selectors.match_record(match))
    response["Content-Disposition"] = (
        f'attachment; filename="{match.ruleset}-match-{match.pk}.json"'
    )
    return response
