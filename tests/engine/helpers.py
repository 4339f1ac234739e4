"""Building Helium 3 positions by hand for the rule tests.

A test starts from `scene(...)`: a state straight from `engine.new_game` whose
helium is cleared and whose robots are exactly the ones the test places, so each
test shows the whole position it is about. Robots placed with `bot(...)` are
active by default (in play, able to be destroyed); pass `active=False` for a
robot that has not acted yet.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import engine
from engine.core import Applied
from engine.errors import EngineError

State = dict[str, Any]
Action = dict[str, Any]


def bot(robot_id: str, x: int, y: int, **fields: Any) -> dict[str, Any]:
    """A robot's JSON; the seat is read from the id ("3-2" is seat 3)."""
    robot: dict[str, Any] = {
        "id": robot_id,
        "seat": int(robot_id.split("-")[0]),
        "x": x,
        "y": y,
        "facing": "N",
        "active": True,
        "armed": None,
        "shield": False,
        "deflect": None,
        "mined": 0,
        "alive": True,
    }
    unknown = set(fields) - set(robot)
    assert not unknown, f"not robot fields: {unknown}"
    robot.update(fields)
    return robot


def scene(
    *robots: dict[str, Any],
    seats: int = 4,
    to_move: int = 1,
    money: dict[int, int] | None = None,
    helium: dict[tuple[int, int], int] | None = None,
    turn: int = 0,
    clock_ms: int = 0,
    length_ms: int = 600_000,
    seed: int = 7,
) -> State:
    """A running match with no helium but `helium`, and exactly `robots` on the board."""
    state = placed(_new_game(seed, seats, length_ms), robots, to_move, money, helium, turn)
    state["clock_ms"] = clock_ms
    return state


def placed(
    new_game: State,
    robots: tuple[dict[str, Any], ...],
    to_move: int,
    money: dict[int, int] | None,
    helium: dict[tuple[int, int], int] | None,
    turn: int,
) -> State:
    """A copy of a fresh match (of Helium 3 or a variant) with no helium but `helium`,
    exactly `robots`, the players' `money`, and `to_move` to play turn `turn`."""
    state = copy.deepcopy(new_game)
    state["helium"] = [[0] * state["width"] for _ in range(state["height"])]
    for (x, y), amount in (helium or {}).items():
        state["helium"][y][x] = amount
    state["robots"] = [copy.deepcopy(r) for r in robots]
    for player in state["players"]:
        player["money"] = (money or {}).get(player["seat"], 0)
    state["to_move"] = to_move
    state["turn"] = turn
    return state


@functools.cache
def _new_game(seed: int, seats: int, length_ms: int) -> State:
    """engine.new_game, once per arguments: map generation is the slow part of a scene."""
    return engine.new_game(seed=seed, seats=seats, length_ms=length_ms)


def orders(state: State, *actions: Action, seat: int | None = None) -> dict[str, Any]:
    """Orders for the seat to move (or `seat`) at the state's turn."""
    return {
        "seat": state["to_move"] if seat is None else seat,
        "turn": state["turn"],
        "actions": [dict(a) for a in actions],
    }


def act(state: State, *actions: Action) -> Applied:
    """Resolve one turn of the seat to move; the input state must come back unchanged."""
    before = copy.deepcopy(state)
    applied = engine.apply(state, orders(state, *actions))
    assert state == before, "apply changed its input state"
    return applied


def reject(state: State, *actions: Action, code: str, seat: int | None = None) -> dict[str, Any]:
    """Assert the turn is refused with `code` and changes nothing; returns the error body."""
    return reject_orders(state, orders(state, *actions, seat=seat), code=code)


def reject_orders(state: Any, given: Any, *, code: str) -> dict[str, Any]:
    before_state = copy.deepcopy(state)
    before_orders = copy.deepcopy(given)
    with pytest.raises(EngineError) as caught:
        engine.apply(state, given)
    assert state == before_state, "a rejected turn changed the state"
    assert given == before_orders, "a rejected turn changed the orders"
    body = caught.value.to_json()["error"]
    assert body["code"] == code, body
    assert_one_sentence(body["message"])
    return dict(body)


