#!/usr/bin/env python3
"""A Halite bot written for the 2016 environment: it speaks the 2016 text protocol
on standard input and output, standard library only, as a starter-kit bot does.

The protocol, one line per message:
- from the environment, once: the bot's tag (its seat), then "WIDTH HEIGHT", then
  every cell's production in row order, then the map;
- from the bot, once: its name;
- then every turn, from the environment: the map; from the bot: its moves,
  "x y d x y d ..." with d 0 still, 1 north, 2 east, 3 south, 4 west.
A map is the owners run-length encoded ("count owner count owner ...", row after
row) followed by every cell's strength in row order.

Its plan, deterministic: a piece takes the neighbouring cell it can beat that pays
best (production for the strength it costs; an enemy's cell first), else it grows
until it is worth five turns of its production, then a piece with no border next
to it walks to the nearest border. Run it with examples/halite_bridge.py.
"""

from __future__ import annotations

import sys

NAME = "Halite2016ExampleBot"
STILL, NORTH, EAST, SOUTH, WEST = 0, 1, 2, 3, 4
STEPS = {NORTH: (0, -1), EAST: (1, 0), SOUTH: (0, 1), WEST: (-1, 0)}
GROW_TURNS = 5

Grid = list[list[int]]


def parse_map(line: str, width: int, height: int) -> tuple[Grid, Grid]:
    """(owner, strength) grids from a map line of the 2016 protocol."""
    numbers = [int(word) for word in line.split()]
    owners: list[int] = []
    at = 0
    while len(owners) < width * height:
        count, owner = numbers[at], numbers[at + 1]
        owners.extend([owner] * count)
        at += 2
    strengths = numbers[at : at + width * height]
    rows = range(height)
    return (
        [owners[y * width : (y + 1) * width] for y in rows],
        [strengths[y * width : (y + 1) * width] for y in rows],
    )


def _value(production: int, strength: int, owner: int) -> float:
    # An enemy's cell is worth most: taking it hurts a rival and ends its piece there.
    bonus = 100.0 if owner != 0 else 0.0
    return bonus + production / max(strength, 1)


def _border_distance(owner: Grid, me: int, x: int, y: int, direction: int) -> int:
    """Steps from (x, y) towards `direction` to the first cell that is not mine."""
    height, width = len(owner), len(owner[0])
    dx, dy = STEPS[direction]
    limit = (width if dx else height) // 2
    for step in range(1, limit + 1):
        if owner[(y + dy * step) % height][(x + dx * step) % width] != me:
            return step
    return limit + 1


def choose(me: int, production: Grid, owner: Grid, strength: Grid) -> list[tuple[int, int, int]]:
    """The moves (x, y, direction) of every piece of seat `me` that does not stay."""
    height, width = len(owner), len(owner[0])
    moves = []
    for y in range(height):
        for x in range(width):
            if owner[y][x] != me:
                continue
            mine = strength[y][x]
            best, best_value = STILL, -1.0
            inside = True
            for direction, (dx, dy) in STEPS.items():
                nx, ny = (x + dx) % width, (y + dy) % height
                if owner[ny][nx] == me:
                    continue
                inside = False
                theirs = strength[ny][nx]
                value = _value(production[ny][nx], theirs, owner[ny][nx])
                if mine > theirs and value > best_value:
                    best, best_value = direction, value
            if best == STILL and mine >= GROW_TURNS * max(production[y][x], 1) and inside:
                best = min(STEPS, key=lambda d: (_border_distance(owner, me, x, y, d), d))
            if best != STILL:
                moves.append((x, y, best))
    return moves


def _read() -> str:
    line = sys.stdin.readline()
    if not line:  # the environment has closed the game
        sys.exit(0)
    return line


def _send(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def main() -> int:
    me = int(_read())
    width, height = (int(word) for word in _read().split())
    values = [int(word) for word in _read().split()]
    production = [values[y * width : (y + 1) * width] for y in range(height)]
    parse_map(_read(), width, height)  # the first map; each turn sends it again
    _send(NAME)
    while True:
        owner, strength = parse_map(_read(), width, height)
        moves = choose(me, production, owner, strength)
        _send(" ".join(f"{x} {y} {d}" for x, y, d in moves))


if __name__ == "__main__":
    sys.exit(main())
