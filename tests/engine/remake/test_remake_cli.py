"""The command line plays the remake: `rulesets`, `new --ruleset helium3-remake --option
rounds=N`, `bots`, `apply --as` and `view` (the fog holds there too)."""

from __future__ import annotations

import json

from helpers import bot, engine_cli
from remake_helpers import deflect, scene


def test_rulesets_lists_the_remake_with_its_rounds_option() -> None:
    done = engine_cli("rulesets")
    line = next(x for x in done.stdout.splitlines() if x.startswith("helium3-remake:"))
    assert "rounds=20 (int 5..100)" in line and "prospector" in line


def test_new_takes_the_rounds_option_and_refuses_a_bad_one() -> None:
    done = engine_cli(
        "new", "--ruleset", "helium3-remake", "--seed", "3", "--seats", "2", "--option", "rounds=7"
    )
    state = json.loads(done.stdout)
    assert (state["ruleset"], state["rounds"], state["round"]) == ("helium3-remake", 7, 1)
    assert [p["seat"] for p in state["players"]] == [1, 3]
    bad = engine_cli("new", "--ruleset", "helium3-remake", "--seed", "3", "--option", "rounds=101")
    assert bad.returncode != 0 and json.loads(bad.stdout)["error"]["code"] == "bad_shape"


def test_bots_lists_random_and_the_prospector() -> None:
    assert engine_cli("bots", "--ruleset", "helium3-remake").stdout.split() == [
        "random", "prospector",
    ]  # fmt: skip


def test_apply_as_an_opponent_hides_a_deflect() -> None:
    state = scene(bot("1-1", 5, 5, shield=True), bot("2-1", 9, 9))
    given = {"seat": 1, "turn": 0, "actions": [deflect("1-1", "SE")]}
    done = engine_cli("apply", "--as", "2", stdin=json.dumps({"state": state, "orders": given}))
    assert done.returncode == 0, done.stdout
    out = json.loads(done.stdout)
    assert [e["type"] for e in out["events"]] == ["pass"]
    assert "SE" not in json.dumps(out) and out["state"]["viewer"] == 2
    own = engine_cli("view", "--seat", "1", stdin=json.dumps(state))
    assert json.loads(own.stdout)["robots"][0]["shield"] is True


def test_a_deflect_without_a_shield_is_refused_with_not_shielded() -> None:
    state = scene(bot("1-1", 5, 5), bot("2-1", 9, 9))
    given = {"seat": 1, "turn": 0, "actions": [deflect("1-1", "SE")]}
    done = engine_cli("apply", stdin=json.dumps({"state": state, "orders": given}))
    assert done.returncode == 1
    assert json.loads(done.stdout)["error"]["code"] == "not_shielded"
