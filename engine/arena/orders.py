"""Orders: a build's parts and one step of a turn (scan, move, shoot, end), read and
checked against the state without changing it; a refusal is an EngineError that says
what kind of wrong."""

from __future__ import annotations

from typing import Any

from engine.arena.state import (
    DIRECTIONS,
    HEIGHT,
    PARTS,
    WIDTH,
    distance,
    is_int,
    part_of,
    robot_of,
)
from engine.errors import OrdersError, ShapeError

CAPACITY = 10
WEAPON_RANGE = {"gun": 3, "cannon": 1}
# A seat that gives no build by the deadline gets this one: it can move, see and shoot.
DEFAULT_BUILD = ["engine1", "radar2", "shield1", "gun"]
# Steps of one turn beyond which only `end` is taken: a turn cannot grow without end.
STEP_LIMIT = 40
STEP_TYPES = ("scan", "move", "shoot", "end")


def read_build(parts: Any) -> list[str]:
    """The parts of a build, checked: known, one of each kind, within the capacity."""
    if not isinstance(parts, list) or any(not isinstance(p, str) for p in parts):
        raise ShapeError("bad_shape", "A build is a list of part names.")
    unknown = [p for p in parts if p not in PARTS]
    if unknown:
        raise OrdersError(
            "bad_build", f"{unknown[0][:20]!r} is no part; parts are {', '.join(PARTS)}."
        )
    kinds = [PARTS[p][0] for p in parts]
    for kind in kinds:
        if kinds.count(kind) > 1:
            raise OrdersError("bad_build", f"A robot has at most one {kind}.")
    used = sum(PARTS[p][1] for p in parts)
    if used > CAPACITY:
        raise OrdersError("bad_build", f"The parts take {used} capacity; a robot has {CAPACITY}.")
    return list(parts)


def read_header(state: dict[str, Any], orders: Any, field: str) -> int:
    allowed = {"seat", "turn", field} | ({"step_no"} if field == "step" else set())
    if not isinstance(orders, dict) or not {"seat", "turn", field} <= set(orders):
        raise ShapeError("bad_shape", f"Orders are an object with seat, turn and {field}.")
    if not set(orders) <= allowed:
        extra = sorted(set(orders) - allowed)[0]
        raise ShapeError("bad_shape", f"Orders have no field {extra[:20]!r} in this phase.")
    seat, turn = orders["seat"], orders["turn"]
    if not is_int(seat) or not is_int(turn):
        raise ShapeError("bad_shape", "seat and turn are whole numbers.")
    if state["over"]:
        raise OrdersError("match_over", "The match is over; no more orders are taken.")
    if seat not in state["awaiting"]:
        raise OrdersError("not_your_turn", f"Seat {seat} is not awaited now.")
    if turn != state["turn"]:
        raise OrdersError(
            "stale_turn", f"These orders are for turn {turn}; the match is at turn {state['turn']}."
        )
    if "step_no" in orders:
        step_no = orders["step_no"]
        if not is_int(step_no):
            raise ShapeError("bad_shape", "step_no is a whole number.")
        if step_no != state["step"]:
            raise OrdersError(
                "stale_turn", f"This is step {step_no}; the turn is at step {state['step']}."
            )
    return int(seat)


def check_step(state: dict[str, Any], seat: int, step: Any) -> None:
    """Raise unless `step` is legal for `seat` now (the state is not changed)."""
    if not isinstance(step, dict) or step.get("type") not in STEP_TYPES:
        raise ShapeError("bad_shape", "A step is an object whose type is scan, move, shoot or end.")
    kind = step["type"]
    fields = {"scan": {"type"}, "end": {"type"}, "move": {"type", "path"}}
    if set(step) != fields.get(kind, {"type", "target"}):
        raise ShapeError(
            "bad_shape",
            f"A {kind} step has fields {', '.join(sorted(fields.get(kind, {'type', 'target'})))}.",
        )
    if kind == "end":
        return
    if state["step"] >= STEP_LIMIT:
        raise OrdersError("illegal_step", f"A turn has at most {STEP_LIMIT} steps; end it.")
    robot = robot_of(state, seat)
    if kind == "scan":
        if part_of(robot, "radar") is None:
            raise OrdersError("illegal_step", "The robot has no radar to scan with.")
    elif kind == "move":
        walk(state, robot, step["path"])
    else:
        aim(state, robot, step["target"])


def walk(state: dict[str, Any], robot: dict[str, Any], path: Any) -> list[list[int]]:
    if (
        not isinstance(path, list)
        or not path
        or any(not isinstance(d, str) or d not in DIRECTIONS for d in path)
    ):
        raise ShapeError("bad_shape", "A path is a non-empty list of up, down, left, right.")
    if part_of(robot, "engine") is None:
        raise OrdersError("illegal_step", "The robot has no engine to move with.")
    if len(path) > robot["steps_left"]:
        raise OrdersError(
            "illegal_step",
            f"The path is {len(path)} steps; the engine has {robot['steps_left']} left this turn.",
        )
    blocked = {(c[0], c[1]) for c in state["obstacles"]}
    others = {
        (r["x"], r["y"]) for r in state["robots"] if r["alive"] and r["seat"] != robot["seat"]
    }
    x, y = robot["x"], robot["y"]
    cells: list[list[int]] = []
    for direction in path:
        dx, dy = DIRECTIONS[direction]
        x, y = x + dx, y + dy
        if not (0 <= x < WIDTH and 0 <= y < HEIGHT):
            raise OrdersError("off_board", f"Step {len(cells) + 1} of the path leaves the arena.")
        if (x, y) in blocked:
            raise OrdersError("blocked", f"An obstacle stands at ({x}, {y}).")
        if (x, y) in others:
            raise OrdersError("occupied", f"A robot stands at ({x}, {y}).")
        cells.append([x, y])
    return cells


def aim(state: dict[str, Any], robot: dict[str, Any], target: Any) -> tuple[str, int, int]:
    if not isinstance(target, list) or len(target) != 2 or not all(is_int(v) for v in target):
        raise ShapeError("bad_shape", "A target is a cell [x, y].")
    tx, ty = target
    if not (0 <= tx < WIDTH and 0 <= ty < HEIGHT):
        raise OrdersError("off_board", f"({tx}, {ty}) is outside the arena.")
    weapon = part_of(robot, "weapon")
    if weapon is None:
        raise OrdersError("not_armed", "The robot has no weapon.")
    if robot["shot"]:
        raise OrdersError("illegal_step", "The robot has already shot this turn.")
    if weapon == "cannon" and robot["reload"] > 0:
        raise OrdersError("illegal_step", "The cannon is loading: it fires every second turn.")
    far = distance((robot["x"], robot["y"]), (tx, ty))
    if far == 0:
        raise OrdersError("out_of_range", "A robot cannot shoot its own cell.")
    if far > WEAPON_RANGE[weapon]:
        raise OrdersError(
            "out_of_range",
            f"({tx}, {ty}) is {far} cells away; the {weapon} reaches {WEAPON_RANGE[weapon]}.",
        )
    return weapon, tx, ty
