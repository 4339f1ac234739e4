"""Skyport maps: the 2013 `.skyportmap` text format, the shipped maps, the generator.

A `.skyportmap` file is three header lines (`players N`, `size N`, `description
"..."`) and then the hexes drawn as ASCII art. As the 2013 server's reader did, a
header line is read up to its number (whatever follows it, a comment, is ignored),
and a map seats from 2 players up to as many as it has spawn tiles: the header's
number is only the count it was drawn for. Only the tile letters count: the
drawing's `/ \\ _`, spaces and tabs are ignored, and so are lines left empty. The
letters come row by row along the rhombus' anti-diagonals: row `d` holds the tiles
with `j + k == d` (d = 0 .. 2 * size - 2), from left to right in increasing `k`. So the
first row is the top corner `(0, 0)` alone, row `size - 1` is the widest, and the
last row is the bottom corner `(size - 1, size - 1)` alone.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from math import gcd
from pathlib import Path

from engine.errors import ShapeError
from engine.skyport.hexgrid import Tile, distance, neighbours

TILE_LETTERS = frozenset("GERCVSO")
PASSABLE = frozenset("GERC")
MIN_SIZE, MAX_SIZE = 2, 99  # the 2013 reader's bounds
MIN_PLAYERS, MAX_PLAYERS = 2, 8
MAPS_DIR = Path(__file__).parent / "maps"
SHIPPED = ("duel-2", "triangle-3", "cross-4", "hexagon-6", "ring-8")


class MapError(ShapeError):
    """A `.skyportmap` that cannot be read, or a map the game cannot be played on."""

    exit_status = 2  # on the command line, a file that is not a map is wrong usage

    def __init__(self, message: str) -> None:
        super().__init__("bad_map", message)


@dataclass(frozen=True, slots=True)
class SkyportMap:
    """A map: `tiles[j][k]` is the letter of tile `(j, k)`; `players` is the count the
    header names (the usual one), `seats()` every count the map can be played with."""

    players: int
    size: int
    description: str
    tiles: tuple[str, ...]

    def spawns(self) -> list[Tile]:
        """The spawn tiles in `(j, k)` order."""
        return [
            (j, k) for j in range(self.size) for k in range(self.size) if self.tiles[j][k] == "S"
        ]

    def seats(self) -> range:
        """2 up to the number of spawn tiles (8 at most): the 2013 server seated as
        many players as the map had spawns, whatever its header said."""
        return range(MIN_PLAYERS, min(len(self.spawns()), MAX_PLAYERS) + 1)

    def to_json(self) -> dict[str, object]:
        seats = self.seats()
        return {
            "players": self.players,
            "seats": [seats[0], seats[-1]],
            "size": self.size,
            "description": self.description,
            "tiles": list(self.tiles),
            "spawns": [list(t) for t in self.spawns()],
        }


def _header(line: str, key: str) -> str:
    match = re.fullmatch(rf"\s*{key}\s+(.*?)\s*", line)
    if match is None or not match.group(1):
        raise MapError(f"The map's header needs a line '{key} ...', not {line[:40]!r}.")
    return match.group(1)


def _number(line: str, key: str, low: int, high: int) -> int:
    """The number after `key`; the rest of the line is ignored, as the 2013 reader
    ignored it (an old map says `players 2   # This map is for two players`)."""
    text = _header(line, key).split(maxsplit=1)[0]
    if not re.fullmatch(r"[0-9]{1,3}", text) or not low <= int(text) <= high:
        raise MapError(f"The map's {key} is a whole number from {low} to {high}.")
    return int(text)


def row_tiles(size: int, d: int) -> list[Tile]:
    """The tiles of anti-diagonal row `d`, in the order the drawing shows them."""
    return [(d - k, k) for k in range(size) if 0 <= d - k < size]


def read_skyportmap(text: str) -> SkyportMap:
    """Parse a `.skyportmap` text; raises MapError on anything wrong."""
    lines = text.splitlines()
    if len(lines) < 3:
        raise MapError("A map starts with the lines players, size and description.")
    players = _number(lines[0], "players", MIN_PLAYERS, MAX_PLAYERS)
    size = _number(lines[1], "size", MIN_SIZE, MAX_SIZE)
    description = _header(lines[2], "description")
    if len(description) < 2 or description[0] != '"' or description[-1] != '"':
        raise MapError('The map\'s description is written in double quotes: description "...".')
    rows: list[str] = []
    for number, line in enumerate(lines[3:], start=4):
        letters = re.sub(r"[/\\_ \t]", "", line)
        if not letters:
            continue
        bad = sorted(set(letters) - TILE_LETTERS)
        if bad:
            raise MapError(f"Line {number} of the map has an unknown tile {bad[0][:1]!r}.")
        d = len(rows)
        if d >= 2 * size - 1:
            raise MapError(f"Line {number}: the map has more rows than size {size} allows.")
        want = len(row_tiles(size, d))
        if len(letters) != want:
            raise MapError(
                f"Line {number}: row {d + 1} of the map has {want} tiles, not {len(letters)}."
            )
        rows.append(letters)
    if len(rows) != 2 * size - 1:
        raise MapError(f"The map has {len(rows)} rows of tiles; size {size} needs {2 * size - 1}.")
    grid = [["?"] * size for _ in range(size)]
    for d, letters in enumerate(rows):
        for (j, k), letter in zip(row_tiles(size, d), letters, strict=True):
            grid[j][k] = letter
    found = SkyportMap(players, size, description[1:-1], tuple("".join(r) for r in grid))
    count = len(found.spawns())
    if count < MIN_PLAYERS:
        raise MapError(
            f"The map has {count} spawn {'tile' if count == 1 else 'tiles'}; every player "
            f"needs one, and a match has {MIN_PLAYERS} players at least."
        )
    return found


def write_skyportmap(found: SkyportMap) -> str:
    """The map drawn as the 2013 tools drew it; `read_skyportmap` reads it back."""
    n = found.size
    out = [f"players {found.players}", f"size {n}", f'description "{found.description}"']
    out.append(" " * (3 * n) + "__")
    for d in range(2 * n - 1):
        letters = [found.tiles[j][k] for j, k in row_tiles(n, d)]
        if d < n - 1:
            out.append(" " * (3 * (n - 1 - d)) + "__/" + "/".join(f"{x} \\__" for x in letters))
        elif d == n - 1:
            out.append("  /" + "__/".join(f"{x} \\" for x in letters))
        else:
            indent = 2 + 3 * (d - n)
            out.append(" " * indent + "\\__/" + "".join(f"{x} \\__/" for x in letters))
    out.append(" " * (2 + 3 * (n - 1)) + "\\__/")
    return "\n".join(out) + "\n"


def shipped(name: str) -> SkyportMap:
    """One of the maps in SHIPPED, read from its file with the same reader."""
    if name not in SHIPPED:
        raise MapError(f"No shipped map {name[:40]!r}; the maps are {', '.join(SHIPPED)}.")
    return read_skyportmap((MAPS_DIR / f"{name}.skyportmap").read_text(encoding="utf-8"))


# -- the generator --------------------------------------------------------------------

# radius of the hexagon, radius of the ring the spawns stand on (6 * ring is a
# multiple of the seats, so the spawns are evenly spaced along it)
_LAYOUT = {2: (6, 5), 3: (7, 6), 4: (7, 6), 5: (11, 10), 6: (9, 8), 7: (9, 7), 8: (10, 8)}
# the six directions in the order of a 60-degree turn: (dj, dk) -> (dj - dk, dj)
_TURN = ((1, 0), (1, 1), (0, 1), (-1, 0), (-1, -1), (0, -1))
# each spawn's own corner, for a spawn on the ring's first side (rotated for the others)
_PATCH = (((2, 2), "E"), ((0, 2), "R"), ((1, 2), "C"))
_TERRAIN = "G" * 62 + "E" * 5 + "R" * 5 + "C" * 5 + "O" * 13 + "V" * 10


def rotate(offset: Tile, times: int) -> Tile:
    """`offset` turned `times` times by 60 degrees about the origin."""
    dj, dk = offset
    for _ in range(times % 6):
        dj, dk = dj - dk, dj
    return (dj, dk)


def ring(centre: Tile, radius: int) -> list[Tile]:
    """The tiles at `radius` from `centre`, walked once around in order."""
    j, k = centre[0] + radius * _TURN[4][0], centre[1] + radius * _TURN[4][1]
    out: list[Tile] = []
    for dj, dk in _TURN:
        for _ in range(radius):
            out.append((j, k))
            j, k = j + dj, k + dk
    return out


def _connected(grid: list[list[str]], spawns: list[Tile]) -> bool:
    """Every spawn can walk to every other one over passable tiles."""
    size = len(grid)
    starts = [t for t in neighbours(spawns[0], size) if grid[t[0]][t[1]] in PASSABLE]
    seen = set(starts)
    todo = list(starts)
    while todo:
        for j, k in neighbours(todo.pop(), size):
            if (j, k) not in seen and grid[j][k] in PASSABLE:
                seen.add((j, k))
                todo.append((j, k))
    return all(any(t in seen for t in neighbours(s, size)) for s in spawns)


def generate(seed: int, seats: int) -> SkyportMap:
    """A map for `seats` players, a pure function of `seed` and `seats`.

    A hexagon of tiles (the rhombus' corners outside it are void) with the spawns
    evenly spaced on a ring near its edge. The terrain is drawn by orbits of the
    turn by `360 / gcd(seats, 6)` degrees about the centre, so every seat sees the
    same map from its spawn when `seats` divides 6 (2, 3, 6), and with 4 and 8 seats
    the map is symmetric under a half turn; with 5 and 7 only the spawns' own
    surroundings (grass around, one tile of each resource two steps inward) match.
    """
    if seats not in _LAYOUT:
        raise MapError("A generated map has 2 to 8 players.")
    radius, ring_radius = _LAYOUT[seats]
    size = 2 * radius + 1
    centre = (radius, radius)
    rng = random.Random(f"skyport-map:{seed}:{seats}")
    fold = gcd(seats, 6)
    path = ring(centre, ring_radius)
    spacing = len(path) // seats
    spawns = [path[i * spacing] for i in range(seats)]
    for _ in range(100):
        grid = [["V"] * size for _ in range(size)]
        inside = [
            (j, k) for j in range(size) for k in range(size) if distance((j, k), centre) <= radius
        ]
        drawn: set[Tile] = set()
        for j, k in inside:
            if (j, k) in drawn:
                continue
            letter = rng.choice(_TERRAIN)
            for t in range(fold):
                dj, dk = rotate((j - radius, k - radius), t * 6 // fold)
                grid[radius + dj][radius + dk] = letter
                drawn.add((radius + dj, radius + dk))
        for i, (j, k) in enumerate(spawns):
            side = i * spacing // ring_radius
            for nj, nk in neighbours((j, k), size):
                grid[nj][nk] = "G"
            for offset, letter in _PATCH:
                dj, dk = rotate(offset, side)
                grid[j + dj][k + dk] = letter
        for j, k in spawns:
            grid[j][k] = "S"
        if _connected(grid, spawns):
            break
    else:  # no draw joined the spawns: clear the obstacles (symmetry is kept)
        for j, k in inside:
            if grid[j][k] in "OV":
                grid[j][k] = "G"
    tiles = tuple("".join(row) for row in grid)
    return SkyportMap(seats, size, f"Generated for {seats} players from seed {seed}.", tiles)
