"""`random`: uniformly random legal orders.

It gives actions to 0 to all of its vehicles (a uniform count), picked uniformly and
in random order; for each, a uniformly random legal action type, then uniformly
random legal details. Each action is drawn on the board the previous ones leave.
"""

from __future__ import annotations

from random import Random

from engine.helium3.board import DIRECTIONS
from engine.helium3.bots.random_bot import random_orders
from engine.remake.moves import action_kinds, destinations, missile_targets, simple_action
from engine.remake.orders import Action, Orders
from engine.remake.resolve import Turn
from engine.remake.state import State


def choose(state: State, seat: int, rng: Random) -> Orders:
    return random_orders(Turn(state), seat, None, rng, random_action)


def random_action(turn: Turn, i: int, rng: Random) -> Action:
    robot = turn.state.robots[i]
    kind = rng.choice(action_kinds(robot))
    if kind == "fire_missile":
        return simple_action(robot, kind, rng.choice(missile_targets(turn.state, robot)))
    if kind in ("fire_laser", "deflect"):
        return simple_action(robot, kind, direction=rng.choice(DIRECTIONS))
    if kind == "kamikaze":
        return simple_action(robot, kind)
    return simple_action(robot, kind, rng.choice(destinations(turn, robot, kind)))
