"""Where each of the viewer's robots may go or shoot: the board page's click hints.

Hints are computed by the engine on the board the seat *believes* in: its view,
with every robot it cannot see a shield on taken as unshielded. That is the board
the engine itself judges a seat's orders on (docs/games/helium3.md, "Turns"), so a
highlighted cell is a legal order and a laser's drawn path is the beam as far as
the player can know it (a hidden shield may still stop or turn it).

The second action is planned on the board the first one leaves: `hints_after`
resolves the first action with the engine on that believed board and computes the
hints there, or returns the engine's error for the first action.

Hints exist only for the seat to move, on the state of its own turn: the lasers are
played by the engine, which refuses another seat's turn, and a highlighted cell on a
board that is not the viewer's to play would promise an order it cannot send.
"""

from __future__ import annotations

from typing import Any

import engine
from engine.errors import OrdersError
from engine.helium3 import api
from engine.helium3.board import DIRECTIONS
from engine.helium3.bots.plan import reach_from
from engine.helium3.moves import action_kinds, missile_targets
from engine.helium3.orders import MOVE_RANGE, Action, Orders, parse_action
from engine.helium3.resolve import MINE_AROUND, MINE_CENTRE, Turn
from engine.helium3.state import Robot, State

MAX_REACH = max(MOVE_RANGE.values())
_STEPS = [str(steps) for steps in range(MAX_REACH + 1)]
# The engine's mining rule (Turn.mine), for the planner to say what a mine would take
# at each target from the board it draws: up to `centre` from the cell, `around` from
# each neighbour.
MINING = {"centre": MINE_CENTRE, "around": MINE_AROUND, "whole": False}


def hints_due(view: dict[str, Any]) -> bool:
    """True when the view is its viewer's own turn: a seat's view, of a match not
    over, with that seat to move."""
    viewer = view.get("viewer")
    return viewer is not None and not view["over"] and view["to_move"] == viewer


def check_due(view: dict[str, Any]) -> int:
    """The viewer's seat, or the engine's refusal when the view is not its turn."""
    viewer = view.get("viewer")
    if viewer is None:
        raise OrdersError("not_your_turn", "A spectator has no turn to plan.")
    if view["over"]:
        raise OrdersError("match_over", "The match is over; no more orders are taken.")
    if view["to_move"] != viewer:
        raise OrdersError(
            "not_your_turn", f"It is seat {view['to_move']}'s turn, not seat {viewer}'s."
        )
    return int(viewer)


def believed_state(view: dict[str, Any]) -> dict[str, Any]:
    """The state as the viewer's seat believes it: no shields it cannot see, seed 0.

    A new dict, and a new dict for each robot (those it fills in); every other value
    is the view's own, which nothing here or in the engine's parse changes (a deep
    copy of the whole view was about a tenth of a poll that brings a turn)."""
    state = {key: value for key, value in view.items() if key != "viewer"}
    state.setdefault("seed", 0)
    state["robots"] = [
        {**robot, "shield": robot.get("shield", False), "deflect": robot.get("deflect")}
        for robot in view["robots"]
    ]
    return state


def _reach_string(turn: Turn, robot: Robot, width: int, height: int) -> str:
    """One character a cell, row-major: the king steps to reach it, or '.'.

    The engine's `reachable` (a breadth-first search over free cells, up to MAX_REACH
    steps) by rings over cell numbers with the bots' neighbour table, made once per
    board size (`reach_from`): the same distances the engine gives, without its search
    making a tuple and testing the board's edges per step."""
    cells = ["."] * (width * height)
    start = robot.y * width + robot.x
    for cell, steps in reach_from(start, turn.occ, width, height, MAX_REACH).items():
        cells[cell] = _STEPS[steps]
    return "".join(cells)


def _laser(
    state: State, seat: int, first: Action | None, robot: Robot, direction: str
) -> dict[str, Any]:
    actions = (first,) if first is not None else ()
    orders = Orders(
        seat, state.turn, (*actions, Action(robot.id, "fire_laser", direction=direction))
    )
    _new, events, _ms = api.play(state, orders)
    beam = [e for e in events if e["type"] == "laser" and e["robot"] == robot.id][-1]
    start = beam["t_ms"]
    end = start + beam["duration_ms"]
    hit = [
        e["robot"]
        for e in events
        if e["type"] == "destroyed" and start <= e["t_ms"] <= end and e["t_ms"] >= start
    ]
    return {"segments": beam["segments"], "destroys": hit}


def _robot_hints(
    board: State, origin: State, seat: int, first: Action | None, robot: Robot, turn: Turn
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
        hint["laser"] = {d: _laser(origin, seat, first, robot, d) for d in DIRECTIONS}
    return hint


def _hints_on(
    board: State, origin: State, seat: int, first: Action | None = None
) -> dict[str, Any]:
    """Hints on `board`; lasers are replayed from `origin` after `first`, as the engine will."""
    turn = Turn(board)
    skip = first.robot if first is not None else None
    robots = {
        r.id: _robot_hints(board, origin, seat, first, r, turn)
        for r in board.robots
        if r.seat == seat and r.alive and r.id != skip
    }
    return {
        "seat": seat,
        "turn": origin.turn,
        "w": board.width,
        "h": board.height,
        "ranges": MOVE_RANGE,
        "mining": MINING,
        "robots": robots,
    }


def hints_for(view: dict[str, Any]) -> dict[str, Any]:
    """Hints for every living robot of the viewer's seat on the view's board.

    Raises the engine's OrdersError unless the view is the viewer's turn (hints_due).
    """
    seat = check_due(view)
    state = State.from_json(believed_state(view))
    return _hints_on(state, state, seat)


def hints_after(view: dict[str, Any], first: Any) -> dict[str, Any]:
    """Hints for the second action after `first` (protocol JSON), or the engine's error.

    The answer carries the first action's events (the viewer's own copy: its own
    action, on its believed board) and where every robot stands afterwards, so the
    page can draw the board as the first action leaves it.
    """
    try:
        seat = check_due(view)
        believed = believed_state(view)
        orders = {"seat": seat, "turn": view["turn"], "actions": [first]}
        applied = engine.apply(believed, orders)
        action = parse_action(first, 0)
    except engine.EngineError as error:
        return error.to_json()
    after = State.from_json(applied.state)
    hints = _hints_on(after, State.from_json(believed), seat, action)
    hints["first"] = {
        "events": engine.events_view(applied.events, seat),
        "robots": [
            {"id": r.id, "x": r.x, "y": r.y, "alive": r.alive, "facing": r.facing}
            for r in after.robots
        ],
    }
    return hints
