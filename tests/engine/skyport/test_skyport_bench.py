"""`python -m engine bench --ruleset skyport`: turns per second of `engine.apply` on
recorded Skyport matches and on a four-seat board in mid-match, beside Helium 3's figure
measured in the same run (docs/games/skyport-bots.md). No figure is asserted: the speed
depends on the machine; the test checks that the bench runs and reports them."""

from __future__ import annotations

import json

from helpers import engine_cli

import engine
from engine import bench


def test_the_skyport_scenario_starts_mid_match_and_its_recorded_turns_replay() -> None:
    (scenario,) = bench.SCENARIOS["skyport"]
    assert scenario.seats == 4 and scenario.bot == "prospector"
    start, recorded = bench.scenario_turns("skyport", scenario, bench.SEED_BASE)
    assert start["turn"] == scenario.from_turn and start["phase"] == "play"
    assert len(recorded) == scenario.turns
    state = start
    for orders in recorded:
        state = engine.apply(state, orders).state
    assert state["turn"] == scenario.from_turn + scenario.turns


def test_the_skyport_bench_prints_its_figures_beside_helium_3s() -> None:
    done = engine_cli(
        "bench", "--ruleset", "skyport", "--runs", "1", "--matches", "1", timeout=600
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 1
    figures = json.loads(lines[0])
    assert figures["ruleset"] == "skyport" and figures["reference"]["ruleset"] == "helium3"
    assert figures["reference"]["turns_per_s"] > 0 and figures["turns_per_s"] > 0
    assert set(figures["bots"]) == {"random", "prospector"}
    (scenario,) = figures["scenarios"]
    assert scenario["seats"] == 4 and scenario["options"] == {}
    assert scenario["from_turn"] == 37 and scenario["turns"] == 50
    assert scenario["turns_per_s"] > 0
