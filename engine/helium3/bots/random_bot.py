"""`random`: uniformly random legal orders.

It gives 0, 1 or 2 actions (uniformly, as far as it has robots), to distinct robots
picked uniformly; for each, a uniformly random legal action type, then uniformly
random legal details. The second action is drawn on the board as the first leaves it.
"""

from __future__ import annotations

from collections.abc import Callable
from random import Random
from typing import TypeVar

from engine.helium3.board import DIRECTIONS
from engine.helium3.moves import action_kinds, destinations, missile_targets, simple_action
from engine.helium3.orders import MAX_ACTIONS, Action, Orders
from engine.helium3.resolve import Turn
from engine.helium3.state import State


def choose(state: State, seat: int, rng: Random) -> Orders:
    return random_orders(Turn(state), seat, MAX_ACTIONS, rng, random_action)


T = TypeVar("T", bound=Turn)


def random_orders(
    turn: T, seat: int, most: int | None, rng: Random, pick: Callable[[T, int, Random], Action]
) -> Orders:
    """Up to `most` actions (None: one per robot; a uniform count) for distinct robots of `seat`
    picked uniformly, each drawn by `pick` on the board the previous ones leave; a
    robot an earlier action destroyed gets none."""
    state = turn.state
    mine = [r.id for r in state.robots if r.seat == seat and r.alive]
    count = len(mine) if most is None else min(most, len(mine))
    chosen = rng.sample(mine, rng.randint(0, count))
    actions: list[Action] = []
    for robot_id in chosen:
        i = turn.index[robot_id]
        if not state.robots[i].alive:
            continue
        action = pick(turn, i, rng)
        turn.perform(action, i, turn.check(action, i, len(actions)))
        actions.append(action)
    return Orders(seat, state.turn, tuple(actions))


def random_action(turn: Turn, i: int, rng: Random) -> Action:
    robot = turn.state.robots[i]
    kind = rng.choice(action_kinds(robot))
    if kind == "fire_missile":
        return simple_action(robot, kind, rng.choice(missile_targets(turn.state, robot)))
    if kind == "fire_laser":
        return simple_action(robot, kind, extra=rng.choice(DIRECTIONS))
    if kind == "kamikaze":
        return simple_action(robot, kind)
    cell = rng.choice(destinations(turn, robot, kind))
    deflect = rng.choice((None, *DIRECTIONS)) if kind == "shield" else None
    return simple_action(robot, kind, cell, deflect)
