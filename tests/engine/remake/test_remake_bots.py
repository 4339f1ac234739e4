"""The remake's built-in bots: `random` plays legal random orders, `prospector` plays
with a plan and beats three `random` bots; both see only their seat's view."""

from __future__ import annotations

import copy
import json

import pytest
from helpers import bot
from remake_helpers import scene

import engine
from engine import match

RULESET = "helium3-remake"


def test_the_remake_has_a_random_bot_and_a_bot_with_a_plan() -> None:
    assert engine.bot_names(RULESET) == ["random", "prospector"]
    assert all(engine.bot_description(n, RULESET) for n in engine.bot_names(RULESET))


def test_random_plays_legal_orders_of_every_kind_with_up_to_five_actions() -> None:
    kinds: set[str] = set()
    counts: set[int] = set()
    for seed in range(6):
        record = match.play_match(seed, ["random"] * 4, ruleset=RULESET)
        for turn in record["turns"]:
            actions = turn["orders"]["actions"]
            counts.add(len(actions))
            kinds.update(a["type"] for a in actions)
    assert counts == {0, 1, 2, 3, 4, 5}
    assert kinds == {
        "move", "mine", "arm_missile", "arm_laser", "shield", "fire_missile", "fire_laser",
        "deflect", "kamikaze",
    }  # fmt: skip


@pytest.mark.parametrize("name", ["random", "prospector"])
def test_a_bot_sees_only_its_seats_view(name: str) -> None:
    state = scene(
        bot("1-1", 5, 5, armed="missile"), bot("1-2", 8, 8), bot("2-1", 9, 9),
        bot("3-1", 12, 12), helium={(6, 6): 500, (10, 10): 300},
    )  # fmt: skip
    hidden = copy.deepcopy(state)
    for r in hidden["robots"]:
        if r["seat"] != 1:
            r["shield"], r["deflect"] = True, "W"
    for seed in range(5):
        state["seed"] = hidden["seed"] = seed
        assert engine.bot_orders(name, state, 1) == engine.bot_orders(name, hidden, 1)


@pytest.mark.parametrize("name", ["random", "prospector"])
def test_a_bots_orders_are_determined_by_the_seed_and_accepted(name: str) -> None:
    state = engine.new_game(seed=11, ruleset=RULESET)
    orders = engine.bot_orders(name, state, 1)
    assert orders == engine.bot_orders(name, copy.deepcopy(state), 1)
    engine.check(state, orders)
    with pytest.raises(engine.OrdersError):
        engine.bot_orders(name, state, 2)


def test_the_prospector_wins_at_least_80_percent_against_three_random_bots() -> None:
    """The 100 matches of the table in docs/games/remake.md: seeds 0..99, the
    prospector in seat `k % 4 + 1` of match `k` (25 matches in each seat)."""
    wins = 0
    for k in range(100):
        lineup = ["random"] * 4
        lineup[k % 4] = "prospector"
        final = match.play_match(k, lineup, ruleset=RULESET)["final"]
        wins += (k % 4 + 1) in final["winners"]
    assert wins >= 80


def test_python_m_engine_play_plays_a_remake_match() -> None:
    from helpers import engine_cli

    done = engine_cli(
        "play", "--ruleset", RULESET, "--seed", "4", "--bots", "prospector,random,random"
    )
    assert done.returncode == 0, done.stdout
    summary = json.loads(done.stdout)
    assert summary["winners"] and summary["turns"] <= 20 * 3
