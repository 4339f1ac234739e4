"""Halite's orders (halite.md "Orders"): `{"seat", "turn", "moves": [[x, y, direction]]}`,
checked one seat at a time; a refused order changes nothing."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from halite_helpers import EAST, FAR_CORNER, cell, orders, position, turn

import engine


def two_seats() -> dict[str, Any]:
    return position({(2, 3): (1, 40), (3, 5): (1, 9), FAR_CORNER: (2, 30)})


def refused(state: dict[str, Any], given: Any) -> str:
    kept = copy.deepcopy(state)
    with pytest.raises(engine.EngineError) as caught:
        engine.check(state, given)
    code = caught.value.code
    other = orders(state, 2) if given.get("seat") != 2 else orders(state, 1)
    both = sorted([given, other], key=lambda o: o["seat"] if type(o["seat"]) is int else 0)
    with pytest.raises(engine.EngineError) as again:
        engine.apply(state, both)
    assert again.value.code == code
    assert state == kept
    return code


def test_a_move_of_a_cell_the_seat_does_not_own_is_not_your_piece() -> None:
    state = two_seats()
    assert refused(state, orders(state, 1, [[6, 6, EAST]])) == "not_your_piece"
    assert refused(state, orders(state, 1, [[0, 0, EAST]])) == "not_your_piece"


def test_a_cell_named_twice_is_a_duplicate_piece() -> None:
    state = two_seats()
    assert refused(state, orders(state, 1, [[2, 3, EAST], [2, 3, 0]])) == "duplicate_piece"


def test_a_direction_outside_0_to_4_is_a_bad_direction() -> None:
    state = two_seats()
    for direction in (5, -1, "n", 1.0, None, True):
        assert refused(state, orders(state, 1, [[2, 3, direction]])) == "bad_direction"


def test_a_cell_off_the_board_is_off_board() -> None:
    state = two_seats()
    for x, y in ((7, 0), (0, 7), (-1, 3)):
        assert refused(state, orders(state, 1, [[x, y, EAST]])) == "off_board"


def test_orders_not_of_the_documented_shape_are_bad_shape() -> None:
    state = two_seats()
    for moves in ([[2, 3]], [[2, 3, 1, 0]], [(2, 3, 1)], [["2", 3, 1]], [[2, 3.0, 1]], "2 3 1"):
        assert refused(state, {"seat": 1, "turn": 0, "moves": moves}) == "bad_shape"
    assert refused(state, {"seat": 1, "turn": 0}) == "bad_shape"
    assert refused(state, {"seat": 1, "turn": 0, "moves": [], "extra": 1}) == "bad_shape"
    assert refused(state, {"seat": "1", "turn": 0, "moves": []}) == "bad_shape"


def test_orders_for_another_turn_are_stale() -> None:
    state = two_seats()
    assert refused(state, {"seat": 1, "turn": 1, "moves": []}) == "stale_turn"


def test_a_seat_not_in_play_is_not_awaited() -> None:
    state = position({(2, 3): (1, 40), (6, 6): (3, 30)}, seats=3)
    assert state["awaiting"] == [1, 3]
    with pytest.raises(engine.EngineError) as caught:
        engine.check(state, orders(state, 2))
    assert caught.value.code == "not_your_turn"
    with pytest.raises(engine.EngineError) as caught:
        engine.default_orders(state, 2)
    assert caught.value.code == "not_your_turn"


def test_no_orders_are_taken_once_the_match_is_over() -> None:
    final = turn(position({(2, 3): (1, 20), (3, 3): (2, 15)})).state
    with pytest.raises(engine.EngineError) as caught:
        engine.check(final, {"seat": 1, "turn": 1, "moves": []})
    assert caught.value.code == "match_over"
    with pytest.raises(engine.EngineError) as caught:
        engine.apply(final, [{"seat": 1, "turn": 1, "moves": []}])
    assert caught.value.code == "match_over"


def test_an_empty_list_of_moves_is_a_pass_and_is_the_default_orders() -> None:
    state = two_seats()
    assert engine.default_orders(state, 2) == {"seat": 2, "turn": 0, "moves": []}
    applied = engine.apply(state, [orders(state, 1), engine.default_orders(state, 2)])
    assert applied.events == []
    assert cell(applied.state, 2, 3) == (1, 40)


def test_every_seat_in_play_is_awaited_and_gives_orders_at_once() -> None:
    state = position({(2, 3): (1, 40), (0, 0): (2, 1), (6, 6): (3, 30)}, seats=3)
    assert engine.awaiting(state) == [1, 2, 3]
    with pytest.raises(engine.ShapeError):
        engine.apply(state, orders(state, 1))  # one seat's orders alone
    with pytest.raises(engine.ShapeError):
        engine.apply(state, [orders(state, 1), orders(state, 3)])  # seat 2's missing
    with pytest.raises(engine.ShapeError):
        engine.apply(state, [orders(state, 3), orders(state, 2), orders(state, 1)])


def test_the_ruleset_refuses_a_list_of_orders_not_in_seat_order_on_its_own_too() -> None:
    from engine.halite import RULESET

    state = two_seats()
    with pytest.raises(engine.ShapeError):
        RULESET.apply(state, [orders(state, 2), orders(state, 1)])
    with pytest.raises(engine.ShapeError):
        RULESET.apply(state, [orders(state, 1)])
