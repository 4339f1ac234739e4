"""The remake's helium: 7 to 10 hotspots of 3,000 in grains of 100, from the seed alone."""

from __future__ import annotations

import random

from engine.helium3.mapgen import HEIGHT, WIDTH, allowed_centres

MIN_HOTSPOTS, MAX_HOTSPOTS = 7, 10
GRAINS, GRAIN = 30, 100
SPREAD = 2
MIN_SPAWN_DISTANCE = 4


ALLOWED_CENTRES = allowed_centres(MIN_SPAWN_DISTANCE)
"""Cells a hotspot's centre may take (distance >= 4 from all twenty spawns), row order."""


def grain_cells(cx: int, cy: int) -> tuple[tuple[int, int], ...]:
    """The cells within distance 2 of a centre, clipped to the board, in row order."""
    return tuple(
        (x, y)
        for y in range(max(0, cy - SPREAD), min(HEIGHT, cy + SPREAD + 1))
        for x in range(max(0, cx - SPREAD), min(WIDTH, cx + SPREAD + 1))
    )


def generate_helium(seed: int) -> list[int]:
    """Flat helium (cell (x, y) at `y * WIDTH + x`): each hotspot lays 30 grains of 100,
    each on a cell drawn uniformly among the on-board cells within distance 2 of its
    centre, so every hotspot puts exactly 3,000 on the board."""
    rng = random.Random(seed)
    helium = [0] * (WIDTH * HEIGHT)
    for _ in range(rng.randint(MIN_HOTSPOTS, MAX_HOTSPOTS)):
        cx, cy = rng.choice(ALLOWED_CENTRES)
        cells = grain_cells(cx, cy)
        for _ in range(GRAINS):
            x, y = rng.choice(cells)
            helium[y * WIDTH + x] += GRAIN
    return helium
