"""Skyport's built-in bots. A bot has two parts: `loadout(board, seat, rng)`, the two
weapons it chooses in the loadout phase, and `play(board, seat, rng)`, the actions of
one turn. Both see the seat's view only (read into a `board.Board`) and draw their
randomness from the match seed, the turn and the seat (`bot_rng`), never the global
random."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.errors import OrdersError, ShapeError
from engine.skyport import api
from engine.skyport.bots import prospector, random_bot
from engine.skyport.bots.board import Action, Board


@dataclass(frozen=True, slots=True)
class Bot:
    loadout: Callable[[Board, int, random.Random], list[str]]
    play: Callable[[Board, int, random.Random], list[Action]]
    description: str


BOTS: dict[str, Bot] = {
    "random": Bot(
        random_bot.loadout,
        random_bot.play,
        "weakest; random weapons, one to three random actions a turn",
    ),
    "prospector": Bot(
        prospector.loadout,
        prospector.play,
        "mines toward upgrades and shoots whenever an enemy is in reach",
    ),
}


def names() -> list[str]:
    """The built-in bots, from the plainest to the strongest."""
    return list(BOTS)


def description(name: str) -> str:
    bot = BOTS.get(name)
    return bot.description if bot else ""


def bot_rng(name: str, board: Board, seat: int) -> random.Random:
    """A bot's randomness: fixed by the bot, the match seed, the turn and the seat."""
    return random.Random(f"skyport:{name}:{board.seed}:{board.turn}:{seat}")


def _bot(name: str) -> Bot:
    bot = BOTS.get(name)
    if bot is None:
        raise ShapeError("bad_shape", f"There is no built-in bot called {name[:40]!r}.")
    return bot


def bot_orders(name: str, state: Any, seat: int) -> dict[str, Any]:
    """Orders of bot `name` for awaited `seat` of the JSON `state`: a loadout in the
    loadout phase, then the actions of a turn."""
    bot = _bot(name)  # an unknown name is the first thing wrong, whatever the state
    seen = api.view(state, seat)  # the seat's knowledge only; a bad state is a StateError
    if seen["over"]:
        raise OrdersError("match_over", "The match is over; no more orders are taken.")
    if seat not in seen["awaiting"]:
        raise OrdersError("not_your_turn", f"Seat {seat} is not awaited this turn.")
    board = Board.from_json(seen)
    rng = bot_rng(name, board, seat)
    if board.phase == "loadout":
        return {"seat": seat, "turn": board.turn, "loadout": bot.loadout(board, seat, rng)}
    return {"seat": seat, "turn": board.turn, "actions": bot.play(board, seat, rng)}
