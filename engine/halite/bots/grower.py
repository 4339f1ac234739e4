"""`grower`: grows in place, then takes the neighbouring cell that pays best.

Each turn, on the seat's view (the whole state: Halite hides nothing):
- a piece on the border (a neighbour not its own) rates each such neighbour by
  production / strength: a neutral cell's strength is what taking it costs; a cell
  next to enemy pieces is worth its production plus every enemy strength a piece
  there would hit (each piece hits all enemies on and around its cell). It stays
  still to grow until its strength pays for the best rated neighbour (is more than
  that neutral or enemy strength), then moves in; a piece at the 255 cap that still
  cannot pay moves in anyway, wearing the cell down for the next piece;
- an interior piece (all four neighbours its own) stays until it has grown to
  `WAIT` times its cell's production, then moves one step toward the nearest border
  (wrapping distance over its own cells);
- pieces combine rather than waste: a move that would bring more than 255 onto one
  cell is turned to another useful direction or to staying still when one fits, and
  kept only when none does.
It draws nothing at random: the same state gives the same orders.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import compress
from random import Random

from engine.halite.state import SEAT_CELLS, State

CAP = 255
# An interior piece moves once it holds this many turns of its cell's production: a
# piece that moves does not grow, so moving small pieces wastes the interior's growth.
WAIT = 5
# Directions 1..4: north, east, south, west; 0 is still.
STEPS = ((0, 0), (0, -1), (1, 0), (0, 1), (-1, 0))
# neighbours[i][d]: the cell one step from cell i (= y * width + x) in direction d.
Grid = tuple[tuple[int, ...], ...]


def choose(state: State, seat: int, rng: Random) -> list[list[int]]:
    width = state.width
    height = state.height
    size = width * height
    owner = state.owner
    strength = state.strength
    production = state.production
    # neighbours[i][d]: the cell one step from i in direction d (wrapping); [i][0] is i.
    neighbours = _neighbours(width, height)

    mine = list(compress(range(size), bytes(owner).translate(SEAT_CELLS[seat])))
    distance = _border_distance(mine, neighbours, size)

    direction: dict[int, int] = {}
    # The value of a cell next to the border, found once however many pieces touch it.
    values: dict[int, float] = {}
    for i in mine:
        s = strength[i]
        if distance[i] == 1:
            direction[i] = _border_move(i, s, owner, strength, production, seat, neighbours, values)
        elif s > 0 and s >= WAIT * production[i]:
            direction[i] = _inward_move(i, distance, neighbours)
        else:
            direction[i] = 0
    _combine(direction, strength, production, neighbours, distance)
    return [[i % width, i // width, d] for i in mine if (d := direction[i])]


@lru_cache(maxsize=8)
def _neighbours(width: int, height: int) -> Grid:
    """Kept per map size: every turn of a match asks for the same table."""
    out: list[tuple[int, ...]] = []
    for y in range(height):
        for x in range(width):
            out.append(tuple(((y + dy) % height) * width + (x + dx) % width for dx, dy in STEPS))
    return tuple(out)


def _border_distance(mine: list[int], neighbours: Grid, size: int) -> list[int]:
    """Steps from each cell to the nearest cell not the seat's (0 there), over the torus.

    A walk inward from the border, ring by ring, over the seat's own cells only: its cost
    follows the territory, not the board."""
    far = size + 1
    distance = [0] * size
    for i in mine:
        distance[i] = far
    ring: list[int] = []
    for i in mine:
        near = neighbours[i]
        if not (
            distance[near[1]] and distance[near[2]] and distance[near[3]] and distance[near[4]]
        ):
            distance[i] = 1
            ring.append(i)
    step = 1
    while ring:
        step += 1
        inner: list[int] = []
        for i in ring:
            near = neighbours[i]
            for j in (near[1], near[2], near[3], near[4]):
                if distance[j] > step:
                    distance[j] = step
                    inner.append(j)
        ring = inner
    return distance


def _value(
    i: int, owner: list[int], strength: list[int], production: list[int], seat: int, near: Grid
) -> float:
    """How much taking cell i (not the seat's) is worth per strength it costs."""
    # Every enemy piece a piece standing here would hit (overkill: all at once).
    hit = 0
    for j in near[i]:
        o = owner[j]
        if o and o != seat:
            hit += strength[j] + 1
    cost = strength[i]
    return (production[i] + hit) / cost if cost else float(production[i] + hit + 1)


def _border_move(
    i: int,
    s: int,
    owner: list[int],
    strength: list[int],
    production: list[int],
    seat: int,
    neighbours: Grid,
    values: dict[int, float],
) -> int:
    best = 0
    best_value = -1.0
    near = neighbours[i]
    for d in (1, 2, 3, 4):
        j = near[d]
        if owner[j] != seat:
            value = values.get(j)
            if value is None:
                value = values[j] = _value(j, owner, strength, production, seat, neighbours)
            if value > best_value:
                best, best_value = d, value
    cost = strength[near[best]]
    if s > cost or (s >= CAP and best_value > 0):
        return best
    return 0


def _inward_move(i: int, distance: list[int], neighbours: Grid) -> int:
    """The first direction that brings the piece one step nearer the border."""
    target = distance[i] - 1
    for d in range(1, 5):
        if distance[neighbours[i][d]] == target:
            return d
    return 0


def _combine(
    direction: dict[int, int],
    strength: list[int],
    production: list[int],
    neighbours: Grid,
    distance: list[int],
) -> None:
    """Turn moves that would merge more than 255 onto one cell, where another fits."""
    total: dict[int, int] = {}
    get = total.get
    for i, d in direction.items():
        if d:  # _carried, inline: this loop sees every piece
            j = neighbours[i][d]
            total[j] = get(j, 0) + strength[i]
        else:
            grown = strength[i] + production[i]
            total[i] = get(i, 0) + (grown if grown < CAP else CAP)
    # The weakest movers give way first: they lose least by waiting or turning.
    for i in sorted((i for i, d in direction.items() if d), key=lambda i: (strength[i], i)):
        d = direction[i]
        j = neighbours[i][d]
        if total[j] <= CAP:
            continue
        s = strength[i]
        if distance[i] == 1:  # on the border: another neighbour it can take, or wait
            options = [e for e in range(1, 5) if distance[neighbours[i][e]] == 0]
            options = [e for e in options if s > strength[neighbours[i][e]]]
        else:  # inside: another step toward the border, or wait
            options = [e for e in range(1, 5) if distance[neighbours[i][e]] < distance[i]]
        options = [e for e in options if e != d] + [0]
        for e in options:
            k = neighbours[i][e]
            carried = _carried(i, e, strength, production)
            if total.get(k, 0) + carried <= CAP:
                total[j] -= s
                total[k] = total.get(k, 0) + carried
                direction[i] = e
                break


def _carried(i: int, d: int, strength: list[int], production: list[int]) -> int:
    """The strength piece i brings to where direction d takes it (a still piece grows)."""
    return min(CAP, strength[i] + production[i]) if d == 0 else strength[i]
