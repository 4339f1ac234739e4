"""Halite hides nothing (halite.md "Views and events"): every seat's view and the
spectator's is the state plus "viewer", and every copy of the events is the events."""

from __future__ import annotations

import pytest

import engine
from engine.halite.resolve import expand

OPTIONS = {"width": 12, "height": 12}


def test_every_view_is_the_state_plus_the_viewer_for_every_seat_and_a_spectator() -> None:
    state = engine.new_game(seed=8, seats=4, ruleset="halite", options=OPTIONS)
    for _ in range(30):
        orders = [engine.bot_orders("random", state, s) for s in state["awaiting"]]
        applied = engine.apply(state, orders)
        for seat in (None, 1, 2, 3, 4):
            assert engine.view(state, seat) == {**state, "viewer": seat}
            copy = engine.events_view(applied.events, seat, ruleset="halite")
            assert copy == expand(applied.events)
        state = applied.state


def test_the_views_of_a_finished_match_are_the_whole_state_too() -> None:
    state = engine.new_game(seed=8, seats=2, ruleset="halite", options=OPTIONS)
    while not state["over"]:
        orders = [engine.bot_orders("grower", state, s) for s in state["awaiting"]]
        applied = engine.apply(state, orders)
        state = applied.state
    for seat in (None, 1, 2):
        assert engine.view(state, seat) == {**state, "viewer": seat}
        assert engine.events_view(applied.events, seat, over=True, ruleset="halite") == (
            expand(applied.events)
        )


def test_a_view_for_a_seat_not_in_the_match_is_refused() -> None:
    state = engine.new_game(seed=8, seats=2, ruleset="halite", options=OPTIONS)
    for seat in (0, 3, "1"):
        with pytest.raises(engine.ShapeError):
            engine.view(state, seat)  # type: ignore[arg-type]
