"""Built-in bots. A bot is `choose(state, seat, rng) -> Orders`, given only what `seat`
knows (`api.masked`) and randomness fixed by the match seed (`api.bot_rng`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from random import Random
from typing import Any, TypeVar

from engine.errors import ShapeError
from engine.helium3.api import bot_rng, check_to_move, masked
from engine.helium3.bots import fighter, miner, random_bot
from engine.helium3.orders import Orders
from engine.helium3.state import State

Bot = Callable[[State, int, Random], Orders]

BOTS: dict[str, Bot] = {
    "random": random_bot.choose,
    "miner": miner.choose,
    "fighter": fighter.choose,
}


def names() -> list[str]:
    return list(BOTS)


# Strength as the tournament measures it (docs/engine.md, "Engine: built-in bots"): the fighter
# beats three random bots in 100 matches of 100 and the miner in 99.
DESCRIPTIONS: dict[str, str] = {
    "random": "weakest; plays random legal moves",
    "miner": "middling; mines the richest helium, never fights",
    "fighter": "strongest; mines, shoots and shields",
}


def description(name: str) -> str:
    return DESCRIPTIONS.get(name, "")


def choose(name: str, state: State, seat: int) -> Orders:
    """Orders from bot `name` for `seat`, which must be the seat to move."""
    bot = ready(BOTS, name, state, seat)
    return bot(masked(state, seat), seat, bot_rng(name, state, seat))


B = TypeVar("B")


def ready(bots: Mapping[str, B], name: str, state: State, seat: int) -> B:
    """The bot called `name` among a ruleset's `bots`, once it may play for `seat`."""
    bot = bots.get(name)
    if bot is None:
        raise ShapeError("bad_shape", f"There is no built-in bot called {name[:40]!r}.")
    check_to_move(state, seat)
    return bot


def bot_orders(name: str, state: Any, seat: int) -> dict[str, Any]:
    return choose(name, State.from_json(state), seat).to_json()
