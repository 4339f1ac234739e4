"""Legal actions for one vehicle on a remake board, for bots and the board's hints."""

from __future__ import annotations

from engine.helium3 import moves as h3
from engine.helium3.board import DIRECTIONS
from engine.helium3.moves import destinations, reachable
from engine.helium3.state import Robot, State
from engine.remake.orders import MISSILE_RANGE, Action, Cell

__all__ = ["action_kinds", "destinations", "missile_targets", "reachable", "simple_action"]


def action_kinds(robot: Robot) -> list[str]:
    """Helium 3's action types the vehicle may take now, and deflect with the shield up."""
    kinds = h3.action_kinds(robot)
    if robot.shield:
        kinds.insert(-1, "deflect")  # before kamikaze
    return kinds


def missile_targets(state: State, robot: Robot) -> list[Cell]:
    return h3.missile_targets(state, robot, MISSILE_RANGE)


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
