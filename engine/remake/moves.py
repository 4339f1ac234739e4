"""Legal actions for one vehicle on a remake board, for bots and the board's hints."""

from __future__ import annotations

from engine.helium3.board import DIRECTIONS
from engine.helium3.moves import reachable
from engine.helium3.state import Robot, State
from engine.remake.orders import MISSILE_RANGE, MOVE_RANGE, MOVING, Action, Cell
from engine.remake.resolve import Turn

__all__ = ["action_kinds", "destinations", "missile_targets", "reachable", "simple_action"]


def action_kinds(robot: Robot) -> list[str]:
    """The action types the vehicle may take now (fire with the weapon armed, deflect
    with the shield up)."""
    kinds = list(MOVING)
    if robot.armed == "missile":
        kinds.append("fire_missile")
    if robot.armed == "laser":
        kinds.append("fire_laser")
    if robot.shield:
        kinds.append("deflect")
    kinds.append("kamikaze")
    return kinds


def missile_targets(state: State, robot: Robot) -> list[Cell]:
    r = MISSILE_RANGE
    return [
        (x, y)
        for y in range(max(0, robot.y - r), min(state.height, robot.y + r + 1))
        for x in range(max(0, robot.x - r), min(state.width, robot.x + r + 1))
        if (x, y) != (robot.x, robot.y)
    ]


def destinations(turn: Turn, robot: Robot, kind: str) -> list[Cell]:
    return list(reachable(turn, robot, MOVE_RANGE[kind]))


def simple_action(
    robot: Robot, kind: str, cell: Cell | None = None, direction: str | None = None
) -> Action:
    """An action of `kind`; `cell` is the destination or target, `direction` the laser's
    or the deflect's."""
    if kind == "fire_missile":
        return Action(robot.id, kind, target=cell)
    if kind in ("fire_laser", "deflect"):
        return Action(robot.id, kind, direction=direction or DIRECTIONS[0])
    if kind == "kamikaze":
        return Action(robot.id, kind)
    return Action(robot.id, kind, to=cell)
