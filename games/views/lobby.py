"""The lobby and the pages around it: the health check, Watch, Bots, the new
match form and Play now."""

from __future__ import annotations

import logging

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

import engine
from games import catalog, selectors, services
from games.errors import ServiceError
from games.forms import MatchCreateForm
from games.push import reads as push_reads
from games.views import home
from games.views.access import refused, signed_in_user

log = logging.getLogger(__name__)


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
        return home.home(request)
    mine = list(selectors.lobby_my_matches(signed_in_user(request)))
    return render(
        request,
        "games/lobby.html",
        {
            "open_matches": selectors.lobby_open_matches(),
            "my_matches": mine,
            # Shown first, above the games: what the player came back for.
            # Not "your_move": that is the navigation badge's (games.context_processors).
            "waiting_for_you": [m for m in mine if getattr(m, "my_move", False)],
            "my_other_matches": [m for m in mine if not getattr(m, "my_move", False)],
            "finished_matches": selectors.lobby_finished_matches(signed_in_user(request)),
            "games": catalog.cards(),
        },
    )


@require_GET
def watch(request: HttpRequest) -> HttpResponse:
    """Public matches being played, for anyone to watch.

    ?part=list is the list alone, as the page asks it again when the push channel
    says it changed (or, without the channel, every few seconds): with &v=<the
    version it shows> it is a 204 while the list is the same (docs/push.md).
    """
    part = request.GET.get("part")
    if part not in (None, "list"):
        return HttpResponseBadRequest("part must be list, or left out.", content_type="text/plain")
    shown = request.GET.get("v") if part else None
    if shown and shown == push_reads.watch_version(push_reads.watch_rows()):
        response = HttpResponse(status=204)
        response["Cache-Control"] = "no-store"
        return response
    matches = list(selectors.watch_matches())
    version = push_reads.watch_version((m.pk, m.status, m.turn_number) for m in matches)
    context = {"matches": matches, "watch_version": version}
    response = render(request, "games/_watch_list.html" if part else "games/watch.html", context)
    if part:
        response["Cache-Control"] = "no-store"
    return response


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
                creator=signed_in_user(request),
                seat_count=data["seat_count"],
                turn_seconds=data["turn_seconds"],
                bots=form.bots(),
                public=data["public"],
                title=data["title"],
                ruleset=form.ruleset,
                options=data["options"],
                rated=form.rated_choice(),
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
        return refused(
            request, ServiceError("unknown_ruleset", f"There is no such game here; choose {known}.")
        )
    if not request.user.is_authenticated:
        return home.guest_play_now(request, game)
    try:
        match = services.match_play_now(user=signed_in_user(request), ruleset=game)
    except ServiceError as error:
        return refused(request, error)
    return redirect("games:match-detail", match.pk)
