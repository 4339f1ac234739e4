"""Thin views: parse with a form, check access with one helper, call one service,
redirect. Services raise ServiceError subclasses; those become a form error or a
4xx page, never a 500."""

from __future__ import annotations

import hashlib
import logging
import re
import time
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.contrib.auth.views import redirect_to_login
from django.core.cache import BaseCache, caches
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.middleware.csrf import get_token
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST

import engine
from engine import EngineError
from games import catalog, presentation, selectors, services, viewers, views_home
from games.errors import ServiceError
from games.forms import MatchCreateForm, NotificationSettingsForm
from games.models import Match, NotificationKind, Seat
from games.services.rematch import match_rematch as match_rematch_create
from games.viewers import Viewer
from games.views_board import (
    board_context,
    engine_refusal,
    orders_context,
    poll_token,
    viewer_of,
)

log = logging.getLogger(__name__)


def _user(request: HttpRequest) -> User:
    """The signed-in user (every view that calls this is behind login_required)."""
    assert isinstance(request.user, User)
    return request.user


def _may_watch(request: HttpRequest, match: Match, seat: Seat | None) -> HttpResponse | None:
    """None if the viewer may see the match (selectors.can_watch); otherwise the
    answer: the login page for an anonymous visitor (a player may just be logged
    out), PermissionDenied (403) for anybody else."""
    if selectors.can_watch(match, request.user, seat):
        return None
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    raise PermissionDenied("This match is private to its players.")


def _match_for(request: HttpRequest, match_id: int) -> tuple[Match, Seat | None]:
    """The match and the viewer's seat in it (None: a spectator). 404 if no match,
    403 if it is another's private match. Without the replay columns (as big as the
    state): no page these views render needs them."""
    match = get_object_or_404(Match.objects.defer("initial_state", "record"), pk=match_id)
    seat = selectors.seat_of(match, request.user)
    if not selectors.can_watch(match, request.user, seat):
        raise PermissionDenied("This match is private to its players.")
    return match, seat


def _player_seat(request: HttpRequest, match_id: int) -> tuple[Match, Seat]:
    match, seat = _match_for(request, match_id)
    if seat is None:
        raise PermissionDenied("You do not play in this match.")
    return match, seat


def _refused(request: HttpRequest, error: ServiceError, match: Match | None = None) -> HttpResponse:
    return render(
        request, "games/error.html", {"error": error, "match": match}, status=error.status
    )


@require_GET
def healthz(request: HttpRequest) -> HttpResponse:
    """The web process is up and answers: for a load balancer or a process manager.

    It touches neither the database nor the session, so it says nothing about them;
    the benchmarks use it as the trivial page the match page is compared with.
    """
    response = HttpResponse("ok\n", content_type="text/plain")
    response["Cache-Control"] = "no-store"
    return response


@require_GET
def lobby(request: HttpRequest) -> HttpResponse:
    """The lobby for a signed-in player; the home page for a visitor."""
    if not request.user.is_authenticated:
        return views_home.home(request)
    return render(
        request,
        "games/lobby.html",
        {
            "open_matches": selectors.lobby_open_matches(),
            "my_matches": selectors.lobby_my_matches(_user(request)),
            "finished_matches": selectors.lobby_finished_matches(_user(request)),
            "games": catalog.cards(),
        },
    )


@require_GET
def watch(request: HttpRequest) -> HttpResponse:
    """Public matches being played, for anyone to watch."""
    return render(request, "games/watch.html", {"matches": selectors.watch_matches()})


@require_GET
def bots(request: HttpRequest) -> HttpResponse:
    """The built-in bots, strongest last as the engine lists them, and the way to
    write one's own (the bot API)."""
    games = []
    for game in catalog.names():
        listed = []
        for name in engine.bot_names(game):
            # "strongest; mines, shoots and shields": the strength, then how it plays.
            strength, _, play = engine.bot_description(name, game).partition("; ")
            listed.append({"name": name, "strength": strength, "play": play})
        games.append({"name": game, "title": catalog.title(game), "bots": listed})
    return render(request, "games/bots.html", {"games": games})


@login_required
@require_http_methods(["GET", "POST"])
def match_create(request: HttpRequest) -> HttpResponse:
    """The new match form for one game: ?game= chooses it (a link per game, so no
    script is needed), the posted `game` keeps it; only that game's options are on it."""
    source = request.POST if request.method == "POST" else request.GET
    asked = source.get("game", "") or catalog.default()
    form = MatchCreateForm(request.POST or None, game=asked)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            match = services.match_create(
                creator=_user(request),
                seat_count=data["seat_count"],
                turn_seconds=data["turn_seconds"],
                bots=form.bots(),
                public=data["public"],
                title=data["title"],
                ruleset=form.ruleset,
                options=data["options"],
                **({"length_ms": data["length_ms"]} if "length_ms" in data else {}),
            )
        except ServiceError as error:
            form.add_error(None, error.message)
        else:
            return redirect("games:match-detail", match.pk)
    unknown = asked if asked not in catalog.names() else ""
    status = 400 if request.method == "POST" else 404 if unknown else 200
    context = {"form": form, "games": catalog.cards(), "unknown_game": unknown}
    return render(request, "games/match_create.html", context, status=status)


