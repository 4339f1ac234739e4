"""Halite's state JSON (halite.md "State (protocol JSON)"): any state of the documented
shape is accepted, an inconsistent one is refused with `bad_state` and changes nothing."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from halite_helpers import EAST, position, turn

import engine
from engine.halite.state import State


def spec_state() -> dict[str, Any]:
    """The state exactly as halite.md's example has it: 20 x 20, three seats, turn 0,
    only the documented fields."""
    owner = [[0] * 20 for _ in range(20)]
    strength = [[(x * 7 + y * 13) % 120 for x in range(20)] for y in range(20)]
    production = [[(x + 2 * y) % 8 for x in range(20)] for y in range(20)]
    for seat, (x, y) in enumerate([(1, 0), (10, 6), (15, 15)], start=1):
        owner[y][x] = seat
        strength[y][x] = 255
    return {
        "ruleset": "halite", "seed": 7, "width": 20, "height": 20, "turn": 0,
        "max_turns": 200, "owner": owner, "strength": strength,
        "production": production, "seats": 3, "alive": [1, 2, 3],
        "eliminated": [], "territory_total": {"1": 1, "2": 1, "3": 1},
        "awaiting": [1, 2, 3], "scores": {"1": 1, "2": 1, "3": 1},
        "over": False, "winners": [], "ranking": [],
    }  # fmt: skip


def test_a_state_built_exactly_as_documented_is_accepted_and_plays_a_turn() -> None:
    state = spec_state()
    kept = copy.deepcopy(state)
    applied = turn(state, {1: [[1, 0, EAST]], 3: [[15, 15, 1]]})
    assert state == kept
    after = applied.state
    assert after["turn"] == 1
    assert after["owner"][0][2] == 1
    assert after["strength"][0][2] == 255 - state["strength"][0][2]
    assert after["owner"][14][15] == 3
    assert after["strength"][6][10] == 255  # still: 255 + production, capped
    assert after["territory_total"] == {"1": 3, "2": 2, "3": 3}
    assert engine.view(state, 2)["viewer"] == 2
    assert engine.awaiting(state) == [1, 2, 3]
    assert engine.scores(state) == {"1": 1, "2": 1, "3": 1}


def test_the_state_round_trips_through_its_json_exactly() -> None:
    state = engine.new_game(seed=5, seats=4, ruleset="halite", options={"width": 16, "height": 12})
    assert State.from_json(state).to_json() == state
    assert json.loads(json.dumps(state)) == state


def test_a_new_state_carries_every_documented_field_and_the_seat_list() -> None:
    state = engine.new_game(seed=5, seats=3, ruleset="halite", options={"width": 12, "height": 12})
    documented = set(spec_state())
    assert documented <= set(state)
    assert set(state) - documented == {"players"}
    assert state["players"] == [{"seat": 1}, {"seat": 2}, {"seat": 3}]


def broken(change: str) -> dict[str, Any]:
    state = spec_state()
    if change == "short row":
        state["owner"][3].pop()
    elif change == "missing row":
        state["strength"].pop()
    elif change == "strength 256":
        state["strength"][2][2] = 256
    elif change == "strength -1":
        state["strength"][2][2] = -1
    elif change == "production 16":
        state["production"][0][0] = 16
    elif change == "owner beyond the seats":
        state["owner"][9][9] = 4
    elif change == "a float":
        state["strength"][1][1] = 1.5
    elif change == "a string":
        state["production"][1][1] = "3"
    elif change == "alive disagrees":
        state["alive"] = [1, 2]
    elif change == "awaiting disagrees":
        state["awaiting"] = [1, 3]
    elif change == "scores disagree":
        state["scores"] = {"1": 2, "2": 1, "3": 1}
    elif change == "max_turns wrong":
        state["max_turns"] = 300
    elif change == "turn beyond max_turns":
        state["turn"] = 201
    elif change == "over while seats play":
        state["over"] = True
    elif change == "winners before the end":
        state["winners"] = [1]
    elif change == "eliminated seat owns a cell":
        state["eliminated"] = [2]
    elif change == "territory_total missing a seat":
        del state["territory_total"]["3"]
    elif change == "territory_total of 0":
        state["territory_total"]["2"] = 0
    elif change == "seats out of range":
        state["seats"] = 7
    elif change == "width 2":
        state["width"] = 2
    elif change == "no height":
        del state["height"]
    elif change == "another ruleset":
        state["ruleset"] = "helium3-remake"
    elif change == "players disagree":
        state["players"] = [{"seat": 1}]
    else:
        raise AssertionError(change)
    return state


BROKEN = [
    "short row", "missing row", "strength 256", "strength -1", "production 16",
    "owner beyond the seats", "a float", "a string", "alive disagrees", "awaiting disagrees",
    "scores disagree", "max_turns wrong", "turn beyond max_turns", "over while seats play",
    "winners before the end", "eliminated seat owns a cell", "territory_total missing a seat",
    "territory_total of 0", "seats out of range", "width 2", "no height", "another ruleset",
    "players disagree",
]  # fmt: skip


@pytest.mark.parametrize("change", BROKEN)
def test_an_inconsistent_state_is_a_bad_state(change: str) -> None:
    state = broken(change)
    kept = copy.deepcopy(state)
    # Orders as the broken state asks for them, so nothing but the state is wrong.
    awaited = state["awaiting"] if isinstance(state.get("awaiting"), list) else [1, 2, 3]
    orders = [{"seat": s, "turn": state.get("turn"), "moves": []} for s in awaited]
    with pytest.raises(engine.EngineError) as caught:
        engine.apply(state, orders)
    assert caught.value.code == "bad_state"
    assert state == kept
    with pytest.raises(engine.StateError):
        engine.view(state, None)


def test_a_state_that_is_not_an_object_is_a_bad_state() -> None:
    for state in (None, [], "halite", 3):
        with pytest.raises(engine.StateError):
            State.from_json(state)


def test_a_finished_state_needs_its_winners_and_a_full_ranking() -> None:
    final = turn(position({(2, 3): (1, 20), (3, 3): (2, 15)})).state
    assert State.from_json(final).to_json() == final
    for key, value in (("winners", []), ("ranking", [1])):
        changed = dict(final, **{key: value})
        with pytest.raises(engine.StateError):
            State.from_json(changed)
