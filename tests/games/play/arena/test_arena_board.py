"""The arena's board: the contract's attributes, a seat's fog (unknown, remembered
with its age, robots last seen), a spectator's grey board while the match runs and
everything once over, and its cost."""

from __future__ import annotations

import re
import time
from typing import Any

import engine
from games.play.arena.board import CELL, MARGIN, board


def _playing(seed: int = 4) -> dict[str, Any]:
    state = engine.new_game(seed=seed, ruleset="arena", seats=2)
    builds = [
        {"seat": 1, "turn": 0, "build": ["engine2", "radar2", "gun"]},
        {"seat": 2, "turn": 0, "build": ["engine2", "radar1", "cannon"]},
    ]
    return engine.apply(state, builds).state


def _cells(svg: str) -> dict[tuple[int, int], tuple[str, str]]:
    found = re.findall(
        r'<rect class="ar-cell k-(\w+)" x="(\d+)" y="(\d+)" width="\d+" height="\d+" '
        r'data-x="(\d)" data-y="(\d)" data-age="(\d*)"',
        svg,
    )
    cells = {}
    for kind, px, py, x, y, age in found:
        assert (int(px), int(py)) == (MARGIN + int(x) * CELL, MARGIN + int(y) * CELL)
        cells[(int(x), int(y))] = (kind, age)
    return cells


def test_the_root_carries_the_contracts_sizes():
    svg = str(board(engine.view(_playing(), 1)))
    assert svg.startswith(
        f'<svg class="board arena-board" viewBox="0 0 {2 * MARGIN + 10 * CELL} '
        f'{2 * MARGIN + 10 * CELL}"'
    )
    assert 'data-width="10" data-height="10"' in svg
    assert f'data-cell="{CELL}" data-margin="{MARGIN}"' in svg


def test_a_seat_before_any_scan_knows_only_its_own_cell():
    svg = str(board(engine.view(_playing(), 1)))
    cells = _cells(svg)
    assert len(cells) == 100
    assert cells[(0, 0)] == ("robot", "0")
    assert all(kind == "unknown" and age == "" for at, (kind, age) in cells.items() if at != (0, 0))
    assert re.search(r'<g class="ar-robot own seat-1" data-seat="1" data-x="0" data-y="0"', svg)
    assert "ar-robot seen" not in svg and not re.search(r'class="ar-robot[^"]*seat-2"', svg)
    # Coordinates 0..9 on the edges.
    assert all(f">{n}</text>" in svg for n in range(10))


def test_a_scan_is_remembered_and_ages_and_a_robot_seen_stays_where_it_was():
    state = _playing()
    state["robots"][1].update(x=2, y=3)
    state = engine.apply(
        state, {"seat": 1, "turn": 1, "step_no": 0, "step": {"type": "scan"}}
    ).state
    cells = _cells(str(board(engine.view(state, 1))))
    assert sum(1 for kind, _ in cells.values() if kind != "unknown") == 16
    assert cells[(2, 3)] == ("robot", "0")
    for step in ({"type": "end"},):
        state = engine.apply(state, {"seat": 1, "turn": 1, "step_no": 1, "step": step}).state
    # Seat 2 walks away; seat 1 still sees it where it was, a turn older.
    blocked = {tuple(c) for c in state["obstacles"]}
    away = next(
        d for d, (dx, dy) in {"down": (0, 1), "right": (1, 0), "up": (0, -1)}.items()
        if (2 + dx, 3 + dy) not in blocked
    )  # fmt: skip
    state = engine.apply(
        state, {"seat": 2, "turn": 2, "step_no": 0, "step": {"type": "move", "path": [away]}}
    ).state
    state = engine.apply(state, {"seat": 2, "turn": 2, "step_no": 1, "step": {"type": "end"}}).state
    svg = str(board(engine.view(state, 1)))
    cells = _cells(svg)
    assert cells[(2, 3)] == ("robot", "2") and cells[(1, 1)][1] == "2"
    assert re.search(r'<g class="ar-robot seen seat-2" data-seat="2" data-x="2" data-y="3"', svg)
    assert 'data-age="2"' in svg and 'fill-opacity="0.8"' in svg


def test_a_spectator_sees_a_fogged_board_while_the_match_runs():
    state = _playing()
    svg = str(board(engine.view(state, None)))
    cells = _cells(svg)
    assert len(cells) == 100 and {kind for kind, _ in cells.values()} == {"unknown"}
    assert '<g class="ar-robot ' not in svg
    assert "A spectator sees no cell and no robot until the match is over." in svg


def test_a_spectator_sees_every_cell_and_robot_once_over():
    state = {**_playing(), "over": True, "awaiting": [], "winners": [1]}
    svg = str(board(engine.view(state, None)))
    cells = _cells(svg)
    obstacles = {tuple(c) for c in state["obstacles"]}
    assert {at for at, (kind, _) in cells.items() if kind == "obstacle"} == obstacles
    assert "k-unknown" not in svg.split("</style>", 1)[1]
    robots = re.findall(
        r'<g class="ar-robot seat-(\d)" data-seat="\d" data-x="(\d)" data-y="(\d)"', svg
    )
    assert sorted(robots) == [("1", "0", "0"), ("2", "9", "9")]


def test_a_past_state_of_a_finished_match_shows_everything_to_its_players():
    # The replay draws each past state of a finished match as {**state, "viewer": seat}:
    # the record is public then, so no fog, although that state itself is not over.
    state = _playing()
    assert not state["over"]
    svg = str(board({**state, "viewer": 1}))
    assert "k-unknown" not in svg.split("</style>", 1)[1]
    assert re.search(r'<g class="ar-robot seat-2" data-seat="2" data-x="9" data-y="9"', svg)
    # A seat's view of the same state still has its fog.
    fogged = str(board(engine.view(state, 1)))
    assert "k-unknown" in fogged.split("</style>", 1)[1]


def test_the_board_is_cheap_to_draw():
    view = {**_playing(), "viewer": None}
    started = time.process_time()
    for _ in range(50):
        board(view)
    assert (time.process_time() - started) / 50 < 0.01
