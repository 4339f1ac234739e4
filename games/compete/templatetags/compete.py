"""Ratings on other pages: each seat's change on a match's end screen, a player's
ratings on the player page."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

from games.compete import selectors
from games.compete.chart import history_svg
from games.compete.models import RatingChange
from games.models import Match

register = template.Library()


@register.simple_tag
def match_rating_changes(match: Match) -> dict[int, RatingChange]:
    """{seat: its change}; no query unless the match is over and rated."""
    return selectors.match_rating_changes(match)


@register.simple_tag
def rating_delta(changes: dict[int, RatingChange], seat: int) -> str:
    """ "+12" (up), "-7" (down) or "±0" beside a seat's place, with the ratings in
    its title; nothing for a seat without a change."""
    change = changes.get(seat) if changes else None
    if change is None:
        return ""
    delta = change.delta
    sign = "up" if delta > 0 else "down" if delta < 0 else "same"
    return format_html(
        '<small class="rating-change {}" title="Rating {} → {}">{}</small>',
        sign,
        change.rating_before,
        change.rating_after,
        f"{delta:+d}" if delta else "±0",
    )


@register.simple_tag
def rating_delta_of(change: RatingChange) -> str:
    return rating_delta({change.seat: change}, change.seat)


@register.inclusion_tag("compete/_player_ratings.html", takes_context=True)
def player_ratings(context: Any, player: Any) -> dict[str, Any]:
    """A player's rating in each game, its history and the last rated matches."""
    account = selectors.Account(name=player.get_username(), user=player)
    return ratings_context(account)


@register.filter
def rated_game_title(game: str) -> str:
    """A game's title; the ruleset's name for a game the site does not offer."""
    from games import catalog

    return catalog.title(game) if game in catalog.names() else game


def ratings_context(account: selectors.Account) -> dict[str, Any]:
    games = []
    for rating in account.ratings().order_by("-last_played_at"):
        history = selectors.rating_history(rating)
        points = [history[0].rating_before] + [c.rating_after for c in history] if history else []
        title = rated_game_title(rating.game)
        games.append(
            {
                "rating": rating,
                "title": title,
                "rank": selectors.leaderboard_rank(rating),
                "chart": chart(points, title),
            }
        )
    return {"account": account, "games": games, "recent": selectors.recent_changes(account)}


def chart(points: list[int], title: str) -> SafeString:
    # history_svg writes numbers and an escaped title only.
    return mark_safe(history_svg(points, label=title))  # noqa: S308
