"""`miner`: goes for the richest helium it can reach, mines, spreads out, avoids danger.

Each action is the best of, over its robots: mining on a cell within the mine range
(what it takes, less the danger of standing there and of standing next to its own
robots), or moving towards the richest helium further away (half the travel potential
where the move ends). Danger is where an opponent's armed weapon reaches or next to an
opponent's robot, so a threatened robot gains by leaving. It never fights, and it
keeps its last inactive robot idle, so it cannot be eliminated.
"""

from __future__ import annotations

from random import Random

from engine.helium3.bots import plan
from engine.helium3.bots.plan import Option, Plan
from engine.helium3.orders import Orders
from engine.helium3.state import Robot, State


def choose(state: State, seat: int, rng: Random) -> Orders:
    return plan.play(state, seat, bound, search)


def bound(p: Plan, i: int, r: Robot, base: float) -> float:
    return p.economy_bound(r, base)


def search(p: Plan, i: int, r: Robot, base: float, choice: Option | None) -> Option | None:
    return p.economy(i, r, base, choice)
