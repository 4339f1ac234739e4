"""Halite's built-in bots. A bot is `choose(state, seat, rng) -> moves`, given the seat's
view (Halite hides nothing, so the state itself) and randomness fixed by the match seed,
the turn and the seat (`bot_rng`), never the global random."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from engine.errors import OrdersError, ShapeError, StateError
from engine.halite.bots import random_bot

Moves = list[list[int]]
Bot = Callable[[dict[str, Any], int, random.Random], Moves]

BOTS: dict[str, Bot] = {
    "random": random_bot.choose,
}

DESCRIPTIONS: dict[str, str] = {
    "random": "weakest; every piece moves in a random direction or stays",
}


def names() -> list[str]:
    """The built-in bots, from the plainest to the strongest."""
    return list(BOTS)


def description(name: str) -> str:
    return DESCRIPTIONS.get(name, "")


def bot_rng(name: str, state: dict[str, Any], seat: int) -> random.Random:
    """A bot's randomness: fixed by the match seed, the turn and the seat."""
    return random.Random(f"halite:{name}:{state['seed']}:{state['turn']}:{seat}")


def _ready(name: str, state: Any, seat: int) -> Bot:
    """The bot called `name`, once it may play for `seat` in `state`."""
    bot = BOTS.get(name)
    if bot is None:
        raise ShapeError("bad_shape", f"There is no built-in bot called {name[:40]!r}.")
    if not isinstance(state, dict):
        raise StateError("The state must be a JSON object.")
    if state.get("over"):
        raise OrdersError("match_over", "The match is over; no more orders are taken.")
    awaiting = state.get("awaiting")
    if not isinstance(awaiting, list) or seat not in awaiting:
        raise OrdersError("not_your_turn", f"Seat {seat} is not awaited this turn.")
    return bot


def bot_orders(name: str, state: Any, seat: int) -> dict[str, Any]:
    """Orders of bot `name` for awaited `seat`: {"seat", "turn", "moves"}."""
    bot = _ready(name, state, seat)
    return {
        "seat": seat,
        "turn": state["turn"],
        "moves": bot(state, seat, bot_rng(name, state, seat)),
    }
