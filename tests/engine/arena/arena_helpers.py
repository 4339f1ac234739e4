"""Building arena states for tests: a played-in state with robots where a test puts them."""

from __future__ import annotations

import copy
from typing import Any

import pytest

import engine
from engine.errors import EngineError

State = dict[str, Any]


def built(
    *builds: list[str], seed: int = 1, rounds: int = 40, obstacles: list[list[int]] | None = None
) -> State:
    """A new game of len(builds) seats with those builds resolved: seat 1 to play."""
    state = engine.new_game(
        seed=seed, seats=len(builds), ruleset="arena", options={"rounds": rounds}
    )
    if obstacles is not None:
        state["obstacles"] = obstacles
    orders = [{"seat": s, "turn": 0, "build": list(b)} for s, b in enumerate(builds, 1)]
    return engine.apply(state, orders).state


def place(state: State, seat: int, x: int, y: int) -> State:
    robot = state["robots"][seat - 1]
    robot["x"], robot["y"] = x, y
    return state


def step(state: State, kind: str, **fields: Any) -> engine.Applied:
    seat = state["awaiting"][0] if state["awaiting"] else 1
    orders = {
        "seat": seat,
        "turn": state["turn"],
        "step_no": state["step"],
        "step": {"type": kind, **fields},
    }
    return engine.apply(state, orders)


def play(state: State, kind: str, **fields: Any) -> State:
    return step(state, kind, **fields).state


def refuse(state: State, kind: str, code: str, **fields: Any) -> str:
    """The step is refused with `code` and the state is unchanged; the message."""
    before = copy.deepcopy(state)
    with pytest.raises(EngineError) as caught:
        step(state, kind, **fields)
    assert caught.value.code == code, caught.value.message
    assert state == before
    return caught.value.message
