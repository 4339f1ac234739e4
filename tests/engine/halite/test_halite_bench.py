"""`python -m engine bench --ruleset halite`: turns per second of `engine.apply` on
mid-match boards (30 x 30 with four seats, 50 x 50 with six), beside Helium 3's figure
measured in the same run (docs/games/halite-bots.md). No figure is asserted: the speed
depends on the machine; the test checks that the bench runs and reports them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import engine
from engine import bench

ROOT = Path(__file__).resolve().parents[3]


def test_a_scenario_starts_mid_match_and_its_recorded_turns_replay() -> None:
    scenario = bench.Scenario("12x12, 3 seats", 3, {"width": 12, "height": 12}, "grower", 20, 5)
    start, recorded = bench.scenario_turns("halite", scenario, 3)
    assert start["turn"] == 20 and len(recorded) == 5
    assert all(len(orders) == len(engine.awaiting(start)) for orders in recorded)
    state = start
    for orders in recorded:
        state = engine.apply(state, orders).state
    assert state["turn"] == 25
    figures = bench.time_scenario("halite", scenario, 2, 3)
    assert figures["from_turn"] == 20 and figures["turns"] == 5 and figures["turns_per_s"] > 0


def test_a_scenario_of_a_match_that_ends_early_times_what_there_is() -> None:
    scenario = bench.Scenario("10x10, 2 seats", 2, {"width": 10, "height": 10}, "grower", 500)
    start, recorded = bench.scenario_turns("halite", scenario, 1)
    assert start["over"] and recorded == []
    assert bench.time_scenario("halite", scenario, 1, 1)["turns"] == 0


def test_the_halite_bench_prints_both_boards_beside_helium_3s_figure() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "engine", "bench", "--ruleset", "halite", "--runs", "1",
         "--matches", "1"],
        cwd=ROOT, capture_output=True, text=True, check=False, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 1
    figures = json.loads(lines[0])
    assert figures["ruleset"] == "halite" and figures["reference"]["ruleset"] == "helium3"
    assert figures["reference"]["turns_per_s"] > 0 and figures["turns_per_s"] > 0
    assert set(figures["bots"]) == {"random", "grower"}
    boards = {(s["options"]["width"], s["seats"], s["from_turn"]): s for s in figures["scenarios"]}
    # Mid-match on both boards, and the 30 x 30 board crowded near its end (turn 221).
    assert set(boards) == {(30, 4, 100), (50, 6, 100), (30, 4, 170)}
    for scenario in boards.values():
        assert scenario["turns"] == 50 and scenario["turns_per_s"] > 0
