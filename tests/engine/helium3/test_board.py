"""Board and coordinates (docs/games/helium3.md "Board and coordinates")."""

from __future__ import annotations

import pytest
from helpers import act, bot, cell, events, kamikaze, move, reject, robot, scene

import engine


def test_the_board_is_20_by_20_cells() -> None:
    state = engine.new_game(seed=1)
    assert (state["width"], state["height"]) == (20, 20)
    assert len(state["helium"]) == 20
    assert all(len(row) == 20 for row in state["helium"])


def test_x_is_the_column_and_y_the_row_and_helium_is_indexed_y_then_x() -> None:
    state = scene(bot("1-1", 3, 15), bot("2-1", 19, 19), helium={(3, 15): 400})
    assert state["helium"][15][3] == 400
    applied = act(state, {"robot": "1-1", "type": "mine"})
    assert events(applied, "mined")[0]["amount"] == 400
    assert applied.state["helium"][15][3] == 0


@pytest.mark.parametrize(
    ("direction", "dx", "dy"),
    [
        ("N", 0, -1),
        ("NE", 1, -1),
        ("E", 1, 0),
        ("SE", 1, 1),
        ("S", 0, 1),
        ("SW", -1, 1),
        ("W", -1, 0),
        ("NW", -1, -1),
    ],
)
def test_the_eight_compass_directions_with_north_up_and_east_right(
    direction: str, dx: int, dy: int
) -> None:
    state = scene(bot("1-1", 10, 10, facing=direction), bot("2-1", 19, 19))
    applied = act(state, move("1-1", 10 + dx, 10 + dy))
    assert cell(applied.state, "1-1") == (10 + dx, 10 + dy)
    assert events(applied, "turned") == []  # it already faced that way
    assert robot(applied.state, "1-1")["facing"] == direction


def test_distance_is_chebyshev_so_six_diagonal_steps_are_a_six_cell_move() -> None:
    state = scene(bot("1-1", 0, 0), bot("2-1", 19, 19))
    applied = act(state, move("1-1", 6, 6))
    assert cell(applied.state, "1-1") == (6, 6)
    assert len(events(applied, "moved")[0]["path"]) == 6


def test_distance_is_chebyshev_so_seven_columns_away_is_out_of_a_six_cell_move() -> None:
    state = scene(bot("1-1", 0, 0), bot("2-1", 19, 19))
    reject(state, move("1-1", 7, 3), code="out_of_range")


def test_the_board_is_eight_connected_so_a_path_may_step_diagonally() -> None:
    state = scene(bot("1-1", 5, 5), bot("2-1", 19, 19))
    path = [[6, 6], [7, 5], [8, 6]]
    applied = act(state, move("1-1", 8, 6, path=path))
    assert [c for e in events(applied, "moved") for c in e["path"]] == path


def test_neighbouring_squares_are_the_eight_cells_at_distance_one() -> None:
    around = [(x, y) for y in (9, 10, 11) for x in (9, 10, 11) if (x, y) != (10, 10)]
    far = [(8, 10), (12, 12), (10, 7)]
    robots = [bot(f"2-{n}", x, y) for n, (x, y) in enumerate(around + far, start=1)]
    state = scene(bot("1-1", 10, 10), *robots, bot("3-1", 0, 19))
    applied = act(state, kamikaze("1-1"))
    hit = {e["robot"] for e in events(applied, "destroyed")} - {"1-1"}
    assert hit == {f"2-{n}" for n in range(1, 9)}