def play_now_game(request: HttpRequest) -> str | None:
    """The game "Play now" was pressed for (the default when the form names none);
    None for a name that is not a game here."""
    name = request.POST.get("game", "") or catalog.default()
    return name if name in catalog.names() else None


@require_POST
def match_play_now(request: HttpRequest) -> HttpResponse:
    """A match of the chosen game against its bots at once; a visitor plays it as a guest."""
    game = play_now_game(request)
    if game is None:
        known = ", ".join(catalog.title(name) for name in catalog.names())
        return _refused(
            request, ServiceError("unknown_ruleset", f"There is no such game here; choose {known}.")
        )
    if not request.user.is_authenticated:
        return views_home.guest_play_now(request, game)
    try:
        match = services.match_play_now(user=_user(request), ruleset=game)
    except ServiceError as error:
        return _refused(request, error)
    return redirect("games:match-detail", match.pk)


def _detail(
    request: HttpRequest,
    match: Match,
    seat: Seat | None,
    form: Any | None,
    status: int,
    seats: list[Seat] | None = None,
    version: selectors.PageVersion | None = None,
) -> HttpResponse:
    try:
        history_page = max(1, int(request.GET.get("history", 1)))
    except ValueError:
        history_page = 1
    page = selectors.match_page(
        match, seat, seats=seats, history_page=history_page, version=version
    )
    context: dict[str, Any] = {
        "page": page,
        "match": match,
        "seat": seat,
        **board_context(page),
        **orders_context(page, form),
    }
    return render(request, "games/match_detail.html", context, status=status)


