"""`random`: uniformly random legal orders.

It gives actions to 0 to all of its vehicles (a uniform count), picked uniformly and
in random order; for each, a uniformly random legal action type, then uniformly
random legal details. Each action is drawn on the board the previous ones leave.
"""

from __future__ import annotations

from random import Random

from engine.helium3.board import DIRECTIONS
from engine.remake.moves import action_kinds, destinations, missile_targets, simple_action
from engine.remake.orders import Action, Orders
from engine.remake.resolve import Turn
from engine.remake.state import State


def choose(state: State, seat: int, rng: Random) -> Orders:
    mine = [r.id for r in state.robots if r.seat == seat and r.alive]
    chosen = rng.sample(mine, rng.randint(0, len(mine)))
    turn = Turn(state)
    actions: list[Action] = []
    for robot_id in chosen:
        i = turn.index[robot_id]
        if not turn.state.robots[i].alive:
            continue
        action = random_action(turn, i, rng)
        turn.perform(action, i, turn.check(action, i, len(actions)))
        actions.append(action)
    return Orders(seat, state.turn, tuple(actions))


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
