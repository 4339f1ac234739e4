"""A visitor's first minute: the home page with the live showcase match, "Play
now" as a guest, and the rules written for players.

The lobby view (games/views/lobby.py) sends a visitor without an account here; "Play
now" (games/views/lobby.py) does too when nobody is signed in.
"""

from __future__ import annotations

import logging
from typing import Any

from axes.helpers import get_client_ip_address
from django.contrib.auth import login
from django.core.cache import cache
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET

import engine
from games import catalog, presentation, selectors, services
from games.errors import ServiceError
from games.guests.selectors import SESSION_FLAG
from games.guests.services import guest_create
from games.guests.showcase import showcase_current
from games.models import Seat
from games.views.board import board_context

log = logging.getLogger(__name__)

# Guests one address may create in an hour: "Play now" makes a user and a match
# for whoever asks, so a script must not be able to make them by the thousand.
GUESTS_PER_HOUR = 30


def _showcase_context() -> dict[str, Any]:
    """The showcase match as a spectator sees it (the match page's own context)."""
    try:
        match = showcase_current()
    except Exception:
        # The home page must answer even if the showcase cannot start: it then
        # shows the pitch and the buttons without the live board.
        log.exception("the showcase match could not be started")
        return {}
    seats = list(Seat.objects.filter(match=match).select_related("user"))
    page = selectors.match_page(match, None, seats=seats)
    return {"page": page, "match": match, "seat": None, **board_context(page)}


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    """The visitor's home page (the lobby view calls it for anybody not signed in)."""
    return render(request, "games/home.html", {**_showcase_context(), "games": catalog.cards()})


@require_GET
def rules(request: HttpRequest, name: str = engine.rulesets.DEFAULT) -> HttpResponse:
    """A game's rules written for players, its numbers read from its engine; 404 for a
    name no ruleset has."""
    if name not in engine.ruleset_names():
        raise Http404("No such game.")
    shown = presentation.get(name)
    return render(request, shown.rules_template, shown.rules_context())


@require_GET
def rules_moved(request: HttpRequest, name: str) -> HttpResponse:
    """A game's rules were once at /games/<name>/rules/: they are its page now."""
    if name not in engine.ruleset_names():
        raise Http404("No such game.")
    return redirect("games:game-rules", name, permanent=True)


@require_GET
def games_index(request: HttpRequest) -> HttpResponse:
    """Every game played here, each with its picture, its rules and a Play now."""
    return render(request, "games/games.html", {"games": catalog.cards()})


def _guest_allowed(request: HttpRequest) -> bool:
    # The client's address as the login lockout reads it (behind a proxy too).
    key = f"guests-created:{get_client_ip_address(request) or ''}"
    if cache.add(key, 1, 3600):
        return True
    try:
        return cache.incr(key) <= GUESTS_PER_HOUR
    except ValueError:  # expired between the two calls
        return cache.add(key, 1, 3600)


def guest_play_now(request: HttpRequest, ruleset: str = engine.rulesets.DEFAULT) -> HttpResponse:
    """Play now without an account: a guest is made and signed in on the spot and
    gets a match of `ruleset` against its bots, its move first. (POST only, the
    ruleset one of the site's games: the caller checks.)"""
    if not _guest_allowed(request):
        error = ServiceError(
            "too_many_guests", "Too many guests from your address this hour: sign up to play on."
        )
        return render(request, "games/error.html", {"error": error}, status=429)
    user = guest_create()
    login(request, user, backend="django.contrib.auth.backends.ModelBackend")
    request.session[SESSION_FLAG] = True
    match = services.match_play_now(user=user, ruleset=ruleset)
    return redirect("games:match-detail", match.pk)
