"""The archive of finished matches and a page per player: open to anyone, and
each shows only the matches its viewer may see (private ones to their players)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from games import archive
from games.forms import ArchiveFilterForm

ARCHIVE_PER_PAGE = 25


@require_GET
def archive_list(request: HttpRequest) -> HttpResponse:
    form = ArchiveFilterForm(request.GET or None)
    filters = form.cleaned_data if form.is_valid() else {}
    matches = archive.archive_matches(
        request.user,
        player=(filters.get("player") or "").strip(),
        since=filters.get("since"),
        until=filters.get("until"),
        bots=filters.get("bots") or "",
        ruleset=filters.get("game") or "",
    )
    page = Paginator(matches, ARCHIVE_PER_PAGE).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    return render(
        request,
        "games/archive.html",
        {"form": form, "page": page, "query": query.urlencode()},
    )


@require_GET
def player_detail(request: HttpRequest, username: str) -> HttpResponse:
    player = get_object_or_404(get_user_model(), username=username, is_active=True)
    return render(
        request,
        "games/player.html",
        {
            "player": player,
            "record": archive.player_record(request.user, player),
            "by_game": archive.player_records_by_game(request.user, player),
            "recent": archive.player_recent_seats(request.user, player),
        },
    )
