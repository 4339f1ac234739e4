"""What a turn leaves on its state for the next one (occupancy, living seats) and the
field-by-field copies: the next turn resolves as it would from the same position read
afresh from its JSON, and a copy has every field of the original."""

from __future__ import annotations

import dataclasses

from engine.helium3 import api, bots
from engine.helium3.orders import Action, Orders
from engine.helium3.state import Robot, State


def _played(seed: int, turns: int) -> State:
    state = api.new_state(seed, 4)
    for _ in range(turns):
        seat = state.to_move
        assert seat is not None
        state = api.play(state, bots.choose("random", state, seat))[0]
    return state


def _fresh(state: State) -> State:
    return State.from_json(state.to_json())


def test_a_copy_has_every_field_of_the_state_and_shares_no_list() -> None:
    state = _played(7, 30)
    copy = state.copy()
    for f in dataclasses.fields(State):
        if f.compare:
            assert getattr(copy, f.name) == getattr(state, f.name), f.name
    assert copy == state
    assert copy.helium is not state.helium and copy.robots is not state.robots
    assert copy.money is not state.money and copy.winners is not state.winners
    assert copy.derived() is None  # what a turn knew is not copied


def test_a_robot_copy_has_every_field() -> None:
    robot = Robot("1-1", 1, 3, 4, "NW", True, None, True, "E", 250, True)
    copy = robot.copy()
    assert copy == robot and copy is not robot
    assert [getattr(copy, f.name) for f in dataclasses.fields(Robot)] == [
        getattr(robot, f.name) for f in dataclasses.fields(Robot)
    ]


def test_the_next_turn_resolves_as_from_the_same_position_read_afresh() -> None:
    state = _played(11, 12)
    assert state.derived() is not None
    seat = state.to_move
    assert seat is not None
    orders = bots.choose("fighter", state, seat)
    kept = api.play(state, orders)
    afresh = api.play(_fresh(state), orders)
    assert kept[0].to_json() == afresh[0].to_json()
    assert kept[1:] == afresh[1:]


def test_a_robot_put_in_another_place_after_a_turn_is_seen_by_the_next_turn() -> None:
    # A robot replaced by a moved copy (robots are values) makes the state's occupancy
    # and living seats from the turn before stale: the next turn must not use them.
    state = _played(3, 8)
    seat = state.to_move
    assert seat is not None
    taken = {(r.x, r.y) for r in state.robots if r.alive}
    k, mover = next((k, r) for k, r in enumerate(state.robots) if r.seat == seat and r.alive)
    free = next(
        (x, y)
        for y in range(state.height)
        for x in range(state.width)
        if (x, y) not in taken
        and (x + 1, y) not in taken
        and x + 1 < state.width
        and max(abs(x - mover.x), abs(y - mover.y)) > 6
    )
    moved = mover.copy()
    moved.x, moved.y = free
    state.robots[k] = moved
    assert state.derived() is None
    # A step from its new cell: the table of the turn before still has it where it was.
    orders = Orders(seat, state.turn, (Action(mover.id, "move", (free[0] + 1, free[1])),))
    kept = api.play(state, orders)
    afresh = api.play(_fresh(state), orders)
    assert kept[0].to_json() == afresh[0].to_json()
    assert kept[1] == afresh[1]
    assert (kept[0].robots[k].x, kept[0].robots[k].y) == (free[0] + 1, free[1])
