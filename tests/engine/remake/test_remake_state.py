"""The remake's state JSON (docs/protocol.md plus `rounds` and `round`) and its fog: opponents'
shields and deflects hidden exactly as in Helium 3."""

from __future__ import annotations

import copy
import json

import pytest
from helpers import act, bot, fire_laser, move, shield
from remake_helpers import deflect, scene

import engine
from engine.errors import StateError
from engine.remake.state import State

FAR = bot("4-5", 19, 19)


def test_a_new_state_has_the_protocol_fields_with_rounds_round_awaiting_and_scores() -> None:
    state = engine.new_game(seed=3, ruleset="helium3-remake")
    assert state["ruleset"] == "helium3-remake"
    assert (state["rounds"], state["round"], state["turn"], state["to_move"]) == (20, 1, 0, 1)
    assert state["awaiting"] == [1] and state["scores"] == {"1": 0, "2": 0, "3": 0, "4": 0}
    assert [r["id"] for r in state["robots"]][:5] == ["1-1", "1-2", "1-3", "1-4", "1-5"]
    assert {(r["x"], r["y"]) for r in state["robots"] if r["seat"] == 1} == {
        (2, 0), (2, 1), (0, 2), (1, 2), (2, 2),
    }  # fmt: skip
    two = engine.new_game(seed=3, seats=2, ruleset="helium3-remake")
    assert [p["seat"] for p in two["players"]] == [1, 3]


def test_the_state_round_trips_through_json_exactly() -> None:
    state = engine.new_game(seed=5, ruleset="helium3-remake", options={"rounds": 9})
    assert State.from_json(json.loads(json.dumps(state))).to_json() == state


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"rounds": 4}, "rounds"),
        ({"rounds": 101}, "rounds"),
        ({"round": 0}, "round"),
        ({"round": 21}, "round"),
        ({"awaiting": [2]}, "awaiting"),
        ({"scores": {"1": 5}}, "scores"),
        ({"termination": "clock"}, "termination"),
        ({"ruleset": "helium3"}, "ruleset"),
    ],
)
def test_an_inconsistent_state_is_refused_with_bad_state(
    change: dict[str, object], words: str
) -> None:
    state = dict(engine.new_game(seed=5, ruleset="helium3-remake"), **change)
    with pytest.raises(StateError) as caught:
        State.from_json(state)
    assert words in caught.value.message


def test_a_state_missing_round_is_refused() -> None:
    state = engine.new_game(seed=5, ruleset="helium3-remake")
    del state["round"]
    with pytest.raises(StateError):
        engine.apply(state, {"seat": 1, "turn": 0, "actions": []})


def test_a_view_hides_opponents_shields_and_deflects_and_the_seed() -> None:
    state = scene(bot("1-1", 5, 5, shield=True, deflect="N"), bot("2-1", 9, 9, shield=True), FAR)
    mine = engine.view(state, 1)
    assert mine["viewer"] == 1 and "seed" not in mine
    by_id = {r["id"]: r for r in mine["robots"]}
    assert (by_id["1-1"]["shield"], by_id["1-1"]["deflect"]) == (True, "N")
    assert "shield" not in by_id["2-1"] and "deflect" not in by_id["2-1"]
    spectator = engine.view(state, None)
    assert all("shield" not in r for r in spectator["robots"])
    assert spectator["rounds"] == 20 and spectator["round"] == 1


def test_a_view_that_varies_only_in_hidden_shields_and_deflects_is_byte_identical() -> None:
    plain = scene(bot("1-1", 5, 5), bot("2-1", 9, 9), bot("3-1", 12, 3), FAR)
    hidden = copy.deepcopy(plain)
    for r in hidden["robots"]:
        if r["id"] in ("2-1", "3-1"):
            r["shield"], r["deflect"] = True, "SW"
    hidden["seed"] = 999
    for seat in (1, None):
        assert json.dumps(engine.view(plain, seat)) == json.dumps(engine.view(hidden, seat))
    assert json.dumps(engine.view(plain, 2)) != json.dumps(engine.view(hidden, 2))


def test_opponents_see_a_shield_and_a_deflect_as_nothing_or_a_plain_move() -> None:
    state = scene(bot("1-1", 5, 5, shield=True), bot("1-2", 8, 8), FAR)
    applied = act(state, deflect("1-1", "E"), shield("1-2", 9, 9))
    for seat in (4, None):
        copy_ = engine.events_view(applied.events, seat, ruleset="helium3-remake")
        assert [e["type"] for e in copy_] == ["turned", "moved"]
        assert "deflect" not in json.dumps(copy_)
    own = engine.events_view(applied.events, 1, ruleset="helium3-remake")
    assert [e["type"] for e in own] == ["shielded", "turned", "moved", "shielded"]
    alone = act(state, deflect("1-1", "E"))
    assert [e["type"] for e in engine.events_view(alone.events, 4, ruleset="helium3-remake")] == [
        "pass"
    ]


def test_a_shield_and_a_move_to_the_same_cell_have_the_same_public_timeline() -> None:
    state = scene(bot("1-1", 5, 5), FAR)
    shielded = act(state, shield("1-1", 7, 7))
    moved = act(state, move("1-1", 7, 7))
    assert engine.events_view(shielded.events, 4, ruleset="helium3-remake") == moved.events
    assert shielded.turn_ms == moved.turn_ms
    assert engine.view(shielded.state, 4) == engine.view(moved.state, 4)


def test_that_a_laser_turned_at_a_vehicle_is_visible_to_everybody() -> None:
    state = scene(bot("1-1", 5, 5, armed="laser"), bot("2-1", 8, 5, shield=True, deflect="S"), FAR)
    applied = act(state, fire_laser("1-1", "E"))
    for seat in (1, 2, 4, None):
        seen = engine.events_view(applied.events, seat, ruleset="helium3-remake")
        assert [e["direction"] for e in seen if e["type"] == "deflected"] == ["S"]


def test_once_over_every_view_is_the_full_state() -> None:
    state = scene(bot("1-1", 5, 5, shield=True), bot("2-1", 9, 9, shield=True, deflect="N"))
    over = dict(state, over=True, to_move=None, winners=[1, 2], awaiting=[], termination="rounds")
    assert engine.view(over, 1)["robots"] == over["robots"]
    assert engine.view(over, None)["seed"] == over["seed"]
