"""The leaderboard of a game and a built-in bot's profile (a person's ratings are on
their player page: templates/games/player.html includes compete/_player_ratings.html)."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from games import catalog
from games.compete import selectors
from games.compete.models import BOT_PREFIX, Kind
from games.compete.templatetags.compete import ratings_context
from games.errors import ServiceError

PER_PAGE = 50
# The filters people choose between: people, bots (API and built-in), all.
FILTERS = {
    "": ("All", ""),
    "people": ("People", Kind.PERSON),
    "api-bots": ("API bots", Kind.API_BOT),
    "bots": ("Built-in bots", Kind.BUILTIN_BOT),
}


def game_title(game: str) -> str:
    return catalog.title(game) if game in catalog.names() else game


@require_GET
def leaderboard(request: HttpRequest, game: str) -> HttpResponse:
    try:
        selectors.game_or_404(game)
    except ServiceError:
        raise Http404("No such game.") from None
    shown = request.GET.get("show", "")
    if shown not in FILTERS:
        raise Http404("No such filter.")
    kind = FILTERS[shown][1]
    board = selectors.leaderboard(game, kind)
    page = Paginator(board, PER_PAGE).get_page(request.GET.get("page"))
    first = (page.number - 1) * PER_PAGE
    rows = [(first + i, r) for i, r in enumerate(page.object_list, start=1)]
    mine = None
    if request.user.is_authenticated:
        own = selectors.rating_of(game, request.user)
        # Below the page, on "All" and on the filter of the viewer's own kind (an API
        # bot's owner sees no row of theirs among the people).
        if (
            own is not None
            and (not kind or own.kind == kind)
            and all(r.pk != own.pk for _, r in rows)
        ):
            mine = (selectors.leaderboard_rank(own, kind), own)
    return render(
        request,
        "compete/leaderboard.html",
        {
            "game": game,
            "title": game_title(game),
            "rows": rows,
            "mine": mine,
            "page": page,
            "filters": [(key, label) for key, (label, _) in FILTERS.items()],
            "shown": shown,
            "games": [(name, catalog.title(name)) for name in catalog.names()],
        },
    )


@require_GET
def bot_profile(request: HttpRequest, name: str) -> HttpResponse:
    try:
        account = selectors.account_by_name(BOT_PREFIX + name)
    except ServiceError:
        raise Http404("No such bot.") from None
    return render(request, "compete/bot.html", ratings_context(account))
