"""The arena's built-in bots. A bot has two parts: `build(sight, rng)`, the parts it
installs in the build phase, and `step(sight, rng)`, one step of its turn (it ends the
turn with {"type": "end"}). Both see the seat's view only (read into a `sight.Sight`)
and draw their randomness from the bot, the match seed, the turn, the step and the
seat (`bot_rng`), never the global random."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.arena.bots import hunter, random_bot
from engine.arena.bots.sight import Sight
from engine.errors import OrdersError, ShapeError, StateError


@dataclass(frozen=True, slots=True)
class Bot:
    build: Callable[[Sight, random.Random], list[str]]
    step: Callable[[Sight, random.Random], dict[str, Any]]
    description: str


BOTS: dict[str, Bot] = {
    "random": Bot(
        random_bot.build,
        random_bot.step,
        "weakest; a random build, random scans, moves and shots",
    ),
    "hunter": Bot(
        hunter.build,
        hunter.step,
        "scans, closes in on the last enemy seen, shoots in range, backs off when hurt",
    ),
}


def names() -> list[str]:
    """The built-in bots, from the plainest to the strongest."""
    return list(BOTS)


def description(name: str) -> str:
    bot = BOTS.get(name)
    return bot.description if bot else ""


def bot_rng(name: str, state: Any, seat: int) -> random.Random:
    """A bot's randomness: fixed by the bot, the match seed, the turn, the step and the
    seat. The seed is a source of chance here, never read as knowledge of the board."""
    parts = (name, state.get("seed"), state.get("turn"), state.get("step"), seat)
    return random.Random("arena:" + ":".join(str(p) for p in parts))


def _bot(name: str) -> Bot:
    bot = BOTS.get(name)
    if bot is None:
        raise ShapeError("bad_shape", f"There is no built-in bot called {name[:40]!r}.")
    return bot


def bot_orders(name: str, state: Any, seat: int) -> dict[str, Any]:
    """Orders of bot `name` for awaited `seat` of the JSON `state`: a build in the build
    phase, then one step of its turn."""
    from engine.arena import RULESET  # the package imports its bots: import it late

    bot = _bot(name)  # an unknown name is the first thing wrong, whatever the state
    if isinstance(state, dict) and state.get("viewer") == seat and "obstacles" not in state:
        # Already the seat's own view (a program of the bot API has nothing else): it
        # holds no seed, so the bot's chance comes from the bot, turn, step and seat.
        seen = state
        robots = seen.get("robots")
        if not isinstance(robots, list) or not any(
            isinstance(r, dict) and r.get("seat") == seat for r in robots
        ):
            raise StateError(f"The view of seat {seat} holds no robot of its own.")
    else:
        seen = RULESET.view(state, seat)  # the seat's knowledge only; a bad state is a StateError
    if seen.get("over"):
        raise OrdersError("match_over", "The match is over; no more orders are taken.")
    awaiting = seen.get("awaiting")
    if not isinstance(awaiting, list) or seat not in awaiting:
        raise OrdersError("not_your_turn", f"Seat {seat} is not awaited this turn.")
    try:
        sight = Sight.from_view(seen, seat)
    except (KeyError, TypeError, ValueError, IndexError) as error:
        raise StateError(f"The view of seat {seat} is not one the arena gives: {error}.") from None
    rng = bot_rng(name, state, seat)
    if sight.phase == "build":
        return {"seat": seat, "turn": sight.turn, "build": bot.build(sight, rng)}
    return {"seat": seat, "turn": sight.turn, "step_no": sight.step, "step": bot.step(sight, rng)}
