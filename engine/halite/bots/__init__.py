"""Halite's built-in bots. A bot is `choose(state, seat, rng) -> moves`, given the seat's
view (Halite hides nothing, so the state itself) and randomness fixed by the match seed,
the turn and the seat (`bot_rng`), never the global random."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from engine.errors import OrdersError, ShapeError
from engine.halite.bots import grower, random_bot
from engine.halite.state import State

Moves = list[list[int]]
Bot = Callable[[State, int, random.Random], Moves]

BOTS: dict[str, Bot] = {
    "random": random_bot.choose,
    "grower": grower.choose,
}

DESCRIPTIONS: dict[str, str] = {
    "random": "weakest; every piece moves in a random direction or stays",
    "grower": "strong; grows in place, takes the cells that pay best, pushes to the border",
}


def names() -> list[str]:
    """The built-in bots, from the plainest to the strongest."""
    return list(BOTS)


def description(name: str) -> str:
    return DESCRIPTIONS.get(name, "")


def bot_rng(name: str, state: State, seat: int) -> random.Random:
    """A bot's randomness: fixed by the match seed, the turn and the seat."""
    return random.Random(f"halite:{name}:{state.seed}:{state.turn}:{seat}")


def _bot(name: str) -> Bot:
    bot = BOTS.get(name)
    if bot is None:
        raise ShapeError("bad_shape", f"There is no built-in bot called {name[:40]!r}.")
    return bot


def choose(name: str, state: State, seat: int) -> Moves:
    """The moves of bot `name` for `seat`, which must be awaited."""
    bot = _bot(name)
    if state.over:
        raise OrdersError("match_over", "The match is over; no more orders are taken.")
    if seat not in state.awaiting:
        raise OrdersError("not_your_turn", f"Seat {seat} is not awaited this turn.")
    return bot(state, seat, bot_rng(name, state, seat))


def bot_orders(name: str, state: Any, seat: int) -> dict[str, Any]:
    """Orders of bot `name` for awaited `seat` of the JSON `state` (StateError if it is
    not a Halite state): {"seat", "turn", "moves"}, moves as [x, y, direction]."""
    return seats_bot_orders([(name, seat)], state)[0]


def seats_bot_orders(asked: list[tuple[str, int]], state: Any) -> list[dict[str, Any]]:
    """`bot_orders` of each (name, seat) in turn, the state read once: reading a board
    costs as much as a bot's turn, and the bots only read the state they are given."""
    out: list[dict[str, Any]] = []
    parsed: State | None = None
    for name, seat in asked:
        _bot(name)  # an unknown name is the first thing wrong, whatever the state
        if parsed is None:
            parsed = State.from_json(state)
        out.append({"seat": seat, "turn": parsed.turn, "moves": choose(name, parsed, seat)})
    return out
