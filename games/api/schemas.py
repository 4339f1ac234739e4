"""The bot API's bodies as typed schemas: they validate input and write the OpenAPI
description. Input models are strict (a string is not a number) and refuse
unknown fields, so a typo is an error and not a silently ignored option."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any, Literal

from ninja import Schema
from pydantic import BeforeValidator, ConfigDict, Field

import engine
from games import presentation
from games.compete.schemas import RatingChangeOut
from games.models import TURN_SECONDS_MAX, TURN_SECONDS_MIN
from games.services.matches import LENGTH_MS_MAX, LENGTH_MS_MIN

MatchStatus = Literal["open", "running", "paused", "finished", "aborted"]
# The turn numbers a request may name; anything else is not a turn of any match.
TURN_MAX = 2**31 - 1


def integral(value: Any) -> Any:
    """JSON Schema counts 3.0 as an integer; so do we (strict models refuse floats)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [integral(v) for v in value]
    if isinstance(value, dict):
        return {k: integral(v) for k, v in value.items()}
    return value


Int = Annotated[int, BeforeValidator(integral)]
# A built-in bot's name, or "" for a seat left open for a person: an enum in the
# schema, so an unknown name is invalid input and not valid input refused.
# Every ruleset's bots: which of them a game has is the create service's check.
# The rulesets and bots registered when the API loads (engine/rulesets.py lists them).
if TYPE_CHECKING:
    BotName = str
    RulesetName = str
else:
    BotName = Literal[
        ("", *sorted({b for r in engine.ruleset_names() for b in engine.bot_names(r)}))
    ]
    RulesetName = Literal[tuple(engine.ruleset_names())]
Seats = Annotated[int, BeforeValidator(integral), Field(ge=2, le=8)]
OptionIn = Annotated[int, BeforeValidator(integral)] | str


class ErrorDetail(Schema):
    code: str = Field(description="A protocol error code, such as stale_turn or not_a_player.")
    message: str = Field(description="One sentence a person can act on.")
    action: int | None = Field(
        default=None, description="Index of the offending action, when there is one."
    )


class ErrorOut(Schema):
    """docs/protocol.md's error object; every error of the API has this body."""

    error: ErrorDetail


class MatchCreateIn(Schema):
    model_config = ConfigDict(strict=True, extra="forbid")

    ruleset: RulesetName = Field(
        default=engine.rulesets.DEFAULT,
        description="The game: a ruleset name (python -m engine rulesets), such as "
        + " or ".join(f'"{name}"' for name in presentation.names()[:2])
        + ".",
    )
    seats: Seats | None = Field(
        default=None,
        description="2 to 8 seats, as the game allows (Helium 3: 2 to 4, Halite: 2 to 6); "
        "by default the game's usual count (Helium 3: 4, Halite: 2).",
    )
    options: dict[str, OptionIn] = Field(
        default_factory=dict,
        max_length=16,
        description="The game's options by the names --option takes (such as rounds); "
        "the others keep their defaults.",
    )
    turn_seconds: Int = Field(
        default=24 * 3600,
        ge=TURN_SECONDS_MIN,
        le=TURN_SECONDS_MAX,
        description="Time for each turn before the clock passes it.",
    )
    length_ms: Int = Field(
        default=600_000, ge=LENGTH_MS_MIN, le=LENGTH_MS_MAX, description="Battle length."
    )
    bots: list[BotName] = Field(
        default_factory=list,
        max_length=8,
        description="Built-in bots for the seats after yours, in order; seats without "
        'one wait for players ("" keeps a seat open). One bot per seat: you only watch.',
    )
    public: bool = Field(
        default=True, description="Anyone may watch a public match; a private one is joined by id."
    )
    rated: bool | None = Field(
        default=None,
        description="Whether its end changes ratings; by default rated unless a seat is a "
        "built-in bot's (docs/compete.md).",
    )


class SeatOut(Schema):
    number: int
    player: str | None = Field(description="The username in this seat, if a person's.")
    bot: str | None = Field(description="The built-in bot in this seat, or playing for it now.")
    api: bool = Field(description="The seat is driven through this API.")
    rating_change: RatingChangeOut | None = Field(
        default=None, description="Its rating before and after, once a rated match is over."
    )