# The match page is cached per viewer under its version (selectors.PageVersion: the
# poll's token, so whatever changes the page changes the key) and the minute (the
# deadline reads "in N minutes"). A view of an unchanged page (a reload, a second
# tab, the no-script refresh) then costs the session, the user and the version: three
# queries and no rendering. The CSRF tokens in the page are cut out before it is
# stored and a fresh one for the request is put back in.
PAGE_CACHE_SECONDS = 60
_CSRF_VALUE = re.compile(rb'(name="csrfmiddlewaretoken" value=")[^"]*(")')
_CSRF_SLOT = b"\x00csrf\x00"  # no page holds a NUL: Django's forms refuse them


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
    token = poll_token(
        match.status,
        match.turn_number,
        version.turn.status if version.turn is not None else None,
        version.standin,
        version.steps_seen,
    )
    who = viewer.pk if viewer.is_authenticated else "anon"
    query = hashlib.sha256(request.META.get("QUERY_STRING", "").encode()).hexdigest()[:16]
    minute = int(time.time() // 60)
    # created_at too: a match id that SQLite hands out again never meets the old page.
    born = int(match.created_at.timestamp() * 1e6)
    return f"match-page:{match.pk}.{born}:{who}:{token}:{minute}:{query}"


def _page_cache() -> BaseCache:
    return caches["pages"]


def _page_from_cache(request: HttpRequest, key: str) -> HttpResponse | None:
    try:
        hit = _page_cache().get(key)
    except Exception:  # a cache that is down is a miss, never an error page
        log.warning("match page cache unavailable", exc_info=True)
        return None
    if hit is None:
        return None
    content, content_type = hit
    return HttpResponse(
        content.replace(_CSRF_SLOT, get_token(request).encode()), content_type=content_type
    )


def _page_to_cache(key: str, response: HttpResponse) -> None:
    content = _CSRF_VALUE.sub(rb"\g<1>" + _CSRF_SLOT + rb"\g<2>", response.content)
    try:
        _page_cache().set(key, (content, response["Content-Type"]), PAGE_CACHE_SECONDS)
    except Exception:
        log.warning("match page cache unavailable", exc_info=True)


# No login needed: anyone may watch a public match (the spectator's view).
@require_GET
def match_detail(request: HttpRequest, match_id: int) -> HttpResponse:
    viewer = viewers.viewer_of(request)
    version = selectors.match_page_version(match_id, viewer)
    if version is None:
        raise Http404("No such match.")
    if version.seat is not None and viewer.pk is not None:
        services.seat_seen(match=version.match, user_id=viewer.pk)  # even on a cache hit
    key = _page_key(request, version, viewer)
    if key is not None:
        cached = _page_from_cache(request, key)
        if cached is not None:
            return cached
    match, seats, seat = viewer_of(request, match_id)
    refused = _may_watch(request, match, seat)
    if refused is not None:
        return refused
    # The version's turn stands in for the page's own query when the match has not
    # moved on between the two reads; otherwise the page reads it and is not stored.
    same = (match.status, match.turn_number, seat.standin_bot if seat else None) == (
        version.match.status,
        version.match.turn_number,
        version.standin,
    )
    try:
        response = _detail(request, match, seat, None, 200, seats, version if same else None)
    except EngineError as error:  # a state the engine will not read: a 409, not a 500
        log.exception("match %s: page refused by the engine", match_id)
        return _refused(request, engine_refusal(error))
    if key is not None and same and response.status_code == 200:
        _page_to_cache(key, response)
    return response


@login_required
@require_POST
def match_orders(request: HttpRequest, match_id: int) -> HttpResponse:
    match, seat = _player_seat(request, match_id)
    form = presentation.get(match.ruleset).orders_form(
        request.POST, view=selectors.orders_view(match, seat)
    )
    if not form.is_valid():
        return _detail(request, match, seat, form, 400)
    try:
        services.orders_submit(
            match_id=match.pk,
            user=_user(request),
            turn=form.cleaned_data["turn"],
            orders=form.orders(),
        )
    except ServiceError as error:
        form.add_engine_error(error.message, error.action)
        # The whole page only for a refusal: was it this seat's move?
        page = selectors.match_page(match, seat)
        match.refresh_from_db()
        if not page.my_move:
            return _refused(request, error, match)
        return _detail(request, match, seat, form, error.status)
    messages.success(request, "Orders accepted. The turn is being resolved.")
    return redirect("games:match-detail", match.pk)


@login_required
@require_POST
def match_join(request: HttpRequest, match_id: int) -> HttpResponse:
    match = get_object_or_404(Match, pk=match_id)
    try:
        services.seat_join(match_id=match.pk, user=_user(request))
    except ServiceError as error:
        return _refused(request, error, match)
    return redirect("games:match-detail", match.pk)


@login_required
@require_POST
def match_leave(request: HttpRequest, match_id: int) -> HttpResponse:
    match, _seat = _player_seat(request, match_id)
    try:
        services.seat_leave(match_id=match.pk, user=_user(request))
    except ServiceError as error:
        return _refused(request, error, match)
    messages.info(request, "You left the match.")
    return redirect("games:lobby")


@login_required
@require_POST
def match_reclaim(request: HttpRequest, match_id: int) -> HttpResponse:
    match, _seat = _player_seat(request, match_id)
    try:
        services.seat_reclaim(match_id=match.pk, user=_user(request))
    except ServiceError as error:
        return _refused(request, error, match)
    messages.success(request, "Welcome back: you play your seat again from your next turn.")
    return redirect("games:match-detail", match.pk)


@login_required
@require_POST
def match_rematch(request: HttpRequest, match_id: int) -> HttpResponse:
    """A new match like this finished one, asked for by one of its players."""
    match, _seat = _match_for(request, match_id)
    try:
        rematch = match_rematch_create(match_id=match.pk, user=_user(request))
    except ServiceError as error:
        return _refused(request, error, match)
    if rematch.status == Match.Status.OPEN:
        messages.info(
            request, "Rematch created: it starts when the other players' seats are taken."
        )
    return redirect("games:match-detail", rematch.pk)


@require_GET
def match_replay(request: HttpRequest, match_id: int) -> HttpResponse:
    """The full record, once the match is over (404 before), to whoever may watch it."""
    match = get_object_or_404(Match, pk=match_id, status=Match.Status.FINISHED)
    refused = _may_watch(request, match, selectors.seat_of(match, request.user))
    if refused is not None:
        return refused
    response = JsonResponse(match.record or selectors.match_record(match))
    response["Content-Disposition"] = f'attachment; filename="helium3-match-{match.pk}.json"'
    return response


@login_required
@require_http_methods(["GET", "POST"])
def notification_settings(request: HttpRequest) -> HttpResponse:
    prefs = selectors.notification_settings_for(_user(request))
    initial = {kind: prefs.wants(kind) for kind in NotificationKind.values}
    form = NotificationSettingsForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        services.notification_settings_update(user=_user(request), **form.cleaned_data)
        messages.success(request, "Your notification settings are saved.")
        return redirect("games:notification-settings")
    return render(request, "games/notification_settings.html", {"form": form})


# The token in the URL is the authentication; a mail client's RFC 8058 one-click
# POST carries no CSRF token and no session.
@csrf_exempt
@require_http_methods(["GET", "POST"])
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    """The link in every email. Opening it (GET) changes nothing, as link-checking
    mail filters open links too: the page says what would be switched off and asks
    with one button. The button's POST, or a mail client's RFC 8058 one-click POST
    (List-Unsubscribe-Post), switches that kind of email off at once; that is
    idempotent and undone on the settings page. A bad token: a 400 page."""
    try:
        if request.method == "POST":
            user, kind = services.notification_unsubscribe(token=token)
        else:
            user, kind = services.unsubscribe_token_read(token=token)
    except ServiceError as error:
        return _refused(request, error)
    context = {"kind_label": NotificationKind(kind).label, "unsubscribed_user": user}
    if request.method == "POST":
        return render(request, "games/unsubscribed.html", context)
    return render(request, "games/unsubscribe_confirm.html", context)
