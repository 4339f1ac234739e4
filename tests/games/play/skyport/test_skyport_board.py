"""Skyport's server-side board: the contract's attributes on every tile and living
player, each tile type a fill and a mark of its own, bodies and spawns marked, the
coordinates along two edges, and the cost of the largest map."""

from __future__ import annotations

import re
import time
from typing import Any

import engine
from games.play.skyport import board
from games.play.skyport.board import TILE_COLOURS, TILE_MARKS, R, centre


def _player(seat: int, j: int, k: int, spawn: tuple[int, int], **extra: Any) -> dict[str, Any]:
    return {
        "seat": seat,
        "j": j,
        "k": k,
        "spawn": list(spawn),
        "health": 100,
        "score": 0,
        "dead": False,
        "respawn_next": False,
        "weapons": {"laser": 1, "mortar": 1},
        "resources": {"rubidium": 0, "explosium": 0, "scrap": 0},
        **extra,
    }


def _view(**extra: Any) -> dict[str, Any]:
    """A hand-made 5 x 5 view of the spec's JSON: every tile type, two living players,
    one body."""
    return {
        "ruleset": "skyport",
        "size": 5,
        "phase": "play",
        "tiles": ["SGGRS", "GGEGO", "GOGCG", "VGGGG", "GRGGS"],
        "resources": {"0,3": 2, "1,2": 1, "2,3": 2, "4,1": 2},
        "players": [
            _player(1, 1, 1, (0, 0), health=64),
            _player(2, 4, 4, (4, 4)),
            _player(3, 2, 2, (0, 4), dead=True, health=-5),
        ],
        "round": 2,
        "rounds": 30,
        "order": [1, 2, 3],
        "turn": 4,
        "awaiting": [1],
        "scores": {"1": 0, "2": 0, "3": 0},
        "over": False,
        "winners": [],
        "viewer": 1,
        **extra,
    }


def _attrs(tag: str) -> dict[str, str]:
    return dict(re.findall(r'([\w-]+)="([^"]*)"', tag))


def test_every_tile_is_one_polygon_with_its_letter_coordinates_and_centre():
    view = _view()
    svg = str(board.board(view))
    assert svg.startswith('<svg class="board skyport-board"') and 'data-size="5"' in svg
    tiles = re.findall(r"<polygon [^>]*>", svg)
    assert len(tiles) == 25
    for tag in tiles:
        a = _attrs(tag)
        j, k = int(a["data-j"]), int(a["data-k"])
        letter = view["tiles"][j][k]
        assert a["class"] == f"sp-tile t-{letter}"
        cx, cy = centre(j, k, 5)
        assert abs(float(a["data-cx"]) - cx) < 0.06 and abs(float(a["data-cy"]) - cy) < 0.06
        assert a["fill"] == f"url(#board-p{letter})"
    assert sorted((int(_attrs(t)["data-j"]), int(_attrs(t)["data-k"])) for t in tiles) == [
        (j, k) for j in range(5) for k in range(5)
    ]


def test_the_directions_point_where_their_names_say():
    j, k = 2, 2
    x, y = centre(j, k, 5)
    up, down = centre(j - 1, k - 1, 5), centre(j + 1, k + 1, 5)
    assert up[0] == x and up[1] < y and down[0] == x and down[1] > y
    assert centre(j - 1, k, 5)[0] > x and centre(j - 1, k, 5)[1] < y  # right-up
    assert centre(j, k + 1, 5)[0] > x and centre(j, k + 1, 5)[1] > y  # right-down
    assert centre(j, k - 1, 5)[0] < x and centre(j, k - 1, 5)[1] < y  # left-up
    assert centre(j + 1, k, 5)[0] < x and centre(j + 1, k, 5)[1] > y  # left-down
    # Neighbours are exactly one hex apart: sqrt(3) R between centres.
    for other in (up, down, centre(j - 1, k, 5), centre(j + 1, k, 5)):
        assert abs(((other[0] - x) ** 2 + (other[1] - y) ** 2) ** 0.5 - 3**0.5 * R) < 1e-9


def test_each_tile_type_has_its_own_fill_and_its_own_mark():
    fills = [ground for ground, _mark in TILE_COLOURS.values()]
    assert len(set(fills)) == len(fills) == 7
    assert len(set(TILE_MARKS.values())) == 7
    svg = str(board.board(_view()))
    for letter in TILE_COLOURS:
        assert f'<pattern id="board-p{letter}"' in svg


