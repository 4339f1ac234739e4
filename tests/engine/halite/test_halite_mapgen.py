"""Halite's map (halite.md "Map generation"): a pure function of seed, size and seats,
fair to every seat, production topped 6..15, strength topped 150..255, one start cell
per seat with production at least 1."""

from __future__ import annotations

import itertools
import random
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.halite.mapgen import LAYOUTS, fit, generate

CASES = [
    (seed, seats, width, height)
    for seed, (seats, width, height) in enumerate(
        [(2, 30, 30), (3, 20, 20), (4, 30, 30), (5, 25, 25), (6, 30, 30), (2, 10, 10),
         (3, 10, 10), (4, 11, 17), (5, 50, 50), (6, 10, 10), (6, 50, 13), (2, 13, 50),
         (3, 31, 29), (4, 50, 50), (5, 10, 12), (2, 21, 10)]
    )
]  # fmt: skip


def new(seed: int, seats: int, width: int, height: int) -> dict[str, Any]:
    options = {"width": width, "height": height}
    return engine.new_game(seed=seed, seats=seats, ruleset="halite", options=options)


def starts(state: dict[str, Any]) -> dict[int, tuple[int, int]]:
    return {o: (x, y) for y, row in enumerate(state["owner"]) for x, o in enumerate(row) if o}


def symmetry_onto(state: dict[str, Any], a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Whether a reflection (or none) of the torus, then a translation, takes cell `a` to
    cell `b` and every cell's production and strength onto the same values."""
    w, h = state["width"], state["height"]
    grids = (state["production"], state["strength"])
    for fx, fy in itertools.product((1, -1), repeat=2):
        if all(
            g[y][x] == g[(b[1] + fy * (y - a[1])) % h][(b[0] + fx * (x - a[0])) % w]
            for g in grids
            for y in range(h)
            for x in range(w)
        ):
            return True
    return False


@pytest.mark.parametrize(("seed", "seats", "width", "height"), CASES)
def test_the_map_is_the_same_around_every_seat_up_to_reflection_and_translation(
    seed: int, seats: int, width: int, height: int
) -> None:
    state = new(seed, seats, width, height)
    start = starts(state)
    assert sorted(start) == list(range(1, seats + 1))
    for seat in range(2, seats + 1):
        assert symmetry_onto(state, start[1], start[seat]), seat


@pytest.mark.parametrize(("seed", "seats", "width", "height"), CASES)
def test_the_map_has_the_documented_ranges(seed: int, seats: int, width: int, height: int) -> None:
    state = new(seed, seats, width, height)
    production = [v for row in state["production"] for v in row]
    strength = [v for y, row in enumerate(state["strength"]) for x, v in enumerate(row)
                if not state["owner"][y][x]]  # fmt: skip
    assert 6 <= max(production) <= 15 and min(production) >= 0
    assert 150 <= max(strength) <= 255 and min(strength) >= 0
    for x, y in starts(state).values():
        assert state["production"][y][x] >= 1
        assert state["strength"][y][x] == 255
    assert state["territory_total"] == {str(s): 1 for s in range(1, seats + 1)}
    assert state["turn"] == 0 and not state["over"]


def test_the_map_is_a_pure_function_of_seed_size_and_seats() -> None:
    assert new(5, 4, 30, 30) == new(5, 4, 30, 30)
    assert new(5, 4, 30, 30) != new(6, 4, 30, 30)
    assert new(5, 4, 30, 30)["production"] != new(5, 2, 30, 30)["production"]
    state = random.getstate()
    random.seed(1)
    first = generate(9, 20, 20, 3)
    random.seed(2)
    assert generate(9, 20, 20, 3) == first
    random.setstate(state)


def test_the_map_is_the_same_in_another_process() -> None:
    code = (
        "import engine, json, hashlib; s = engine.new_game(seed=12, seats=3, ruleset='halite');"
        "print(hashlib.sha256(json.dumps(s, sort_keys=True).encode()).hexdigest())"
    )
    runs = {
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={"PYTHONHASHSEED": str(n), "PATH": ""},
        ).stdout  # fmt: skip
        for n in (1, 2)
    }
    assert len(runs) == 1


def test_a_board_is_a_whole_number_of_tiles_nearest_the_size_asked_for() -> None:
    assert fit(30, 2) == 30 and fit(31, 2) == 30
    assert fit(20, 3) == 18 and fit(10, 3) == 12 and fit(11, 3) == 12
    assert fit(50, 3) == 48 and fit(10, 5) == 10 and fit(14, 5) == 10
    for seats, width, height in ((3, 20, 20), (3, 21, 20), (6, 30, 20), (5, 10, 10)):
        state = new(1, seats, width, height)
        assert any(
            state["width"] == fit(width, across) and state["height"] == fit(height, down)
            for across, down in LAYOUTS[seats]
        )
        assert 10 <= state["width"] <= 50 and 10 <= state["height"] <= 50
    assert (new(1, 3, 21, 20)["width"], new(1, 3, 21, 20)["height"]) == (21, 20)
    assert (new(1, 2, 30, 30)["width"], new(1, 2, 30, 30)["height"]) == (30, 30)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    seed=st.integers(0, 2**62),
    seats=st.sampled_from([2, 3, 4, 5, 6]),
    width=st.integers(10, 50),
    height=st.integers(10, 50),
)
def test_any_seed_size_and_seat_count_gives_a_fair_board_in_range(
    seed: int, seats: int, width: int, height: int
) -> None:
    state = new(seed, seats, width, height)
    assert state == new(seed, seats, width, height)
    start = starts(state)
    assert sorted(start) == list(range(1, seats + 1))
    assert all(symmetry_onto(state, start[1], start[s]) for s in range(2, seats + 1))
    assert 10 <= state["width"] <= 50 and 10 <= state["height"] <= 50
    assert abs(state["width"] - width) < 6 and abs(state["height"] - height) < 6
