"""Legal actions for one robot on a board, for bots and for the board page's hints."""

from __future__ import annotations

from collections import deque

from engine.helium3.board import DELTAS, DIRECTIONS
from engine.helium3.orders import MISSILE_RANGE, Action, Cell
from engine.helium3.resolve import Turn
from engine.helium3.state import Robot, State

MOVING = ("move", "mine", "arm_missile", "arm_laser", "shield")


def reachable(turn: Turn, robot: Robot, reach: int) -> dict[Cell, int]:
    """Every cell robot can end on within `reach` king steps over free cells, with distance."""
    w, h = turn.width, turn.height
    occ = turn.occ
    start = (robot.x, robot.y)
    dist = {start: 0}
    frontier = deque((start,))
    while frontier:
        x, y = frontier.popleft()
        d = dist[(x, y)]
        if d == reach:
            continue
        for ex, ey in DELTAS.values():
            nx, ny = x + ex, y + ey
            if 0 <= nx < w and 0 <= ny < h and (nx, ny) not in dist and ny * w + nx not in occ:
                dist[(nx, ny)] = d + 1
                frontier.append((nx, ny))
    return dist


def action_kinds(robot: Robot) -> list[str]:
    """The action types robot may take now (fire only with the weapon armed)."""
    kinds = list(MOVING)
    if robot.armed == "missile":
        kinds.append("fire_missile")
    if robot.armed == "laser":
        kinds.append("fire_laser")
    kinds.append("kamikaze")
    return kinds


def missile_targets(state: State, robot: Robot, r: int = MISSILE_RANGE) -> list[Cell]:
    """The cells a missile of range `r` from robot can hit."""
    return [
        (x, y)
        for y in range(max(0, robot.y - r), min(state.height, robot.y + r + 1))
        for x in range(max(0, robot.x - r), min(state.width, robot.x + r + 1))
        if (x, y) != (robot.x, robot.y)
    ]


def destinations(turn: Turn, robot: Robot, kind: str) -> list[Cell]:
    """Where a `kind` action can take robot, at the turn's ruleset's range."""
    return list(reachable(turn, robot, turn.move_range[kind]))


def simple_action(
    robot: Robot, kind: str, cell: Cell | None = None, extra: str | None = None
) -> Action:
    """An action of `kind` for robot; `cell` is the destination or target, `extra` a direction."""
    if kind == "fire_missile":
        return Action(robot.id, kind, target=cell)
    if kind == "fire_laser":
        return Action(robot.id, kind, direction=extra or DIRECTIONS[0])
    if kind == "kamikaze":
        return Action(robot.id, kind)
    if kind == "shield":
        return Action(robot.id, kind, to=cell, deflect=extra)
    return Action(robot.id, kind, to=cell)
