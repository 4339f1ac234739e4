"""Skyport's maps: the `.skyportmap` reader, the shipped maps and the seeded generator."""

from __future__ import annotations

from math import gcd
from pathlib import Path

import pytest

import engine
from engine.core import OptionError
from engine.skyport.hexgrid import distance
from engine.skyport.mapgen import (
    PASSABLE,
    SHIPPED,
    MapError,
    SkyportMap,
    generate,
    read_skyportmap,
    rotate,
    shipped,
    write_skyportmap,
)

FIXTURE = Path(__file__).parent / "fixtures" / "three-corners.skyportmap"


def test_the_reader_takes_the_rows_along_the_anti_diagonals() -> None:
    found = read_skyportmap(FIXTURE.read_text())
    assert (found.players, found.size) == (3, 4)
    assert found.description == "A small map drawn by hand for the reader's tests."
    assert found.tiles == ("SGRV", "GOGE", "CGVG", "SGGS")
    assert found.spawns() == [(0, 0), (3, 0), (3, 3)]


def test_the_writer_draws_what_the_reader_reads() -> None:
    text = FIXTURE.read_text()
    assert write_skyportmap(read_skyportmap(text)) == text


def test_the_reader_ignores_the_drawing_tabs_and_empty_lines() -> None:
    text = FIXTURE.read_text().replace("  /S", "\t/S").replace("__/C", "\n__/C")
    assert read_skyportmap(text).tiles == ("SGRV", "GOGE", "CGVG", "SGGS")


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda t: t.replace("players 3", "players 9"), "players"),
        (lambda t: t.replace("size 4", "size four"), "size"),
        (lambda t: t.replace('"A small', "A small"), "double quotes"),
        (lambda t: t.replace("/O \\", "/X \\"), "unknown tile"),
        (lambda t: t.replace("/E \\__/", ""), "row 5"),
        (lambda t: t.replace("players 3", "players 2"), "3 spawn tiles"),
        (lambda t: "\n".join(t.splitlines()[:-3]), "rows"),
        (lambda t: "", "players, size and description"),
    ],
)
def test_a_map_that_cannot_be_read_is_a_bad_map_error(change, words: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(MapError) as caught:
        read_skyportmap(change(FIXTURE.read_text()))
    assert caught.value.code == "bad_map"
    assert words in caught.value.message


def _connected(found: SkyportMap) -> bool:
    size, tiles = found.size, found.tiles
    spawns = found.spawns()
    seen = {spawns[0]}
    todo = [spawns[0]]
    while todo:
        j, k = todo.pop()
        for dj, dk in ((1, 0), (0, 1), (1, 1), (-1, 0), (0, -1), (-1, -1)):
            n = (j + dj, k + dk)
            inside = 0 <= n[0] < size and 0 <= n[1] < size and n not in seen
            if inside and (tiles[n[0]][n[1]] in PASSABLE or n in spawns):
                seen.add(n)
                if tiles[n[0]][n[1]] in PASSABLE:
                    todo.append(n)
    return all(s in seen for s in spawns)


def _turned(found: SkyportMap, times: int) -> tuple[str, ...]:
    """The map turned by 60 degrees `times` times about its centre tile."""
    c = found.size // 2
    grid = [["?"] * found.size for _ in range(found.size)]
    for j in range(found.size):
        for k in range(found.size):
            dj, dk = rotate((j - c, k - c), times)
            if 0 <= c + dj < found.size and 0 <= c + dk < found.size:
                grid[c + dj][c + dk] = found.tiles[j][k]
            else:
                assert found.tiles[j][k] == "V"
    return tuple("".join("V" if t == "?" else t for t in row) for row in grid)


@pytest.mark.parametrize(
    ("name", "players", "turn"),
    [
        ("duel-2", 2, 3),
        ("triangle-3", 3, 2),
        ("cross-4", 4, 3),
        ("hexagon-6", 6, 1),
        ("ring-8", 8, 3),
    ],
)
def test_each_shipped_map_is_the_same_for_every_seat_by_symmetry(
    name: str, players: int, turn: int
) -> None:
    found = shipped(name)
    assert found.players == players and len(found.spawns()) == players
    assert _turned(found, turn) == found.tiles  # a half, a third or a sixth of a turn
    assert _connected(found)


def test_the_shipped_maps_are_the_files_in_the_maps_folder() -> None:
    folder = Path(engine.__file__).parent / "skyport" / "maps"
    assert sorted(p.stem for p in folder.glob("*.skyportmap")) == sorted(SHIPPED)


@pytest.mark.parametrize("seats", range(2, 9))
def test_the_generator_is_a_pure_function_of_seed_and_seats(seats: int) -> None:
    assert generate(7, seats) == generate(7, seats)
    assert generate(7, seats).tiles != generate(8, seats).tiles
    found = generate(7, seats)
    assert found.players == seats and len(found.spawns()) == seats
    assert _connected(found)


@pytest.mark.parametrize("seats", range(2, 9))
def test_generated_maps_turn_into_themselves_by_the_seats_symmetry(seats: int) -> None:
    for seed in range(4):
        found = generate(seed, seats)
        fold = gcd(seats, 6)
        assert _turned(found, 6 // fold) == found.tiles


@pytest.mark.parametrize("seats", range(2, 9))
def test_generated_spawns_are_evenly_spaced_around_the_centre(seats: int) -> None:
    found = generate(1, seats)
    centre = (found.size // 2, found.size // 2)
    assert len({distance(s, centre) for s in found.spawns()}) == 1


def test_a_shipped_map_for_another_seat_count_is_an_option_error() -> None:
    with pytest.raises(OptionError) as caught:
        engine.new_game(seed=1, seats=2, ruleset="skyport", options={"map": "ring-8"})
    assert "for 8 players" in caught.value.message
    state = engine.new_game(seed=1, seats=8, ruleset="skyport", options={"map": "ring-8"})
    assert state["tiles"] == list(shipped("ring-8").tiles)
    with pytest.raises(OptionError):
        engine.new_game(seed=1, seats=2, ruleset="skyport", options={"map": "moon"})
