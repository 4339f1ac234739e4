"""Ratings on other pages: each seat's change on a match's end screen, a player's
ratings on the player page."""

from __future__ import annotations

from typing import Any

from django import template
from django.db.models import Q
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

from games.compete import selectors
from games.compete.chart import history_svg
from games.compete.models import Rating, RatingChange
from games.guests.selectors import is_guest
from games.models import Match

register = template.Library()


@register.simple_tag
def match_rating_changes(match: Match) -> dict[int, RatingChange]:
    """{seat: its change}; no query unless the match is over and rated (nothing on a
    page that has no match in its context)."""
    if not isinstance(match, Match):
        return {}
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
        '<small class="rating-change {}" title="Rating {} → {}"><span class="vh">rating </span>{}'
        "</small>",
        sign,
        change.rating_before,
        change.rating_after,
        f"{delta:+d}" if delta else "±0",
    )


@register.simple_tag
def card_ratings(*lists: Any) -> dict[tuple[str, str], Rating]:
    """The ratings of every account seated in these lists of matches, in each match's
    game, in one query: {(game, "u<user id>" or "b<bot>"): rating}. The matches'
    seats are prefetched by the lists' selectors."""
    users: set[tuple[str, int]] = set()
    bots: set[tuple[str, str]] = set()
    for matches in lists:
        for match in matches or ():
            for seat in match.seats.all():
                if seat.user_id is not None:
                    users.add((match.ruleset, seat.user_id))
                elif seat.bot:
                    bots.add((match.ruleset, seat.bot))
    if not users and not bots:
        return {}
    wanted = Q(pk__in=[])
    for game in {g for g, _ in users} | {g for g, _ in bots}:
        ids = [u for g, u in users if g == game]
        names = [b for g, b in bots if g == game]
        wanted |= Q(game=game) & (Q(user_id__in=ids) | Q(bot__in=names))
    found = Rating.objects.filter(wanted).only("game", "user_id", "bot", "mu", "sigma")
    return {(r.game, f"b{r.bot}" if r.bot else f"u{r.user_id}"): r for r in found}


@register.simple_tag
def seat_rating(ratings: dict[tuple[str, str], Rating] | None, match: Match, seat: Any) -> str:
    """A seat's rating in its match's game beside its name on a card ("1523?"), or
    nothing (an open seat, no rated match yet, or no ratings fetched)."""
    if not ratings:
        return ""
    key = f"b{seat.bot}" if seat.user_id is None else f"u{seat.user_id}"
    rating = ratings.get((match.ruleset, key))
    if rating is None:
        return ""
    return format_html(' <small class="seat-rating" title="Rating">{}</small>', rating.text)


@register.simple_tag
def rating_delta_of(change: RatingChange) -> str:
    return rating_delta({change.seat: change}, change.seat)


@register.inclusion_tag("compete/_player_ratings.html", takes_context=True)
def player_ratings(context: Any, player: Any) -> dict[str, Any]:
    """A player's rating in each game, its history and the last rated matches."""
    account = selectors.Account(name=player.get_username(), user=player)
    request = context.get("request")
    viewer = getattr(request, "user", None)
    # A signed-in player (not a guest) may challenge anybody else from their page.
    challenge = (
        viewer is not None
        and viewer.is_authenticated
        and viewer.pk != player.pk
        and not is_guest(viewer)
    )
    return {**ratings_context(account), "challenge_to": player.get_username() if challenge else ""}


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


@register.simple_tag(takes_context=True)
def challenges_waiting(context: Any) -> int:
    """How many challenges wait for the signed-in player's answer (the navigation's
    count): kept a minute in the cache (forgotten when it changes), none for a visitor."""
    from games.compete.challenges import waiting_count

    request = context.get("request")
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated or user.pk is None:
        return 0
    return waiting_count(user)


@register.simple_tag(takes_context=True)
def invitation_link(context: Any, match: Match) -> str:
    """The invitation link of a private open match, for its creator and players ("")."""
    from games.compete import invitations
    from games.services.emails import absolute

    request = context.get("request")
    user = getattr(request, "user", None)
    if not isinstance(match, Match) or not invitations.may_invite(match, user):
        return ""
    path = invitations.invitation_path(match)
    return request.build_absolute_uri(path) if request is not None else absolute(path)
