"""The tokens page's ladder switch: POST on or off for one game, back to the page."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

import engine
from games import catalog
from games.errors import ServiceError
from games.ladder import services


@login_required
@require_POST
def ladder_switch(request: HttpRequest, game: str) -> HttpResponse:
    if game not in engine.ruleset_names():
        raise Http404("No such game.")
    wanted = request.POST.get("on", "")
    if wanted not in ("1", "0"):
        messages.error(request, "Choose on or off.")
        return redirect("games:tokens")
    assert isinstance(request.user, User)
    title = catalog.title(game) if game in catalog.names() else game
    try:
        entry = services.ladder_set_from_page(user=request.user, game=game, on=wanted == "1")
    except ServiceError as error:
        messages.error(request, error.message)
    else:
        if entry.on:
            messages.success(request, f"Your bot is on the {title} ladder.")
        else:
            messages.info(request, f"Your bot is off the {title} ladder.")
    return redirect("games:tokens")
