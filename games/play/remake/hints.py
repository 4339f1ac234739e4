"""Where each of the viewer's vehicles may go or shoot: the remake planner's hints.

As for Helium 3 (games/play/helium3/hints.py), hints are computed by the engine on
the board the seat believes in: its view, every vehicle it sees no shield on taken
as unshielded, which is the board the engine judges the seat's orders on. A turn
has up to five actions, one per vehicle, each on the board the previous ones leave:
`hints_after` resolves the actions planned so far with the engine on that believed
board and gives the hints of the vehicles not yet given one, or the engine's error.
"""

from __future__ import annotations

from typing import Any

import engine
from engine.errors import OrdersError
from engine.helium3.board import DIRECTIONS
from engine.remake import api
from engine.remake.moves import action_kinds, missile_targets, reachable
from engine.remake.orders import MAX_ACTIONS, MOVE_RANGE, Action, Orders, parse_action
from engine.remake.resolve import MINE_PER_CELL, Turn
from engine.remake.state import Robot, State
from games.play.helium3.hints import believed_state, check_due, hints_due

MAX_REACH = max(MOVE_RANGE.values())
# The engine's mining rule (Turn.mine): MINE_PER_CELL from each cell of the 3x3 that
# holds the whole of it, nothing from one that holds less.
MINING = {"centre": MINE_PER_CELL, "around": MINE_PER_CELL, "whole": True}

__all__ = ["hints_after", "hints_due", "hints_for", "planner_hints"]


def _reach_string(turn: Turn, robot: Robot, width: int, height: int) -> str:
    """One character a cell, row-major: the king steps to reach it, or '.'."""
    cells = ["."] * (width * height)
    for (x, y), d in reachable(turn, robot, MAX_REACH).items():
        cells[y * width + x] = str(d)
    return "".join(cells)


def _laser(
    origin: State, seat: int, planned: tuple[Action, ...], robot: Robot, direction: str
) -> dict[str, Any]:
    """The beam as the engine fires it after the planned actions, and what it destroys."""
    orders = Orders(
        seat, origin.turn, (*planned, Action(robot.id, "fire_laser", direction=direction))
    )
    _new, events, _ms = api.play(origin, orders)
    beam = [e for e in events if e["type"] == "laser" and e["robot"] == robot.id][-1]
    start = beam["t_ms"]
    end = start + beam["duration_ms"]
    hit = [e["robot"] for e in events if e["type"] == "destroyed" and start <= e["t_ms"] <= end]
    return {"segments": beam["segments"], "destroys": hit}


def _robot_hints(
    board: State, origin: State, seat: int, planned: tuple[Action, ...], robot: Robot, turn: Turn
) -> dict[str, Any]:
    kinds = action_kinds(robot)
    hint: dict[str, Any] = {
        "x": robot.x,
        "y": robot.y,
        "kinds": kinds,
        "reach": _reach_string(turn, robot, board.width, board.height),
    }
    if "fire_missile" in kinds:
        mask = ["0"] * (board.width * board.height)
        for x, y in missile_targets(board, robot):
            mask[y * board.width + x] = "1"
        hint["missile"] = "".join(mask)
    if "fire_laser" in kinds:
        hint["laser"] = {d: _laser(origin, seat, planned, robot, d) for d in DIRECTIONS}
    if "deflect" in kinds:
        hint["deflect"] = robot.deflect
    return hint


def _hints_on(
    board: State, origin: State, seat: int, planned: tuple[Action, ...] = ()
) -> dict[str, Any]:
    """Hints on `board` for the vehicles not yet planned; lasers replayed from `origin`."""
    turn = Turn(board)
    done = {a.robot for a in planned}
    robots = {
        r.id: _robot_hints(board, origin, seat, planned, r, turn)
        for r in board.robots
        if r.seat == seat and r.alive and r.id not in done
    }
    return {
        "seat": seat,
        "turn": origin.turn,
        "w": board.width,
        "h": board.height,
        "ranges": MOVE_RANGE,
        "max_actions": MAX_ACTIONS,
        "mining": MINING,
        "planned": len(planned),
        "robots": robots,
    }


def hints_for(view: dict[str, Any]) -> dict[str, Any]:
    """Hints for every living vehicle of the viewer's seat on the view's board.

    Raises the engine's OrdersError unless the view is the viewer's turn (hints_due).
    """
    seat = check_due(view)
    state = State.from_json(believed_state(view))
    return _hints_on(state, state, seat)


def planner_hints(view: dict[str, Any]) -> dict[str, Any] | None:
    """The hints of the viewer's own turn; None on any other view."""
    return hints_for(view) if hints_due(view) else None


def hints_after(view: dict[str, Any], planned: list[Any]) -> dict[str, Any]:
    """Hints for the next action after the `planned` ones (protocol JSON, in order), or
    the engine's error for them.

    The answer carries the planned actions' events (the viewer's own copy) and where
    every vehicle stands afterwards, so the page can draw the board they leave.
    """
    try:
        seat = check_due(view)
        if len(planned) >= MAX_ACTIONS:
            raise OrdersError(
                "too_many_actions",
                f"A turn has at most {MAX_ACTIONS} actions, one per vehicle; all are planned.",
            )
        believed = believed_state(view)
        orders = {"seat": seat, "turn": view["turn"], "actions": list(planned)}
        applied = engine.apply(believed, orders)
        actions = tuple(parse_action(a, i) for i, a in enumerate(planned))
    except engine.EngineError as error:
        return error.to_json()
    after = State.from_json(applied.state)
    hints = _hints_on(after, State.from_json(believed), seat, actions)
    hints["first"] = {
        "events": engine.events_view(applied.events, seat),
        "robots": [
            {"id": r.id, "x": r.x, "y": r.y, "alive": r.alive, "facing": r.facing}
            for r in after.robots
        ],
    }
    return hints
