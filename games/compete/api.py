"""The bot API's ratings: GET /api/v1/ratings/<game>/ (a leaderboard) and
GET /api/v1/players/<username>/ (a player's rating in each game). docs/compete.md."""

from __future__ import annotations

from typing import Any, Literal

from django.http import HttpRequest
from ninja import Query, Router, Schema
from pydantic import Field

from games.api.matches import _COMMON, _known_query
from games.api.schemas import ErrorOut
from games.compete import selectors
from games.compete.models import Rating

router = Router(tags=["ratings"])

KindName = Literal["person", "api_bot", "builtin_bot"]


class RatingOut(Schema):
    rating: int = Field(description="The rating people read: round(1500 + 40 (mu - 25)).")
    mu: float
    sigma: float
    matches: int = Field(description="Rated matches played in this game.")
    provisional: bool = Field(description="sigma > 4: shown with '?', not ranked yet.")


class LeaderboardRow(RatingOut):
    rank: int
    player: str = Field(description='A username, or "bot:<name>" for a built-in bot.')
    kind: KindName


class PlayerRating(RatingOut):
    game: str
    rank: int | None = Field(description="Rank on the game's leaderboard (all kinds), if on it.")


class PlayerOut(Schema):
    player: str
    ratings: list[PlayerRating] = Field(description="One per game played rated, by game.")


class NoQuery(Schema):
    """An operation without query parameters: any one given is a typo (bad_shape)."""


class LeaderboardFilter(Schema):
    kind: KindName | None = Field(default=None, description="Only people, API or built-in bots.")
    limit: int = Field(default=100, ge=1, le=500, description="At most this many, best first.")


def rating_numbers(rating: Rating) -> dict[str, Any]:
    return {
        "rating": rating.shown,
        "mu": rating.mu,
        "sigma": rating.sigma,
        "matches": rating.matches,
        "provisional": rating.provisional,
    }


@router.get(
    "/ratings/{game}/",
    response={200: list[LeaderboardRow], 400: ErrorOut, 404: ErrorOut, **_COMMON},
    summary="A game's leaderboard",
    description="Settled ratings (sigma at most 4) played in the last RATING_ACTIVE_DAYS "
    "(90) days, ranked by mu - 3 sigma.",
)
def leaderboard(
    request: HttpRequest, game: str, filters: Query[LeaderboardFilter]
) -> list[dict[str, Any]]:
    _known_query(request, filters)
    selectors.game_or_404(game)
    rows = selectors.leaderboard(game, filters.kind or "")[: filters.limit]
    return [
        {"rank": i, "player": r.player_name, "kind": r.kind, **rating_numbers(r)}
        for i, r in enumerate(rows, start=1)
    ]


@router.get(
    "/players/{username}/",
    response={200: PlayerOut, 400: ErrorOut, 404: ErrorOut, **_COMMON},
    summary="A player's ratings",
    description='Its rating in each game it played rated. A built-in bot is "bot:<name>".',
)
def player(request: HttpRequest, username: str) -> dict[str, Any]:
    _known_query(request, NoQuery())
    account = selectors.account_by_name(username)
    ratings = account.ratings().order_by("game")
    return {
        "player": account.name,
        "ratings": [
            {"game": r.game, "rank": selectors.leaderboard_rank(r), **rating_numbers(r)}
            for r in ratings
        ],
    }


# The challenges' operations (games/compete/challenges_api.py), under the same prefix.
from games.compete.challenges_api import router as challenges_router  # noqa: E402

router.add_router("/", challenges_router)
