"""A finished remake match's result sentence speaks of its vehicles and rounds."""

from __future__ import annotations

import copy
from typing import Any

import engine
from games import presentation

REMAKE = "helium3-remake"


def _final(money: dict[int, int], alive: set[str], winners: list[int], how: str) -> dict[str, Any]:
    state = copy.deepcopy(engine.new_game(seed=4, seats=2, ruleset=REMAKE, options={"rounds": 5}))
    for robot in state["robots"]:
        robot["alive"] = robot["id"] in alive
    for player in state["players"]:
        player["money"] = money[player["seat"]]
    state.update(
        over=True, to_move=None, winners=winners, termination=how, round=5, awaiting=[],
        scores={str(s): m for s, m in money.items()},
    )  # fmt: skip
    return state


def test_a_money_win_is_told_after_the_last_round():
    final = _final({1: 900, 3: 400}, {"1-1", "3-2"}, [1], "rounds")
    assert presentation.get(REMAKE).decided(final, {1: "alice"}) == (
        "Seat 1 (alice) won on money: 900 to 400 after the last round."
    )


def test_the_last_seat_with_vehicles_wins_in_its_round():
    final = _final({1: 100, 3: 800}, {"1-1", "1-4"}, [1], "elimination")
    assert presentation.get(REMAKE).decided(final, {}) == (
        "Seat 1 won as the last seat with vehicles left (2 vehicles), in round 5 of 5."
    )
