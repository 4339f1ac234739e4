"""Map generation: the helium distribution is a pure function of an integer seed."""

from __future__ import annotations

import random

from engine.helium3.board import cheb

SPAWNS: dict[int, tuple[tuple[int, int], ...]] = {
    1: ((2, 0), (2, 1), (0, 2), (1, 2), (2, 2)),
    2: ((17, 0), (17, 1), (17, 2), (18, 2), (19, 2)),
    3: ((17, 19), (17, 18), (17, 17), (18, 17), (19, 17)),
    4: ((2, 19), (2, 18), (0, 17), (1, 17), (2, 17)),
}
FACING = {1: "SE", 2: "SW", 3: "NW", 4: "NE"}
SEATS_FOR = {2: (1, 3), 3: (1, 2, 3), 4: (1, 2, 3, 4)}
WIDTH = HEIGHT = 20
LARGE_CENTRE, LARGE_INNER, LARGE_OUTER = 1200, 750, 350
SMALL_CENTRE, SMALL_OUTER = 750, 350
MIN_SPAWN_DISTANCE = 5


def allowed_centres(min_distance: int) -> tuple[tuple[int, int], ...]:
    """The cells at least `min_distance` from every spawn, in row order."""
    spawns = [cell for cells in SPAWNS.values() for cell in cells]
    return tuple(
        (x, y)
        for y in range(HEIGHT)
        for x in range(WIDTH)
        if all(cheb(x, y, sx, sy) >= min_distance for sx, sy in spawns)
    )


ALLOWED_CENTRES = allowed_centres(MIN_SPAWN_DISTANCE)
"""Cells a deposit's centre may take, in row order (the same for every seed)."""


def deposit_centres(rng: random.Random, count: int) -> list[tuple[int, int]]:
    return [rng.choice(ALLOWED_CENTRES) for _ in range(count)]


def generate_helium(seed: int) -> list[int]:
    """2-3 large (5x5) and 3-5 small (3x3) deposits; overlaps add, off-board helium is lost.

    Every spawn of all four corners is kept at distance 5 from every centre, so the map
    depends on the seed alone, not on how many seats play.
    """
    rng = random.Random(seed)
    n_large = rng.randint(2, 3)
    n_small = rng.randint(3, 5)
    helium = [0] * (WIDTH * HEIGHT)
    for cx, cy in deposit_centres(rng, n_large):
        _stamp(helium, cx, cy, (LARGE_CENTRE, LARGE_INNER, LARGE_OUTER))
    for cx, cy in deposit_centres(rng, n_small):
        _stamp(helium, cx, cy, (SMALL_CENTRE, SMALL_OUTER))
    return helium


def _stamp(helium: list[int], cx: int, cy: int, rings: tuple[int, ...]) -> None:
    reach = len(rings) - 1
    for y in range(cy - reach, cy + reach + 1):
        for x in range(cx - reach, cx + reach + 1):
            if 0 <= x < WIDTH and 0 <= y < HEIGHT:
                helium[y * WIDTH + x] += rings[cheb(x, y, cx, cy)]
