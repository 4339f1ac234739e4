"""bench/halite_floor.py: Halite's JSON interface alone (moves read, events made, the
changing grids read and written) timed on the engine bench's own recorded turns."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench import halite_floor  # noqa: E402


def test_the_floor_is_timed_on_the_scenarios_turns_and_is_part_of_a_turn() -> None:
    figures = halite_floor.measure(runs=1, seed=1)
    assert figures["turns"] == 50
    assert figures["from_turn"] == 100
    assert figures["moves_per_turn"] > 0
    assert figures["events_per_turn"] > 0
    parts = ("floor_moves_us", "floor_events_us", "floor_grids_us")
    assert all(figures[part] > 0 for part in parts)
    assert abs(sum(figures[part] for part in parts) - figures["floor_us"]) < 0.5
    # The interface is a part of what engine.apply does on the same turns.
    assert figures["floor_us"] < figures["apply_us"]
    assert figures["ceiling_turns_per_s"] > figures["apply_turns_per_s"]
    # The site's part: the worker's turn holds engine.apply; the events are recorded
    # grouped (a few objects) and read piece by piece (hundreds).
    assert figures["worker_us"] > figures["apply_us"] * 0.8
    assert figures["page_us"] > 0 and figures["stored_bytes"] > 0
    assert figures["events_per_turn"] <= 7 < figures["events_shown_per_turn"]


def test_a_run_count_under_one_is_refused() -> None:
    with pytest.raises(SystemExit) as refused:
        halite_floor.main(["--runs", "0"])
    assert refused.value.code == 2
