"""Halite's map: a pure function of (seed, width, height, seats), fair to every seat.

As in 2016, the board is cut into one tile per seat (`across` x `down` tiles, as near
square as the seat count allows); one tile of noise is generated and laid on every
tile, mirrored on every other tile along an axis that has an even number of tiles
and shifted along one that has an odd number, then the whole torus is blurred. Every
step is an exact integer operation that commutes with those mirrors and shifts, so
each seat's surroundings are the same as every other seat's up to reflection and
translation. Then production is scaled so its top is 6..15 and strength so its top
is 150..255; each seat starts with one cell of strength 255 whose production is at
least 1.

A board must be a whole number of tiles: like the 2016 environment, the generator
takes the largest multiple of the tile count at most the size asked for (the next
one up when that would be under 10).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from engine.halite.state import MIN_SIZE

START_STRENGTH = 255
MIN_TOP_PRODUCTION, MAX_TOP_PRODUCTION = 6, 15
MIN_TOP_STRENGTH, MAX_TOP_STRENGTH = 150, 255
BLUR_PASSES = 3
NOISE = 1000

# Tiles across and down for each seat count, as near square as it divides.
LAYOUTS: dict[int, tuple[tuple[int, int], ...]] = {
    2: ((2, 1), (1, 2)),
    3: ((3, 1), (1, 3)),
    4: ((2, 2),),
    5: ((5, 1), (1, 5)),
    6: ((3, 2), (2, 3)),
}


@dataclass(frozen=True, slots=True)
class Board:
    """A generated board: its size, flat production and strength (neutral, start cells
    included), and each seat's start cell index (seat s at `starts[s - 1]`)."""

    width: int
    height: int
    production: list[int]
    strength: list[int]
    starts: list[int]


def fit(size: int, tiles: int) -> int:
    """The board size for `size` asked and `tiles` tiles along that axis."""
    fitted = size // tiles * tiles
    if fitted < MIN_SIZE:
        fitted = -(-MIN_SIZE // tiles) * tiles
    return fitted


def layout(seats: int, width: int, height: int, coin: int) -> tuple[int, int]:
    """Tiles (across, down): the layout that changes the size asked for least; `coin`
    (0 or 1) picks between two that change it equally."""
    options = LAYOUTS[seats]
    cost = [abs(fit(width, a) - width) + abs(fit(height, d) - height) for a, d in options]
    best = [o for o, c in zip(options, cost, strict=True) if c == min(cost)]
    return best[coin % len(best)]


def _blur(values: list[int], width: int, height: int) -> list[int]:
    """One pass of integer smoothing on the torus: half the cell, half its neighbours'
    mean. Integer sums in any order give the same result, so a mirror image of the
    board blurs to the mirror image of the blurred board."""
    n = width * height
    out = [0] * n
    for i in range(n):
        x = i % width
        row = i - x
        total = (
            values[row + (x + 1) % width]
            + values[row + (x - 1) % width]
            + values[(i + width) % n]
            + values[(i - width) % n]
        )
        out[i] = (4 * values[i] + total) // 8
    return out


def _scale(values: list[int], top: int) -> list[int]:
    """Stretch linearly so the smallest value becomes 0 and the largest `top` (rounding
    half up, exactly): blurring evens a board out, this gives back its contrast."""
    low = min(values)
    span = max(values) - low or 1
    return [(2 * (v - low) * top + span) // (2 * span) for v in values]


def _lay_tiles(tile: list[int], cw: int, ch: int, across: int, down: int) -> list[int]:
    """Copy the tile onto every tile of the board, mirrored on odd tiles along an axis
    with an even tile count (so neighbouring tiles meet as mirror images)."""
    width = cw * across
    out: list[int] = []
    for y in range(ch * down):
        ty, ly = divmod(y, ch)
        if down % 2 == 0 and ty % 2:
            ly = ch - 1 - ly
        for x in range(width):
            tx, lx = divmod(x, cw)
            if across % 2 == 0 and tx % 2:
                lx = cw - 1 - lx
            out.append(tile[ly * cw + lx])
    return out


def _start(local: int, tile: int, size: int, mirrored: bool) -> int:
    """The board coordinate of a tile's start, given its coordinate within the tile."""
    return tile * size + (size - 1 - local if mirrored and tile % 2 else local)


def generate(seed: int, width: int, height: int, seats: int) -> Board:
    """The board of a new match; `width` and `height` are the size asked for."""
    rng = random.Random(seed)
    across, down = layout(seats, width, height, rng.randrange(2))
    width, height = fit(width, across), fit(height, down)
    cw, ch = width // across, height // down
    # Sparse peaks (a cube of a uniform draw) blur into hills of production; strength
    # follows production partly and has hills of its own.
    peaks = [int(NOISE * rng.random() ** 3) for _ in range(cw * ch)]
    own = [int(NOISE * rng.random() ** 2) for _ in range(cw * ch)]
    tile_strength = [p // 2 + o for p, o in zip(peaks, own, strict=True)]
    production = _lay_tiles(peaks, cw, ch, across, down)
    strength = _lay_tiles(tile_strength, cw, ch, across, down)
    for _ in range(BLUR_PASSES):
        production = _blur(production, width, height)
        strength = _blur(strength, width, height)
    production = _scale(production, rng.randint(MIN_TOP_PRODUCTION, MAX_TOP_PRODUCTION))
    strength = _scale(strength, rng.randint(MIN_TOP_STRENGTH, MAX_TOP_STRENGTH))
    # The start is in the middle half of the tile, the same cell of every tile.
    lx = rng.randrange(cw // 4, cw - cw // 4)
    ly = rng.randrange(ch // 4, ch - ch // 4)
    starts = [
        _start(ly, ty, ch, down % 2 == 0) * width + _start(lx, tx, cw, across % 2 == 0)
        for ty in range(down)
        for tx in range(across)
    ]
    for i in starts:
        production[i] = max(production[i], 1)
        strength[i] = START_STRENGTH
    return Board(width, height, production, strength, starts)
