"""The bot API's ladder: GET and PUT /api/v1/ladder/<game>/ (docs/compete.md, "The
bot ladder"). The caller is the API bot its token belongs to."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from django.contrib.auth.models import User
from django.http import HttpRequest
from ninja import Router, Schema
from pydantic import ConfigDict, Field

from games.api.matches import _COMMON, _known_query
from games.api.schemas import ErrorOut
from games.compete.selectors import game_or_404
from games.ladder import selectors, services
from games.ladder.models import LadderEntry
from games.models import ApiToken

router = Router(tags=["ladder"])


class LadderIn(Schema):
    model_config = ConfigDict(strict=True, extra="forbid")

    on: bool = Field(description="true: put your bot on the ladder; false: take it off.")


class LadderBotOut(Schema):
    player: str = Field(description='A username, or "bot:<name>" for a built-in bot.')
    kind: Literal["api_bot", "builtin_bot"]
    rating: int
    provisional: bool
    matches: int = Field(description="Rated matches played in this game.")
    running: int = Field(description="Its ladder matches running now.")


class LadderMatchOut(Schema):
    id: int
    status: str
    created_at: datetime
    players: list[str] = Field(description="Each seat's player, in seat order.")
    winners: list[int]


class LadderOut(Schema):
    game: str
    on: bool = Field(description="Your bot is on this ladder.")
    joined_at: datetime | None = Field(description="When it was last put on it.")
    running: int = Field(description="Your bot's ladder matches running now.")
    removed_at: datetime | None = Field(
        description="When the ladder took it off (it missed its turns in each of its "
        "first five ladder matches); null unless it did."
    )
    removed_reason: str | None
    bots: list[LadderBotOut] = Field(description="Everyone on the ladder, by mu - 3 sigma.")
    matches: list[LadderMatchOut] = Field(description="The latest ladder matches, newest first.")


class NoFilter(Schema):
    pass


def _user(request: HttpRequest) -> User:
    token = request.auth  # type: ignore[attr-defined]
    assert isinstance(token, ApiToken)
    return token.user


def ladder_out(user: User, game: str, entry: LadderEntry | None) -> dict[str, Any]:
    on = bool(entry and entry.on)
    removed = entry is not None and not entry.on and entry.removed_at is not None
    return {
        "game": game,
        "on": on,
        "joined_at": entry.joined_at if entry is not None and on else None,
        "running": selectors.running_count(user, game),
        "removed_at": entry.removed_at if removed and entry is not None else None,
        "removed_reason": entry.removed_reason if removed and entry is not None else None,
        "bots": [vars(b) for b in selectors.ladder_members(game)],
        "matches": [
            {
                "id": lm.match_id,
                "status": lm.match.status,
                "created_at": lm.created_at,
                "players": [selectors.seat_name(s) for s in lm.match.seats.all()],
                "winners": list(lm.match.winners or []),
            }
            for lm in selectors.latest_matches(game)
        ],
    }


@router.get(
    "/ladder/{game}/",
    response={200: LadderOut, 400: ErrorOut, 404: ErrorOut, **_COMMON},
    summary="A game's bot ladder, and your bot's place on it",
)
def ladder_get(request: HttpRequest, game: str) -> dict[str, Any]:
    _known_query(request, NoFilter())
    game_or_404(game)
    user = _user(request)
    return ladder_out(user, game, LadderEntry.objects.filter(user=user, game=game).first())


@router.put(
    "/ladder/{game}/",
    response={200: LadderOut, 400: ErrorOut, 403: ErrorOut, 404: ErrorOut, **_COMMON},
    summary="Put your bot on a game's ladder, or take it off",
    description='`{"on": true}`: the matchmaker starts rated matches for your bot, at '
    "most LADDER_MATCHES_PER_BOT (2) running at once; they come on the event stream as "
    "any match does. Putting it back on starts a fresh count of its first five ladder "
    'matches. `{"on": false}`: no new ladder matches (running ones play on).',
)
def ladder_put(request: HttpRequest, game: str, payload: LadderIn) -> dict[str, Any]:
    _known_query(request, NoFilter())
    user = _user(request)
    entry = services.ladder_set(user=user, game=game, on=payload.on)
    return ladder_out(user, game, entry if entry.pk else None)
