"""The arena's state as protocol JSON (docs/games/arena.md): the board, the parts a robot
is built from, and `parse`, every check a state from outside must pass.

The state stays the plain JSON object the spec shows; `parse` checks every field and
returns a copy to work on (`checked` the state itself, for reading only), so a refused
build or step leaves the given state as it was.
"""

from __future__ import annotations

import copy
from typing import Any

from engine.errors import StateError

WIDTH = HEIGHT = 10
BASE_HEALTH = 10
# part -> (kind, capacity it takes, strength: steps, radius, extra health or damage)
PARTS: dict[str, tuple[str, int, int]] = {
    "engine1": ("engine", 2, 2),
    "engine2": ("engine", 4, 4),
    "engine3": ("engine", 6, 6),
    "radar1": ("radar", 2, 1),
    "radar2": ("radar", 4, 3),
    "radar3": ("radar", 6, 6),
    "shield1": ("shield", 2, 2),
    "shield2": ("shield", 4, 4),
    "shield3": ("shield", 6, 8),
    "gun": ("weapon", 2, 3),
    "cannon": ("weapon", 4, 8),
}
SEAT_COUNTS = (2, 3, 4)
DEFAULT_ROUNDS, MIN_ROUNDS, MAX_ROUNDS = 40, 10, 200
DIRECTIONS = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}


def is_int(value: Any) -> bool:
    return type(value) is int


def parse(state: Any) -> dict[str, Any]:
    """A deep copy of `state` once it is checked to be an arena state that can be."""
    return copy_state(checked(state))


_ATOMS = (int, str, bool, float, type(None))


def copy_value(value: Any) -> Any:
    """A deep copy of a JSON value (dicts, lists and atoms), as `copy.deepcopy` makes
    it but without its memo, which a JSON tree does not need."""
    kind = type(value)
    if kind in _ATOMS:
        return value
    if kind is dict:
        return {k: v if type(v) in _ATOMS else copy_value(v) for k, v in value.items()}
    if kind is list:
        return [v if type(v) in _ATOMS else copy_value(v) for v in value]
    return copy.deepcopy(value)


def copy_cells(cells: Any) -> Any:
    """A seat's knowledge, copied: a cell's record is a flat list ([what, seat, turn,
    step], as a scan writes it), copied as a list of its items. The engine never changes
    a record in place (a scan writes a new one), so a record from outside that nests
    more is never changed through the copy either."""
    if type(cells) is not dict:
        return copy_value(cells)
    return {k: v[:] if type(v) is list else copy_value(v) for k, v in cells.items()}


def copy_state(state: dict[str, Any]) -> dict[str, Any]:
    """A copy of a checked state to resolve on (with its `players`, when it had none)."""
    out: dict[str, Any] = {}
    for key, value in state.items():
        if type(value) in _ATOMS:
            out[key] = value
        elif key == "knowledge":
            out[key] = {seat: copy_cells(cells) for seat, cells in value.items()}
        else:
            out[key] = copy_value(value)
    out.setdefault("players", [{"seat": r + 1} for r in range(len(state["robots"]))])
    return out