def test_living_players_carry_seat_position_and_health_and_bodies_are_marked():
    svg = str(board.board(_view()))
    players = [_attrs(t) for t in re.findall(r'<g class="sp-player seat-[^>]*>', svg)]
    assert [
        (p["class"], p["data-seat"], p["data-j"], p["data-k"], p["data-health"]) for p in players
    ] == [
        ("sp-player seat-1", "1", "1", "1", "64"),
        ("sp-player seat-2", "2", "4", "4", "100"),
    ]
    x, y = centre(1, 1, 5)
    assert players[0]["transform"] == f"translate({board._num(x)} {board._num(y)})"
    bodies = re.findall(r'<g class="sp-body seat-3"[^>]*>', svg)
    assert len(bodies) == 1 and 'data-j="2" data-k="2"' in bodies[0]
    assert "seat 3 (green triangle): dead at (2, 2)" in svg


def test_spawns_show_their_seat_and_resource_tiles_what_is_left():
    svg = str(board.board(_view()))
    assert re.findall(r'<g class="sp-spawn" data-seat="(\d)">', svg) == ["1", "3", "2"]
    counts = re.search(r'<g class="sp-count"[^>]*>(.*?)</g>', svg, re.S)
    assert counts and re.findall(r">(\d)</text>", counts.group(1)) == ["2", "1", "2", "2"]


def test_coordinates_run_along_the_two_upper_edges_without_touching_a_tile():
    svg = str(board.board(_view()))
    axis = re.search(r'<g class="sp-axis"[^>]*>(.*?)</g>', svg, re.S)
    assert axis
    labels = re.findall(
        r'<text (?:class="name" )?x="([\d.-]+)" y="([\d.-]+)">(\w+)</text>', axis.group(1)
    )
    assert [t for _x, _y, t in labels] == [
        "0",
        "0",
        "1",
        "1",
        "2",
        "2",
        "3",
        "3",
        "4",
        "4",
        "j",
        "k",
    ]
    centres = [centre(j, k, 5) for j in range(5) for k in range(5)]
    for x, y, _t in labels:
        nearest = min(((float(x) - cx) ** 2 + (float(y) - cy) ** 2) ** 0.5 for cx, cy in centres)
        assert nearest > R * 0.9
    assert board.axis_step(16) == 1 and board.axis_step(23) == 2


def test_the_caption_and_every_text_are_escaped():
    svg = str(board.board(_view(phase="<b>"), caption="<script>x</script>"))
    assert "<script>" not in svg and "&lt;script&gt;" in svg and 'data-phase="&lt;b&gt;"' in svg


def test_two_boards_on_one_page_keep_distinct_ids():
    first, second = str(board.board(_view())), str(board.board(_view(), ident="other"))
    ids = re.findall(r' id="([^"]+)"', first) + re.findall(r' id="([^"]+)"', second)
    assert len(ids) == len(set(ids))
    assert 'fill="url(#other-pG)"' in second


def test_the_largest_map_is_drawn_in_a_few_milliseconds():
    # Five seats make the generator's largest hexagon (size 23); the shipped maps are smaller.
    sizes = {n: engine.new_game(seed=1, seats=n, ruleset="skyport")["size"] for n in range(2, 9)}
    seats = max(sizes, key=lambda n: sizes[n])
    view = engine.view(engine.new_game(seed=1, seats=seats, ruleset="skyport"), 1)
    board.board(view)
    rounds = 20
    started = time.process_time()
    for _ in range(rounds):
        svg = str(board.board(view))
    elapsed_ms = (time.process_time() - started) * 1000 / rounds
    assert svg.count("<polygon ") == sizes[seats] ** 2
    assert elapsed_ms < 25, f"{elapsed_ms:.1f} ms for a {sizes[seats]} x {sizes[seats]} map"


def test_the_lobby_picture_has_no_ids_and_every_player():
    view = engine.view(engine.new_game(seed=1, seats=4, ruleset="skyport"), None)
    picture = str(board.picture_of(view, label="A <map>"))
    assert picture.startswith('<svg class="game-picture"') and " id=" not in picture
    assert 'aria-label="A &lt;map&gt;"' in picture
    for seat in range(1, 5):
        assert board.SEAT_COLOURS[seat] in picture
