"""Halite's `apply` checks every seat's orders itself (`apply_checks_orders`): the engine
does not check them first, and the errors are the ones a check first would give."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from halite_helpers import FAR_CORNER, orders, position

import engine


def two_seats() -> dict[str, Any]:
    return position({(2, 3): (1, 40), (3, 5): (1, 9), FAR_CORNER: (2, 30)})


def test_the_halite_ruleset_says_its_apply_checks_the_orders() -> None:
    assert engine.ruleset("halite").apply_checks_orders
    assert not engine.ruleset("helium3").apply_checks_orders


def test_bad_orders_are_refused_before_a_bad_state_beyond_the_header() -> None:
    state = two_seats()
    state["scores"] = {"1": 99, "2": 1}  # disagrees with the territory: a bad state
    kept = copy.deepcopy(state)
    given = [orders(state, 1), {"seat": 2, "turn": state["turn"], "moves": [[2, 3, 1]]}]
    with pytest.raises(engine.EngineError) as caught:
        engine.apply(state, given)
    assert caught.value.code == "not_your_piece"  # seat 2 does not own (2, 3)
    with pytest.raises(engine.EngineError) as checked:
        engine.check(state, given[1])
    assert checked.value.code == caught.value.code
    with pytest.raises(engine.EngineError) as bad_state:
        engine.apply(state, [orders(state, 1), orders(state, 2)])
    assert bad_state.value.code == "bad_state"
    assert state == kept


def test_the_first_seat_with_bad_orders_gives_the_error() -> None:
    state = two_seats()
    first = {"seat": 1, "turn": state["turn"], "moves": [[2, 3, 9]]}
    second = {"seat": 2, "turn": state["turn"], "moves": [[2, 3, 1]]}
    with pytest.raises(engine.EngineError) as caught:
        engine.apply(state, [first, second])
    assert caught.value.code == "bad_direction"
