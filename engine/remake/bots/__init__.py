"""Built-in bots of the remake. A bot is `choose(state, seat, rng) -> Orders`, given only
what `seat` knows (`api.masked`) and randomness fixed by the match seed (`api.bot_rng`)."""

from __future__ import annotations

from collections.abc import Callable
from random import Random
from typing import Any

from engine.helium3.bots import ready
from engine.remake.api import bot_rng, masked
from engine.remake.bots import prospector, random_bot
from engine.remake.orders import Orders
from engine.remake.state import State

Bot = Callable[[State, int, Random], Orders]

BOTS: dict[str, Bot] = {
    "random": random_bot.choose,
    "prospector": prospector.choose,
}

DESCRIPTIONS: dict[str, str] = {
    "random": "weakest; plays random legal moves",
    "prospector": "strong; mines the richest helium, keeps clear of blasts, shoots when armed",
}


def names() -> list[str]:
    return list(BOTS)


def description(name: str) -> str:
    return DESCRIPTIONS.get(name, "")


def choose(name: str, state: State, seat: int) -> Orders:
    """Orders from bot `name` for `seat`, which must be the seat to move."""
    bot = ready(BOTS, name, state, seat)
    return bot(masked(state, seat), seat, bot_rng(name, state, seat))


def bot_orders(name: str, state: Any, seat: int) -> dict[str, Any]:
    return choose(name, State.from_json(state), seat).to_json()
