"""A new arena match: the robots on their corners and the obstacles, a pure function
of the seed."""

from __future__ import annotations

import random
from typing import Any

from engine.arena.state import (
    BASE_HEALTH,
    DEFAULT_ROUNDS,
    DIRECTIONS,
    HEIGHT,
    MAX_ROUNDS,
    MIN_ROUNDS,
    SEAT_COUNTS,
    WIDTH,
)
from engine.errors import ShapeError

STARTS = ((0, 0), (9, 9), (9, 0), (0, 9))
MIN_OBSTACLES, MAX_OBSTACLES = 10, 16


def _reachable(blocked: set[tuple[int, int]], start: tuple[int, int]) -> set[tuple[int, int]]:
    seen = {start}
    todo = [start]
    while todo:
        x, y = todo.pop()
        for dx, dy in DIRECTIONS.values():
            cell = (x + dx, y + dy)
            if (
                0 <= cell[0] < WIDTH
                and 0 <= cell[1] < HEIGHT
                and cell not in blocked
                and cell not in seen
            ):
                seen.add(cell)
                todo.append(cell)
    return seen


def place_obstacles(seed: int) -> list[list[int]]:
    """10..16 obstacle cells from the seed: point symmetric, never on a start cell (nor,
    by symmetry, on any corner), every empty cell reachable from every start."""
    rng = random.Random(seed)
    corners = set(STARTS)
    free = WIDTH * HEIGHT
    while True:
        count = rng.randrange(MIN_OBSTACLES // 2, MAX_OBSTACLES // 2 + 1)  # pairs
        cells: set[tuple[int, int]] = set()
        while len(cells) < count * 2:
            x, y = rng.randrange(WIDTH), rng.randrange(HEIGHT)
            if (x, y) in corners or (x, y) in cells:
                continue
            cells.add((x, y))
            cells.add((WIDTH - 1 - x, HEIGHT - 1 - y))
        # A 10 x 10 board has no centre cell, so each pair is two cells.
        if len(_reachable(cells, STARTS[0])) == free - len(cells):
            return [list(c) for c in sorted(cells)]


def new_game(*, seed: int, seats: int = 2, rounds: int = DEFAULT_ROUNDS) -> dict[str, Any]:
    if type(seed) is not int:
        raise ShapeError("bad_shape", "The seed is a whole number.")
    if seats not in SEAT_COUNTS:
        raise ShapeError("bad_shape", "The arena takes 2, 3 or 4 seats.")
    if type(rounds) is not int or not MIN_ROUNDS <= rounds <= MAX_ROUNDS:
        raise ShapeError("bad_shape", f"Rounds are {MIN_ROUNDS} to {MAX_ROUNDS}.")
    robots = [
        {
            "seat": s,
            "x": STARTS[s - 1][0],
            "y": STARTS[s - 1][1],
            "health": BASE_HEALTH,
            "max_health": BASE_HEALTH,
            "parts": [],
            "steps_left": 0,
            "shot": False,
            "reload": 0,
            "alive": True,
        }
        for s in range(1, seats + 1)
    ]
    return {
        "ruleset": "arena",
        "seed": seed,
        "width": WIDTH,
        "height": HEIGHT,
        "phase": "build",
        "players": [{"seat": s} for s in range(1, seats + 1)],
        "obstacles": place_obstacles(seed),
        "robots": robots,
        "knowledge": {str(s): {} for s in range(1, seats + 1)},
        "round": 1,
        "rounds": rounds,
        "turn": 0,
        "step": 0,
        "awaiting": list(range(1, seats + 1)),
        "scores": {str(s): BASE_HEALTH for s in range(1, seats + 1)},
        "over": False,
        "winners": [],
    }
