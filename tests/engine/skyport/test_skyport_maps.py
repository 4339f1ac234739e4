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
        (lambda t: t.replace("/S", "/G"), "0 spawn tiles"),
        (lambda t: t.replace("/S", "/G", 2), "1 spawn tile;"),
        (lambda t: t.replace("players 3", "players2"), "players"),
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


def test_a_shipped_map_takes_2_up_to_its_spawn_count_and_refuses_more() -> None:
    with pytest.raises(OptionError) as caught:
        engine.new_game(seed=1, seats=3, ruleset="skyport", options={"map": "duel-2"})
    assert "duel-2 has 2 spawn tiles: it takes 2 players, not 3" in caught.value.message
    for seats in range(2, 9):
        state = engine.new_game(seed=1, seats=seats, ruleset="skyport", options={"map": "ring-8"})
        assert state["tiles"] == list(shipped("ring-8").tiles)
        assert len(state["players"]) == seats and state["order"] == list(range(1, seats + 1))
    with pytest.raises(OptionError):
        engine.new_game(seed=1, seats=2, ruleset="skyport", options={"map": "moon"})


# -- maps drawn as the 2013 competition's were: headers that do not name the spawns


def _drawn(tiles: tuple[str, ...], header: str, size_line: str = "") -> str:
    """A map with these tiles, drawn by the writer, its first header line `header`."""
    text = write_skyportmap(SkyportMap(2, len(tiles), "Drawn for a test", tiles))
    lines = text.splitlines()
    lines[0] = header
    if size_line:
        lines[1] = size_line
    return "\n".join(lines) + "\n"


# Four spawns in the corners of a 5 x 5 rhombus, grass and a little of everything.
FOUR_CORNERS = ("SGGRS", "GOGGG", "GGEGG", "GGGCG", "SGGVS")
# Eight spawns on the rim of a 6 x 6 rhombus.
EIGHT_ON_THE_RIM = ("SGSGSG", "GGGGGS", "SGRGGG", "GGGEGS", "SGGGCG", "GSGSGG")
# Ten spawns: more than a match has seats.
TEN = ("SGSGSG", "GGGGGS", "SGRGGG", "GGGEGS", "SGGGCG", "GSGSGS")


@pytest.mark.parametrize(
    ("tiles", "header", "players", "seats"),
    [
        (FOUR_CORNERS, "players 2", 2, range(2, 5)),  # as "The Antilles": four spawns
        (EIGHT_ON_THE_RIM, "players 2", 2, range(2, 9)),  # as the eight-player test map
        (EIGHT_ON_THE_RIM, "players 3", 3, range(2, 9)),  # as close-combat
        (TEN, "players 8", 8, range(2, 9)),
        (FOUR_CORNERS, "players 6", 6, range(2, 5)),  # a header above the spawns
    ],
)
def test_a_map_seats_2_up_to_its_spawn_count_whatever_its_header_says(
    tiles: tuple[str, ...], header: str, players: int, seats: range
) -> None:
    found = read_skyportmap(_drawn(tiles, header))
    assert found.tiles == tiles
    assert found.players == players  # the count it was drawn for, kept
    assert found.seats() == seats
    assert found.to_json()["seats"] == [seats[0], seats[-1]]


def test_a_header_line_is_read_up_to_its_number_and_a_comment_after_it_is_ignored() -> None:
    text = _drawn(
        FOUR_CORNERS,
        "players 4\t     # This map is for four players",
        "size 5 \t     # Size from the top corner",
    )
    found = read_skyportmap(text)
    assert (found.players, found.size, found.tiles) == (4, 5, FOUR_CORNERS)
    for header in ("players # 4", "players four", "players", "players 9 # nine"):
        with pytest.raises(MapError, match="players"):
            read_skyportmap(_drawn(FOUR_CORNERS, header))


def test_a_map_without_a_spawn_stays_a_clear_error() -> None:
    void = tuple("V" * 5 for _ in range(5))
    with pytest.raises(MapError) as caught:
        read_skyportmap(_drawn(void, "players 2"))
    assert caught.value.code == "bad_map"
    assert "The map has 0 spawn tiles; every player needs one" in caught.value.message
    one = ("SVVVV",) + tuple("V" * 5 for _ in range(4))
    with pytest.raises(MapError, match="1 spawn tile;"):
        read_skyportmap(_drawn(one, "players 2"))


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_a_match_on_a_map_with_spare_spawns_leaves_them_empty_and_plays(seats: int) -> None:
    # cross-4 is a shipped map of four spawns; two or three seats take some of them.
    state = engine.new_game(seed=5, seats=seats, ruleset="skyport", options={"map": "cross-4"})
    spawns = {tuple(p["spawn"]) for p in state["players"]}
    assert len(spawns) == seats and spawns <= set(shipped("cross-4").spawns())
    state = engine.apply(
        state, [{"seat": s, "turn": 0, "loadout": ["laser", "mortar"]} for s in state["awaiting"]]
    ).state
    while not state["over"]:
        seat = state["awaiting"][0]
        state = engine.apply(state, [engine.bot_orders("prospector", state, seat)]).state
    assert state["round"] == state["rounds"] and state["winners"]
