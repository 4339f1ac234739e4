"""`python -m engine bench --ruleset arena`: steps per second of `engine.apply` on
recorded arena matches and on a four-seat arena in mid-match, beside Helium 3's figure
measured in the same run (docs/games/arena-bots.md). No figure is asserted: the speed
depends on the machine; the test checks that the bench runs and reports them."""

from __future__ import annotations

import json

from helpers import engine_cli

import engine
from engine import bench


def test_the_arena_scenario_starts_mid_match_and_its_recorded_steps_replay() -> None:
    (scenario,) = bench.SCENARIOS["arena"]
    assert scenario.seats == 4 and scenario.bot == "hunter"
    start, recorded = bench.scenario_turns("arena", scenario, bench.SEED_BASE)
    assert start["turn"] == scenario.from_turn and start["phase"] == "play"
    assert 0 < len(recorded) <= scenario.turns
    state = start
    kinds: set[str] = set()
    for orders in recorded:
        kinds.add(orders["step"]["type"])
        state = engine.apply(state, orders).state
    assert {"scan", "move", "end"} <= kinds
    assert state["turn"] > scenario.from_turn


def test_the_arena_bench_prints_its_figures_beside_helium_3s() -> None:
    done = engine_cli(
        "bench", "--ruleset", "arena", "--runs", "1", "--matches", "1", timeout=600
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 1
    figures = json.loads(lines[0])
    assert figures["ruleset"] == "arena" and figures["reference"]["ruleset"] == "helium3"
    assert figures["reference"]["turns_per_s"] > 0 and figures["turns_per_s"] > 0
    assert set(figures["bots"]) == {"random", "hunter"}
    (scenario,) = figures["scenarios"]
    assert scenario["seats"] == 4 and scenario["options"] == {}
    assert scenario["from_turn"] == 12 and scenario["turns"] > 0
    assert scenario["turns_per_s"] > 0