class MatchSummary(Schema):
    id: int
    status: MatchStatus
    seat: int | None = Field(description="Your seat number, null if you do not play.")
    your_turn: bool
    turn: int
    to_move: int | None
    public: bool
    created_at: datetime


class MatchOut(Schema):
    id: int
    ruleset: str = Field(description="The game.")
    options: dict[str, Any] = Field(description="The game's options, defaults filled in.")
    status: MatchStatus
    seat: int | None = Field(description="Your seat number, null if you do not play.")
    your_turn: bool = Field(description="The match waits for your orders.")
    deadline: datetime | None = Field(description="When the clock passes the current turn.")
    state: dict[str, Any] | None = Field(
        description="Your view of the state (docs/protocol.md), null before the start."
    )
    awaiting: list[int] = Field(
        description="The seats whose orders the turn waits for (several in a turn at once)."
    )
    scores: dict[str, int | float] = Field(description="What the game ranks by, per seat.")
    step: int = Field(description="The step within the turn (turns made of steps), else 0.")
    your_orders: dict[str, Any] | None = Field(
        description="In a turn at once: your orders stored for it, which you may replace "
        "until every seat's are in (nobody else sees them before the turn resolves)."
    )
    last_events: list[dict[str, Any]] = Field(
        description="Your copy of the last resolved turn's events."
    )
    public: bool
    seats: list[SeatOut]
    turn_seconds: int
    length_ms: int
    winners: list[int]
    rated: bool = Field(description="Its end changes its seats' ratings (docs/compete.md).")


class OrdersAccepted(Schema):
    match: int
    turn: int
    seat: int
    step: int = Field(description="The step these orders took (turns made of steps), else 0.")
    status: Literal["accepted"]
    orders: dict[str, Any] = Field(description="The orders as stored.")
    accepted_at: datetime


class HistoryStep(Schema):
    step: int
    turn_ms: int = Field(description="The step's length on the battle clock.")
    events: list[dict[str, Any]] = Field(description="Your copy of the step's events.")
    orders: dict[str, Any] | list[dict[str, Any]] | None = Field(
        default=None, description="The step's orders, once the match is over."
    )


class HistoryTurn(Schema):
    turn: int
    step: int = Field(default=0, description="Always 0: a turn of steps is one entry.")
    seat: int = Field(description="The seat whose turn it was (0: every seat at once).")
    turn_ms: int = Field(
        description="The turn's length on the battle clock; for another seat's turn of "
        "steps, the end of the last event you perceived (its steps' timing is its own)."
    )
    events: list[dict[str, Any]] = Field(description="Your copy of the turn's events.")
    steps: list[HistoryStep] | None = Field(
        default=None,
        description="A turn of steps you played (or any, once the match is over): each "
        "step. Another seat's turn shows here only once it has ended, without its steps.",
    )
    orders: dict[str, Any] | list[dict[str, Any]] | None = Field(
        default=None,
        description="The orders, once the match is over (a list in a turn at once).",
    )


class HistoryOut(Schema):
    match: int
    over: bool
    turns: list[HistoryTurn]


class ReplayOut(Schema):
    """docs/protocol.md's replay file."""

    initial: dict[str, Any]
    turns: list[dict[str, Any]]
    final: dict[str, Any]


_DEFAULT_TITLE = presentation.get(engine.rulesets.DEFAULT).title

# Written out by hand: the body goes to the engine exactly as sent, so that the
# engine, not a model here, decides what is well formed (with protocol codes).
ORDERS_BODY: dict[str, Any] = {
    "required": True,
    "content": {
        "application/json": {
            "schema": {
                "title": "Orders",
                "type": "object",
                "description": f"The game's orders object: {_DEFAULT_TITLE}'s (docs/protocol.md) "
                "has the fields below; another game's has its own, which its engine checks. "
                "`seat` may be left out (yours is used). In a turn made of steps, "
                "`step_no` is required: the state's `step`.",
                "required": ["turn"],
                "properties": {
                    "seat": {"type": "integer", "minimum": 1, "maximum": 4},
                    "turn": {"type": "integer", "minimum": 0, "maximum": TURN_MAX},
                    "step_no": {"type": "integer", "minimum": 0, "maximum": TURN_MAX},
                    **presentation.get(engine.rulesets.DEFAULT).orders_schema,
                },
            }
        }
    },
}
