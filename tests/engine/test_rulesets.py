"""Rulesets plug in: the engine dispatches on state["ruleset"], and a second ruleset
is a new module registered by name, with helium3 untouched."""

from __future__ import annotations

import pytest

import engine
from engine import match, rulesets


@pytest.fixture
def nim_registered():
    rulesets.register("nim", "nim_ruleset")
    yield
    rulesets._MODULES.pop("nim", None)
    rulesets._CACHE.pop("nim", None)


def test_helium3_is_the_default_ruleset():
    assert rulesets.DEFAULT == "helium3"
    assert engine.new_game(seed=1)["ruleset"] == "helium3"


def test_an_unknown_ruleset_is_a_bad_state_not_a_crash():
    with pytest.raises(engine.StateError) as caught:
        engine.apply({"ruleset": "chess"}, {"seat": 1, "turn": 0, "actions": []})
    assert caught.value.code == "bad_state"


def test_a_second_ruleset_plugs_in_and_every_entry_point_dispatches_on_the_state(nim_registered):
    state = engine.new_game(seed=5, seats=2, ruleset="nim")
    assert state["ruleset"] == "nim"
    assert engine.bot_names("nim") == ["perfect"]
    assert "seed" not in engine.view(state, 1)
    with pytest.raises(engine.OrdersError):
        engine.apply(state, {"seat": 1, "turn": 0, "actions": [{"take": 4}]})
    record = match.play_match(5, ["perfect", "perfect"], ruleset="nim")
    assert record["final"]["over"] and record["final"]["pile"] == 0
    assert match.replay_check(record)["ok"]


def test_the_helium3_ruleset_still_plays_beside_another(nim_registered):
    engine.new_game(seed=5, seats=2, ruleset="nim")
    state = engine.new_game(seed=5)
    applied = engine.apply(state, {"seat": 1, "turn": 0, "actions": []})
    assert applied.state["turn"] == 1
