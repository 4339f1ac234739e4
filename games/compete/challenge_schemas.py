"""A challenge as the bot API and its event stream show it, and the body that makes one."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from ninja import Schema
from pydantic import ConfigDict, Field

import engine
from games.api.schemas import BotName, Int, OptionIn, RulesetName
from games.compete.models import Challenge
from games.models import TURN_SECONDS_MAX, TURN_SECONDS_MIN

ChallengeStatus = Literal["pending", "accepted", "declined", "cancelled", "expired"]


class ChallengeIn(Schema):
    model_config = ConfigDict(strict=True, extra="forbid")

    to: str = Field(min_length=1, max_length=150, description="The username challenged.")
    ruleset: RulesetName = Field(default=engine.rulesets.DEFAULT, description="The game.")
    options: dict[str, OptionIn] = Field(
        default_factory=dict, max_length=16, description="The game's options; others default."
    )
    seats: Int | None = Field(
        default=None,
        description="Seats, as the game allows; by default the fewest it has (two). You sit "
        "first, the challenged player second.",
    )
    bots: list[BotName] = Field(
        default_factory=list,
        max_length=6,
        description='Built-in bots for the seats after the two players\', in order ("" or '
        "none: open for anyone to join).",
    )
    rated: bool | None = Field(
        default=None,
        description="Rated or casual; by default rated unless a seat is a built-in bot's.",
    )
    turn_seconds: Int = Field(
        default=24 * 3600, ge=TURN_SECONDS_MIN, le=TURN_SECONDS_MAX, description="Time a turn."
    )
    public: bool = Field(default=True, description="Anyone may watch the match.")


class ChallengeOut(Schema):
    id: int
    status: ChallengeStatus
    challenger: str = Field(description="Who challenges (the match's first seat).")
    challenged: str = Field(description="Who is challenged (the second seat).")
    ruleset: str
    options: dict[str, Any]
    seats: int
    bots: list[str] = Field(description='The seats after the two players\' ("" open).')
    rated: bool
    turn_seconds: int
    public: bool
    created_at: datetime
    expires_at: datetime
    answered_at: datetime | None
    match_id: int | None = Field(description="The match made when it was accepted.")


class ChallengeLists(Schema):
    incoming: list[ChallengeOut] = Field(description="Pending challenges to you, newest first.")
    outgoing: list[ChallengeOut] = Field(description="Your pending challenges, newest first.")


def challenge_json(challenge: Challenge) -> dict[str, Any]:
    """The challenge's body (the API's and the stream's); needs its two users loaded."""
    return {
        "id": challenge.pk,
        "status": challenge.status,
        "challenger": challenge.challenger.get_username(),
        "challenged": challenge.challenged.get_username(),
        "ruleset": challenge.ruleset,
        "options": dict(challenge.options or {}),
        "seats": challenge.seats,
        "bots": list(challenge.bots or []),
        "rated": challenge.rated,
        "turn_seconds": challenge.turn_seconds,
        "public": challenge.public,
        "created_at": challenge.created_at,
        "expires_at": challenge.expires_at,
        "answered_at": challenge.answered_at,
        "match_id": challenge.match_id,
    }
