"""Skyport's new game, the loadout phase (hidden until all have chosen), views and the
checks on states and orders from outside."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from skyport_helpers import position, robot

import engine
from engine.errors import EngineError, StateError
from engine.skyport import api

State = dict[str, Any]


def new(seed: int = 4, seats: int = 3, **options: Any) -> State:
    return engine.new_game(seed=seed, seats=seats, ruleset="skyport", options=options)


def loadouts(state: State, *choices: list[str]) -> list[dict[str, Any]]:
    return [{"seat": s, "turn": 0, "loadout": c} for s, c in enumerate(choices, start=1)]


def test_a_new_game_puts_every_seat_on_a_spawn_with_nothing_chosen() -> None:
    state = new()
    assert state["phase"] == "loadout" and state["turn"] == 0
    assert state["awaiting"] == [1, 2, 3] and state["order"] == [1, 2, 3]
    assert (state["round"], state["rounds"]) == (1, 30)
    for p in state["players"]:
        assert [p["j"], p["k"]] == p["spawn"]
        assert state["tiles"][p["j"]][p["k"]] == "S"
        assert (p["health"], p["score"], p["weapons"]) == (100, 0, {})
        assert p["resources"] == {"rubidium": 0, "explosium": 0, "scrap": 0}
    assert all(v == 2 for v in state["resources"].values())
    assert engine.ruleset("skyport").scores(state) == {"1": 0, "2": 0, "3": 0}


def test_seats_are_dealt_to_the_spawns_by_the_seed() -> None:
    deals = {
        tuple(tuple(p["spawn"]) for p in new(seed, map="triangle-3")["players"])
        for seed in range(12)
    }
    assert len(deals) > 1
    assert new(5, map="triangle-3") == new(5, map="triangle-3")


def test_rounds_is_an_option_from_5_to_100() -> None:
    assert new(rounds=5)["rounds"] == 5
    for bad in (4, 101):
        with pytest.raises(EngineError):
            new(rounds=bad)


def test_the_loadout_phase_resolves_every_seat_at_once_at_level_1() -> None:
    state = new()
    applied = engine.apply(
        state, loadouts(state, ["laser", "mortar"], ["droid", "laser"], ["mortar", "droid"])
    )
    after = applied.state
    assert after["phase"] == "play" and after["turn"] == 1 and after["awaiting"] == [1]
    assert [p["weapons"] for p in after["players"]] == [
        {"laser": 1, "mortar": 1},
        {"droid": 1, "laser": 1},
        {"mortar": 1, "droid": 1},
    ]
    assert applied.events == [
        {
            "type": "loadouts",
            "t_ms": 0,
            "duration_ms": 300,
            "players": [
                {"seat": 1, "weapons": ["laser", "mortar"]},
                {"seat": 2, "weapons": ["droid", "laser"]},
                {"seat": 3, "weapons": ["mortar", "droid"]},
            ],
        }
    ]


def test_a_loadout_stays_hidden_until_every_seat_has_chosen() -> None:
    state = new()
    engine.check(state, {"seat": 2, "turn": 0, "loadout": ["droid", "laser"]})
    for seat in (None, 1, 2, 3):
        seen = engine.view(state, seat)
        assert seen["viewer"] == seat
        assert all(p["weapons"] == {} for p in seen["players"])
    # a seat's loadout first appears in the event of the resolution that takes them all
    with pytest.raises(EngineError) as caught:
        engine.apply(state, loadouts(state, ["laser", "mortar"]))
    assert caught.value.code == "bad_shape"
    applied = engine.apply(
        state, loadouts(state, ["laser", "mortar"], ["droid", "laser"], ["mortar", "droid"])
    )
    for seat in (None, 1, 2):
        assert engine.events_view(applied.events, seat, ruleset="skyport") == applied.events


@pytest.mark.parametrize("choice", [["laser", "laser"], ["laser"], ["laser", "sword"], "laser", []])
def test_a_loadout_is_two_different_weapons(choice: Any) -> None:
    state = new()
    with pytest.raises(EngineError) as caught:
        engine.check(state, {"seat": 1, "turn": 0, "loadout": choice})
    assert caught.value.code == "bad_loadout"


def test_orders_for_the_wrong_seat_turn_or_phase_are_refused() -> None:
    state = position([robot(4, 4), robot(6, 2)])
    cases = [
        ({"seat": 2, "turn": 1, "actions": []}, "not_your_turn"),
        ({"seat": 1, "turn": 0, "actions": []}, "stale_turn"),
        ({"seat": 1, "turn": 1, "loadout": ["laser", "mortar"]}, "bad_shape"),
        ({"seat": 1, "turn": 1, "actions": [{"type": "jump"}]}, "bad_shape"),
        ({"seat": 1, "turn": 1, "actions": [{"type": {"type": "mine"}}]}, "bad_shape"),
        ({"seat": 1, "turn": 1, "actions": [{"type": "move"}]}, "bad_shape"),
        ({"seat": 1, "turn": 1, "actions": [{"type": "mortar", "target": [1]}]}, "bad_shape"),
        ({"seat": 1, "turn": 1, "actions": [{"type": "droid", "sequence": "up"}]}, "bad_shape"),
        ({"seat": 1, "turn": 1, "actions": "move"}, "bad_shape"),
    ]
    for orders, code in cases:
        with pytest.raises(EngineError) as caught:
            engine.apply(state, orders)
        assert caught.value.code == code, orders
    over = dict(copy.deepcopy(state), over=True, awaiting=[], winners=[1])
    with pytest.raises(EngineError) as caught:
        engine.check(over, {"seat": 1, "turn": 1, "actions": []})
    assert caught.value.code == "match_over"


def test_check_accepts_what_apply_accepts_and_changes_nothing() -> None:
    state = position([robot(4, 4), robot(4, 6)])
    before = copy.deepcopy(state)
    engine.check(
        state, {"seat": 1, "turn": 1, "actions": [{"type": "laser", "direction": "right-down"}]}
    )
    assert state == before
    with pytest.raises(EngineError) as caught:
        engine.check(
            state, {"seat": 1, "turn": 1, "actions": [{"type": "laser", "direction": "west"}]}
        )
    assert (caught.value.code, caught.value.action) == ("illegal_action", 0)


def test_default_orders_are_a_loadout_then_a_turn_with_no_action() -> None:
    state = new()
    assert api.default_orders(state, 2) == {"seat": 2, "turn": 0, "loadout": ["laser", "mortar"]}
    play = position([robot(4, 4), robot(6, 2)])
    assert api.default_orders(play, 1) == {"seat": 1, "turn": 1, "actions": []}


def test_the_view_is_the_state_plus_the_viewer_and_a_stranger_seat_is_refused() -> None:
    state = position([robot(4, 4), robot(6, 2)])
    assert engine.view(state, 2) == {**state, "viewer": 2}
    with pytest.raises(EngineError):
        engine.view(state, 3)


@pytest.mark.parametrize(
    "spoil",
    [
        lambda s: s["tiles"].__setitem__(0, "XGGGGGGGS"),
        lambda s: s["players"][0].__setitem__("j", 99),
        lambda s: s["players"][1].update(j=4, k=4),
        lambda s: s["players"][0].update(health=0),
        lambda s: s["players"][0].__setitem__("weapons", {"laser": 4, "mortar": 1}),
        lambda s: s["resources"].__setitem__("4,4", 2),
        lambda s: s.__setitem__("awaiting", [1, 2]),
        lambda s: s.__setitem__("scores", {"1": 5, "2": 0}),
        lambda s: s.__setitem__("phase", "battle"),
    ],
)
def test_an_inconsistent_state_is_a_bad_state_error(spoil: Any) -> None:
    state = position([robot(4, 4), robot(6, 2)])
    spoil(state)
    with pytest.raises(StateError):
        engine.apply(state, {"seat": 1, "turn": 1, "actions": []})