def assert_one_sentence(message: str) -> None:
    """A message a person can act on: one line, one sentence, ending with a full stop."""
    assert isinstance(message, str) and message, message
    assert "\n" not in message and "Traceback" not in message, message
    assert message[0].isupper() or message[0] in "'\"", message
    assert message.endswith("."), message
    assert not re.search(r"[.!?]\s+[A-Z]", message[:-1]), f"more than one sentence: {message}"


def robot(state: State, robot_id: str) -> dict[str, Any]:
    for r in state["robots"]:
        if r["id"] == robot_id:
            return dict(r)
    raise AssertionError(f"no robot {robot_id}")


def cell(state: State, robot_id: str) -> tuple[int, int]:
    r = robot(state, robot_id)
    return (r["x"], r["y"])


def alive(state: State, robot_id: str) -> bool:
    return bool(robot(state, robot_id)["alive"])


def helium_at(state: State, x: int, y: int) -> int:
    return int(state["helium"][y][x])


def money(state: State, seat: int) -> int:
    for p in state["players"]:
        if p["seat"] == seat:
            return int(p["money"])
    raise AssertionError(f"no seat {seat}")


def total_helium(state: State) -> int:
    return sum(sum(row) for row in state["helium"])


def events(applied: Applied, kind: str) -> list[dict[str, Any]]:
    """The events of one type, in order."""
    return [e for e in applied.events if e["type"] == kind]


def types(applied: Applied) -> list[str]:
    return [e["type"] for e in applied.events]


def end_of(applied: Applied) -> int:
    """When the last event of the timeline ends."""
    return max(e["t_ms"] + e["duration_ms"] for e in applied.events)


def move(robot_id: str, x: int, y: int, **extra: Any) -> Action:
    return {"robot": robot_id, "type": "move", "to": [x, y], **extra}


def fire_laser(robot_id: str, direction: str) -> Action:
    return {"robot": robot_id, "type": "fire_laser", "direction": direction}


def fire_missile(robot_id: str, x: int, y: int) -> Action:
    return {"robot": robot_id, "type": "fire_missile", "target": [x, y]}


def kamikaze(robot_id: str) -> Action:
    return {"robot": robot_id, "type": "kamikaze"}


def mine(robot_id: str, *to: int) -> Action:
    action: Action = {"robot": robot_id, "type": "mine"}
    if to:
        action["to"] = list(to)
    return action


def shield(robot_id: str, *to: int, deflect: str | None = None) -> Action:
    action: Action = {"robot": robot_id, "type": "shield"}
    if to:
        action["to"] = list(to)
    if deflect is not None:
        action["deflect"] = deflect
    return action


def arm(robot_id: str, weapon: str, *to: int) -> Action:
    action: Action = {"robot": robot_id, "type": f"arm_{weapon}"}
    if to:
        action["to"] = list(to)
    return action


ROOT = Path(__file__).resolve().parents[2]


def read_json(path: Path) -> dict[str, Any]:
    """A JSON object from a file (a golden replay)."""
    with open(path, encoding="utf-8") as fh:
        data: dict[str, Any] = json.load(fh)
    return data


def named_tests_missing(text: str, files: str, here: Path) -> tuple[int, list[str]]:
    """The `file.py::test_name` references in a rules document whose file matches the
    pattern `files`: how many there are, and those naming no test function in a file of
    that name in `here` or a folder below it."""
    named = re.findall(rf"`({files}\.py)::(test_\w+)`", text)
    missing = [
        f"{f}::{t}"
        for f, t in named
        if not any(
            re.search(rf"^def {t}\(", path.read_text(encoding="utf-8"), re.M)
            for path in here.rglob(f)
        )
    ]
    return len(named), missing


def digest(state: State) -> str:
    """The sha256 of a state's canonical JSON (sorted keys, no spaces): what golden
    replays pin."""
    canonical = json.dumps(state, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def engine_cli(
    *args: str, stdin: str | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """`python -m engine ARGS` in a fresh process from the repository's root, as a
    bot author runs it (test_cli.py has its own, for byte-level input)."""
    return subprocess.run(
        [sys.executable, "-m", "engine", *args],
        input=stdin,
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=timeout,
    )
