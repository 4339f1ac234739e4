"""`random`: every piece of the seat draws a direction uniformly from 0..4 (still, north,
east, south, west); pieces drawn still are left out of the orders (not named = still)."""

from __future__ import annotations

from random import Random
from typing import Any


def choose(state: dict[str, Any], seat: int, rng: Random) -> list[list[int]]:
    moves: list[list[int]] = []
    for y, row in enumerate(state["owner"]):
        for x, owner in enumerate(row):
            if owner == seat:
                direction = rng.randrange(5)
                if direction:
                    moves.append([x, y, direction])
    return moves
