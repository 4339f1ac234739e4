"""`python -m engine bench`: one JSON object with the speed figures docs/engine.md reports."""

from __future__ import annotations

import json

from helpers import engine_cli

from engine import bench
from engine.helium3 import api


def test_recorded_matches_re_resolve_to_the_same_final_state() -> None:
    initial, orders = bench.record(1000, ["random"] * 4)
    state = initial
    for given in orders:
        state = api.play(state, given)[0]
    assert state.over and state.turn == len(orders) > 10
    assert bench.resolve_all([(initial, orders), (initial, orders)]) == 2 * len(orders)


def test_the_bench_command_prints_one_json_object_with_its_figures() -> None:
    done = engine_cli("bench", "--runs", "1", "--matches", "2", timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 1
    figures = json.loads(lines[0])
    assert figures["turns_per_s"] > 0 and 0 < figures["match_s"] < 10
    assert figures["turns_resolved"] > 20 and figures["matches"] == 2
    assert set(figures["bots"]) == {"random", "miner", "fighter"}
    for bot in figures["bots"].values():
        assert bot["think_ms_per_turn"] > 0 and bot["match_s"] > 0
    assert figures["python"].startswith("3.") and figures["platform"]


def test_the_bench_command_refuses_zero_runs_with_a_json_error() -> None:
    done = engine_cli("bench", "--runs", "0")
    assert done.returncode == 1
    assert json.loads(done.stdout)["error"]["code"] == "bad_shape"
