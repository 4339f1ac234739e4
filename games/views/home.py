"""A visitor's first minute: the home page with every game's live showcase match,
"Play now" as a guest, and the rules written for players.

The lobby view (games/views/lobby.py) sends a visitor without an account here; "Play
now" (games/views/lobby.py) does too when nobody is signed in.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from axes.helpers import get_client_ip_address
from django.contrib.auth import login
from django.core.cache import cache
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET

import engine
from games import catalog, presentation, selectors, services
from games.errors import ServiceError
from games.guests.selectors import SESSION_FLAG
from games.guests.services import guest_create
from games.guests.showcase import TITLE_PREFIX, showcases_current
from games.models import Match, Seat
from games.views.board import board_context

log = logging.getLogger(__name__)

# The home page's matches to watch, one a game, are read again this often.
WATCH_CACHE_KEY = "home:matches-to-watch"
WATCH_CACHE_SECONDS = 10

# Guests one address may create in an hour: "Play now" makes a user and a match
# for whoever asks, so a script must not be able to make them by the thousand.
GUESTS_PER_HOUR = 30


@dataclass(frozen=True)
class Watch:
    """A game's match a visitor may watch from the home page: a live one, else the
    latest finished one (public matches only, opened as a spectator)."""

    url: str
    live: bool
    said: str  # "Match 12, turn 14" or "Match 9, finished"


def _watch(match: Match) -> Watch:
    live = match.is_live
    return Watch(
        url=reverse("games:match-detail", args=[match.pk]),
        live=live,
        said=f"Match {match.pk}, " + (f"turn {match.turn_number}" if live else "finished"),
    )


def _matches_to_watch(showcases: dict[str, Match]) -> dict[str, Watch]:
    """For each game, its latest public match running, else its latest finished one:
    two small queries a game at most, kept a few seconds (the home page is the
    busiest page a visitor opens). A game's live showcase goes before them all."""
    found: dict[str, Watch] | None = cache.get(WATCH_CACHE_KEY)
    if found is None:
        found = {}
        public = Match.objects.filter(public=True).only("pk", "status", "turn_number", "ruleset")
        for name in catalog.names():
            of_game = public.filter(ruleset=name)
            match = (
                of_game.filter(status=Match.Status.RUNNING).order_by("-pk").first()
                or of_game.filter(status=Match.Status.FINISHED)
                .order_by("-finished_at", "-pk")
                .first()
            )
            if match is not None:
                found[name] = _watch(match)
        cache.set(WATCH_CACHE_KEY, found, WATCH_CACHE_SECONDS)
    live = {name: _watch(match) for name, match in showcases.items() if match.is_live}
    return {**found, **live}


def _showcases() -> dict[str, Match]:
    try:
        return showcases_current()
    except Exception:
        # The home page must answer even if no showcase can start: it then shows
        # the pitch, the games and the buttons without a live board.
        log.exception("the showcase matches could not be started")
        return {}


def _showcase_context(match: Match | None) -> dict[str, Any]:
    """The first game's showcase match as a spectator sees it (the match page's own
    context), the home page's live board."""
    if match is None:
        return {}
    seats = list(Seat.objects.filter(match=match).select_related("user"))
    page = selectors.match_page(match, None, seats=seats)
    said = match.title.removeprefix(TITLE_PREFIX)  # "four bots at play"
    return {
        "page": page,
        "match": match,
        "seat": None,
        "showcase_said": said,
        **board_context(page),
    }


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    """The visitor's home page (the lobby view calls it for anybody not signed in): the
    site, each of its games with a match to watch (its showcase, live), "Play now",
    and the first game's showcase on the board."""
    showcases = _showcases()
    shown = showcases.get(catalog.default()) or next(iter(showcases.values()), None)
    context = _showcase_context(shown)
    watch = _matches_to_watch(showcases)
    cards = catalog.cards()
    games = [(card, watch.get(card.name)) for card in cards]
    first = catalog.card(catalog.default())
    return render(request, "games/home.html", {**context, "games": games, "first_game": first})


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
