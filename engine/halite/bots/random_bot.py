"""`random`: every piece of the seat draws a direction uniformly from 0..4 (still, north,
east, south, west); pieces drawn still are left out of the orders (not named = still)."""

from __future__ import annotations

from random import Random

from engine.halite.state import State


def choose(state: State, seat: int, rng: Random) -> list[list[int]]:
    width = state.width
    moves: list[list[int]] = []
    for i, owner in enumerate(state.owner):
        if owner == seat:
            direction = rng.randrange(5)
            if direction:
                moves.append([i % width, i // width, direction])
    return moves
