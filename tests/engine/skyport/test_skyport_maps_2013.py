"""The 2013 competition's maps (tests/engine/skyport/fixtures/2013, see its README) read
here as the 2013 server's reader (`WorldParser.java`) read them: the same players,
size, description and tile on every (j, k); a map seats 2 players up to its spawn
tiles, as the 2013 server seated as many AIs as the map had spawns; a header the 2013
reader could not read, or a map with no spawn, is refused with a clear error."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine.skyport.mapgen import MapError, read_skyportmap, write_skyportmap

FOLDER = Path(__file__).parent / "fixtures" / "2013"


def read_as_in_2013(text: str) -> tuple[int, int, str, list[list[str]]]:
    """The 2013 reader's way, written from its description: each header line split at
    every white-space character, its second word the number (so a comment after it is
    never read); the tiles of each line once the drawing is stripped, an empty line
    skipped; row a (counting from the top corner) puts its b-th tile at (a - b, b) while
    the rows widen, then (size - 1 - i, i + k) for the k-th row after the widest. Raises
    ValueError where the 2013 reader failed (a header word that is not a number)."""
    lines = text.split("\n")
    players = int(re.split(r"\s", lines[0])[1])
    size = int(re.split(r"\s", lines[1])[1])
    description = " ".join(re.split(r"\s", lines[2])[1:])[1:-1]
    tiles = [["?"] * size for _ in range(size)]
    rows = [t for t in (re.sub(r"[ \t_/\\]", "", line) for line in lines[3:]) if t]
    for a, row in enumerate(rows[:size]):
        if len(row) != a + 1:
            raise ValueError(f"row {a}: {len(row)} tiles")
        for b, letter in enumerate(row):
            tiles[a - b][b] = letter
    for k, row in enumerate(rows[size:], start=1):
        if len(row) != size - k:
            raise ValueError(f"row {size - 1 + k}: {len(row)} tiles")
        for i, letter in enumerate(row):
            tiles[size - 1 - i][i + k] = letter
    return players, size, description, tiles


# file -> (players in its header, size, spawn tiles); None: refused.
MAPS: dict[str, tuple[int, int, int] | None] = {
    "2-players-huge": (2, 30, 2),
    "2-players-ultrasmall": (2, 2, 2),
    "6-players-giant": (6, 50, 6),
    "maps-evil-6-players-race-for-resources": (6, 50, 6),
    "4-players": (4, 20, 4),
    "8-players": (2, 30, 8),  # "players 2", eight spawns: seats 2 to 8
    "the-kessel-8p": (8, 40, 8),
    "balanced-antilles-4p": (2, 25, 4),  # "players 2", four spawns: seats 2 to 4
    "balanced-high-noon-2p": (2, 15, 2),
    "maps-balanced-2-players-small": (2, 10, 2),
    "maps-balanced-3-players-smallish": (3, 16, 3),
    "maps-evil-4-players-tricky": (4, 20, 4),
    "maps-secret-close-combat": (3, 16, 8),  # "players 3", eight spawns
    "maps-secret-8-players-rockmaze": (8, 30, 8),
    "maps-testing-2-players-minimal": (2, 2, 2),
    "maps-testing-4-players-blank": (4, 20, 4),
    "maps-testing-4-players-disconnected": (4, 20, 4),
    "maps-testing-4-players-resources": (4, 20, 4),
    "maps-testing-4-players-rockmaze": (4, 20, 4),
    "old-2-players": (2, 16, 2),  # "players 2\t     # This map is for two players"
    "2-players": None,  # "skyport map format 1": the 2013 reader could not read it
    "balanced-vortex-6p": None,  # all void but one grass tile: no spawn
}


def test_every_map_of_the_folder_is_listed() -> None:
    assert sorted(p.stem for p in FOLDER.glob("*.skyportmap")) == sorted(MAPS)


@pytest.mark.parametrize("name", [n for n, v in MAPS.items() if v is not None])
def test_a_2013_map_reads_as_the_2013_reader_read_it(name: str) -> None:
    text = (FOLDER / f"{name}.skyportmap").read_text()
    players, size, description, tiles = read_as_in_2013(text)
    found = read_skyportmap(text)
    assert (found.players, found.size, found.description) == (players, size, description)
    assert found.tiles == tuple("".join(row) for row in tiles)
    expected = MAPS[name]
    assert expected is not None
    assert (found.players, found.size, len(found.spawns())) == expected
    assert found.seats() == range(2, min(expected[2], 8) + 1)
    assert found.to_json()["seats"] == [2, min(expected[2], 8)]


def test_a_header_the_2013_reader_could_not_read_is_refused() -> None:
    text = (FOLDER / "2-players.skyportmap").read_text()
    with pytest.raises(ValueError):
        read_as_in_2013(text)
    with pytest.raises(MapError) as caught:
        read_skyportmap(text)
    assert caught.value.code == "bad_map"
    assert "players" in caught.value.message


def test_the_vortex_has_no_spawn_and_stays_a_clear_error() -> None:
    text = (FOLDER / "balanced-vortex-6p.skyportmap").read_text()
    players, size, _, tiles = read_as_in_2013(text)  # the 2013 reader read it...
    assert (players, size) == (2, 30)
    assert sum(row.count("S") for row in tiles) == 0  # ...but no AI could be seated
    with pytest.raises(MapError) as caught:
        read_skyportmap(text)
    assert caught.value.code == "bad_map"
    assert "0 spawn tiles" in caught.value.message


def test_the_writer_draws_each_map_as_the_reader_reads_it() -> None:
    for name, expected in MAPS.items():
        if expected is None:
            continue
        found = read_skyportmap((FOLDER / f"{name}.skyportmap").read_text())
        again = read_skyportmap(write_skyportmap(found))
        assert again.tiles == found.tiles and again.players == found.players, name
