"""Skyport's hex geometry on `(j, k)` coordinates: a rhombus of `size x size` tiles.

The six directions are steps `(dj, dk)`; the distance between two tiles follows from
them (skyport.md "Map"): `max(|dj|, |dk|)` when both have the same sign (or one is 0),
else `|dj| + |dk|`.
"""

from __future__ import annotations

Tile = tuple[int, int]

DIRECTIONS: dict[str, Tile] = {
    "up": (-1, -1),
    "down": (1, 1),
    "right-up": (-1, 0),
    "right-down": (0, 1),
    "left-up": (0, -1),
    "left-down": (1, 0),
}


def distance(a: Tile, b: Tile) -> int:
    """Steps between tiles `a` and `b` on an unbounded hex grid."""
    dj, dk = b[0] - a[0], b[1] - a[1]
    # offset_length, inline: the bots measure distances by the thousand a turn.
    if dj * dk >= 0:
        dj, dk = abs(dj), abs(dk)
        return dj if dj > dk else dk
    return abs(dj) + abs(dk)


def offset_length(dj: int, dk: int) -> int:
    """Steps needed for the offset `(dj, dk)`: the larger when both have the same sign
    (or one is 0: the product is not negative), else the sum."""
    if dj * dk >= 0:
        return max(abs(dj), abs(dk))
    return abs(dj) + abs(dk)


def step(tile: Tile, direction: str) -> Tile:
    dj, dk = DIRECTIONS[direction]
    return (tile[0] + dj, tile[1] + dk)


def on_map(tile: Tile, size: int) -> bool:
    return 0 <= tile[0] < size and 0 <= tile[1] < size


def neighbours(tile: Tile, size: int) -> list[Tile]:
    """The tiles at distance 1 that lie on the map, in the order of DIRECTIONS."""
    around = [step(tile, d) for d in DIRECTIONS]
    return [t for t in around if on_map(t, size)]
