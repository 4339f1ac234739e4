"""The remake's presentation shows a seat only what its view holds: two states that
differ only in seat 1's hidden shields and deflects give every other seat and a
spectator byte-identical boards, hints and sentences; seat 1 sees the difference."""

from __future__ import annotations

import copy

import pytest

import engine
from games import presentation

REMAKE = "helium3-remake"
shown = presentation.get(REMAKE)


def _worlds() -> tuple[dict, dict, list[dict]]:
    """A four-seat match after seat 1's turn; the second world's seat-1 shields point
    elsewhere or are down, and a third set of events raised them elsewhere."""
    state = engine.new_game(seed=9, seats=4, ruleset=REMAKE)
    mine = [r for r in state["robots"] if r["seat"] == 1]
    for robot in mine[:3]:
        robot["shield"], robot["deflect"] = True, "N"
    actions = [{"robot": mine[0]["id"], "type": "deflect", "direction": "E"}]
    applied = engine.apply(state, {"seat": 1, "turn": 0, "actions": actions})
    other = copy.deepcopy(applied.state)
    for robot in other["robots"]:
        if robot["seat"] == 1 and robot["shield"]:
            robot["deflect"] = "SW"
    other["robots"][2]["shield"], other["robots"][2]["deflect"] = False, None
    return applied.state, other, applied.events


@pytest.mark.parametrize("viewer", [2, 3, 4, None])
def test_other_seats_and_spectators_cannot_tell_seat_1s_hidden_shields(viewer):
    first, second, events = _worlds()
    a, b = engine.view(first, viewer), engine.view(second, viewer)
    assert shown.board(a, caption="x") == shown.board(b, caption="x")
    assert shown.hints(a) == shown.hints(b)
    assert (shown.hints(a) is not None) == (viewer == 2)  # seat 2 plans next, on its view
    told = shown.sentences(engine.events_view(events, viewer, ruleset=REMAKE))
    assert told == ["Seat 1 passed."]


def test_seat_1_sees_its_own_shields_and_deflects():
    first, second, events = _worlds()
    a, b = engine.view(first, 1), engine.view(second, 1)
    assert shown.board(a, caption="x") != shown.board(b, caption="x")
    assert "deflects east" in shown.board(a, caption="x")
    told = shown.sentences(engine.events_view(events, 1, ruleset=REMAKE))
    assert told[0].endswith("set its shield to deflect east.")
