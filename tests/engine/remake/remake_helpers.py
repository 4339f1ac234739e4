"""Remake positions by hand: `scene` is `helpers.scene` for the helium3-remake ruleset.

A test starts from a state straight from `engine.new_game(ruleset="helium3-remake")`
whose helium is cleared and whose vehicles are exactly the ones the test places.
"""

from __future__ import annotations

import functools
from typing import Any

from helpers import Action, State, placed

import engine
from engine.core import Applied

RULESET = "helium3-remake"


@functools.cache
def _new_game(seed: int, seats: int, rounds: int) -> State:
    return engine.new_game(seed=seed, seats=seats, ruleset=RULESET, options={"rounds": rounds})


def scene(
    *robots: dict[str, Any],
    seats: int = 4,
    to_move: int = 1,
    money: dict[int, int] | None = None,
    helium: dict[tuple[int, int], int] | None = None,
    turn: int = 0,
    rounds: int = 20,
    round_no: int = 1,
    seed: int = 7,
) -> State:
    """A running remake match with no helium but `helium`, and exactly `robots` on it."""
    state = placed(_new_game(seed, seats, rounds), robots, to_move, money, helium, turn)
    state["round"] = round_no
    state["awaiting"] = [to_move]
    state["scores"] = {str(p["seat"]): p["money"] for p in state["players"]}
    return state


def deflect(robot_id: str, direction: str) -> Action:
    return {"robot": robot_id, "type": "deflect", "direction": direction}


def pass_turn(state: State) -> Applied:
    """The seat to move gives no action."""
    return engine.apply(state, {"seat": state["to_move"], "turn": state["turn"], "actions": []})
