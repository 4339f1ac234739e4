"""The ladder on other apps' pages: the owner's switches on the tokens page, and a
game's latest ladder matches on its leaderboard."""

from __future__ import annotations

from typing import Any

from django import template

from games.ladder import selectors

register = template.Library()


@register.inclusion_tag("ladder/_switches.html", takes_context=True)
def ladder_switches(context: Any) -> dict[str, Any]:
    request = context["request"]
    return {"ladders": selectors.owner_ladders(request.user)}


@register.inclusion_tag("ladder/_matches.html")
def ladder_matches(game: str) -> dict[str, Any]:
    rows = [
        (lm, [selectors.seat_name(s) for s in lm.match.seats.all()])
        for lm in selectors.latest_matches(game)
    ]
    return {"game": game, "rows": rows}