def checked(state: Any) -> dict[str, Any]:
    """`state` itself (not a copy: for reading only) once it is checked to be an arena
    state that can be; `parse` copies it to work on."""
    if not isinstance(state, dict) or state.get("ruleset") != "arena":
        raise StateError("An arena state is an object with ruleset 'arena'.")
    needed = [
        "width",
        "height",
        "phase",
        "obstacles",
        "robots",
        "knowledge",
        "round",
        "rounds",
        "turn",
        "step",
        "awaiting",
        "scores",
        "over",
        "winners",
    ]
    missing = [k for k in needed if k not in state]
    if missing:
        raise StateError(f"The arena state lacks {', '.join(missing)}.")
    if state["width"] != WIDTH or state["height"] != HEIGHT:
        raise StateError("The arena is 10 x 10.")
    if state["phase"] not in ("build", "play"):
        raise StateError("The phase is build or play.")
    for name in ("round", "rounds", "turn", "step"):
        if not is_int(state[name]) or state[name] < 0:
            raise StateError(f"{name} is a whole number.")
    if not isinstance(state["over"], bool):
        raise StateError("over is true or false.")
    robots = state["robots"]
    if not isinstance(robots, list) or len(robots) not in SEAT_COUNTS:
        raise StateError("The arena has 2 to 4 robots.")
    if state.get("players", [{"seat": r + 1} for r in range(len(robots))]) != [
        {"seat": r + 1} for r in range(len(robots))
    ]:
        raise StateError("players lists each seat, one per robot.")
    obstacles = state["obstacles"]
    if not isinstance(obstacles, list) or any(
        not isinstance(c, list) or len(c) != 2 or not all(is_int(v) for v in c) for c in obstacles
    ):
        raise StateError("obstacles is a list of [x, y] cells.")
    cells = {(c[0], c[1]) for c in obstacles}
    for i, robot in enumerate(robots):
        if not isinstance(robot, dict) or robot.get("seat") != i + 1:
            raise StateError("Robots are listed by seat, from 1.")
        for name in ("x", "y", "health", "max_health", "steps_left", "reload"):
            if not is_int(robot.get(name)):
                raise StateError(f"Robot {i + 1}'s {name} is a whole number.")
        if not isinstance(robot.get("alive"), bool) or not isinstance(robot.get("shot"), bool):
            raise StateError(f"Robot {i + 1}'s alive and shot are true or false.")
        parts = robot.get("parts")
        if not isinstance(parts, list) or any(
            not isinstance(p, str) or p not in PARTS for p in parts
        ):
            raise StateError(f"Robot {i + 1}'s parts are known parts.")
        if robot["alive"]:
            at = (robot["x"], robot["y"])
            if not (0 <= at[0] < WIDTH and 0 <= at[1] < HEIGHT) or at in cells:
                raise StateError(f"Robot {i + 1} stands on no free cell.")
            cells.add(at)
    knowledge = state["knowledge"]
    if not isinstance(knowledge, dict) or set(knowledge) != {str(r["seat"]) for r in robots}:
        raise StateError("knowledge has an entry for each seat.")
    if any(not isinstance(k, dict) for k in knowledge.values()):
        raise StateError("Each seat's knowledge is an object of cells.")
    scores = state["scores"]
    if (
        not isinstance(scores, dict)
        or set(scores) != set(knowledge)
        or any(not is_int(v) for v in scores.values())
    ):
        raise StateError("scores has each seat's health.")
    if not isinstance(state["winners"], list) or any(not is_int(s) for s in state["winners"]):
        raise StateError("winners is a list of seats.")
    awaiting = state["awaiting"]
    if not isinstance(awaiting, list) or any(not is_int(s) for s in awaiting):
        raise StateError("awaiting is a list of seats.")
    if state["phase"] == "play" and not state["over"] and len(awaiting) != 1:
        raise StateError("In play one seat is awaited.")
    return state


def robot_of(state: dict[str, Any], seat: int) -> dict[str, Any]:
    robot: dict[str, Any] = state["robots"][seat - 1]
    return robot


def part_of(robot: dict[str, Any], kind: str) -> str | None:
    for part in robot["parts"]:
        if PARTS[part][0] == kind:
            return str(part)
    return None


def engine_steps(parts: list[str]) -> int:
    return sum(PARTS[p][2] for p in parts if PARTS[p][0] == "engine")


def radar_radius(parts: list[str]) -> int:
    return sum(PARTS[p][2] for p in parts if PARTS[p][0] == "radar")


def max_health(parts: list[str]) -> int:
    return BASE_HEALTH + sum(PARTS[p][2] for p in parts if PARTS[p][0] == "shield")


def distance(a: tuple[int, int], b: tuple[int, int]) -> int:
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))
