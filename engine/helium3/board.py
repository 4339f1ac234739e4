"""Geometry of the moon grid: directions, distances and the path every engine picks."""

from __future__ import annotations

import math
from collections.abc import Container, Sequence
from operator import add

DIRECTIONS: tuple[str, ...] = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")
DELTAS: dict[str, tuple[int, int]] = {
    "N": (0, -1),
    "NE": (1, -1),
    "E": (1, 0),
    "SE": (1, 1),
    "S": (0, 1),
    "SW": (-1, 1),
    "W": (-1, 0),
    "NW": (-1, -1),
}
DIRECTION_OF: dict[tuple[int, int], str] = {d: name for name, d in DELTAS.items()}
DIRECTION_INDEX: dict[str, int] = {name: i for i, name in enumerate(DIRECTIONS)}
_STEPS: tuple[tuple[str, int, int], ...] = tuple((n, ex, ey) for n, (ex, ey) in DELTAS.items())
_DELTA_XY: tuple[tuple[int, int], ...] = tuple(DELTAS.values())
_STEPS_DIAGONAL: tuple[tuple[str, int, int, bool], ...] = tuple(
    (n, ex, ey, bool(ex and ey)) for n, ex, ey in _STEPS
)
_SQRT2 = math.sqrt(2.0)


def box_sums(values: Sequence[int], w: int, h: int) -> list[int]:
    """For each cell of a row-major `w` x `h` grid, the sum of `values` over it and its
    eight neighbours (cells off the board count 0), in a few passes over whole rows."""
    rows: list[int] = []
    for y in range(h):
        row = values[y * w : y * w + w]
        pairs = list(map(add, row, [0, *row[:-1]]))
        rows.extend(map(add, pairs, [*row[1:], 0]))
    zero = [0] * w
    return list(map(add, map(add, rows, zero + rows[:-w]), rows[w:] + zero))


def cheb(ax: int, ay: int, bx: int, by: int) -> int:
    """Chebyshev (king-move) distance."""
    dx = ax - bx
    dy = ay - by
    return max(dx if dx >= 0 else -dx, dy if dy >= 0 else -dy)


def rotation_steps(a: str, b: str) -> int:
    """How many 45-degree steps turn facing `a` into facing `b` (0..4)."""
    d = (DIRECTION_INDEX[b] - DIRECTION_INDEX[a]) % 8
    return d if d <= 4 else 8 - d


def closest_direction(dx: int, dy: int, prefer: tuple[str, ...] = DIRECTIONS) -> str:
    """The direction (of `prefer`) at the smallest angle to the vector (dx, dy).

    Ties go to the direction that comes first in N NE E SE S SW W NW. The cosine is
    compared as dot/|d|, exact enough for board-sized integers (a*sqrt(2) == b has no
    integer solution but 0 == 0).
    """
    best = prefer[0]
    best_key = -math.inf
    for name in DIRECTIONS:
        if name not in prefer:
            continue
        ex, ey = DELTAS[name]
        dot = ex * dx + ey * dy
        key = dot / _SQRT2 if ex and ey else float(dot)
        if key > best_key:
            best, best_key = name, key
    return best


class Grid:
    """Tables of one board size: each cell's neighbours on the board (cell indexes
    `y * width + x`, in N NE E SE S SW W NW order), the 3x3 block around it and, made
    as first asked, each cell's Chebyshev distance to every cell."""

    __slots__ = ("width", "height", "neighbours", "blocks", "_distances")

    def __init__(self, width: int, height: int) -> None:
        self.width = width
        self.height = height
        self.neighbours: tuple[tuple[int, ...], ...] = tuple(
            tuple(
                (y + ey) * width + x + ex
                for ex, ey in _DELTA_XY
                if 0 <= x + ex < width and 0 <= y + ey < height
            )
            for y in range(height)
            for x in range(width)
        )
        # The block's cells on the board, row by row: (x, y, index, whether the centre).
        self.blocks: tuple[tuple[tuple[int, int, int, bool], ...], ...] = tuple(
            tuple(
                (bx, by, by * width + bx, bx == x and by == y)
                for by in range(y - 1, y + 2)
                if 0 <= by < height
                for bx in range(x - 1, x + 2)
                if 0 <= bx < width
            )
            for y in range(height)
            for x in range(width)
        )
        self._distances: list[bytes | None] = [None] * (width * height)

    def distances(self, cell: int) -> bytes:
        """The Chebyshev distance from `cell` to each cell, by index (at most 63 on a
        board of at most 64 cells a side)."""
        row = self._distances[cell]
        if row is None:
            y, x = divmod(cell, self.width)
            across = [x - c if x >= c else c - x for c in range(self.width)]
            made = bytearray()
            for r in range(self.height):
                down = y - r if y >= r else r - y
                made.extend([down if down > a else a for a in across])
            row = self._distances[cell] = bytes(made)
        return row


_GRIDS: dict[tuple[int, int], Grid] = {}


def grid(width: int, height: int) -> Grid:
    """The tables of a board size, made once per size (the same for every match)."""
    found = _GRIDS.get((width, height))
    if found is None:
        found = _GRIDS[width, height] = Grid(width, height)
    return found


def free_distances(
    dest: int, start: int, width: int, height: int, blocked: Container[int], limit: int
) -> dict[int, int] | None:
    """Breadth-first distances to `dest` over free cells, up to `start`'s level.

    Cells are indexes `y * width + x`. Returns None when `start` is not reached within
    `limit` steps. A cell that cannot lie on a free path of at most `limit` steps
    (its distance plus its Chebyshev distance to `start` exceeds `limit`) is not
    explored; every cell on a shortest free path has its exact distance, which is all
    `shortest_path` reads.
    """
    tables = grid(width, height)
    neighbours = tables.neighbours
    to_start = tables.distances(start)
    dist = {dest: 0}
    frontier = [dest]
    step = 0
    # Level by level: the cells `step` away, each level's in the order found.
    while frontier and step < limit:
        step += 1
        budget = limit - step  # how far from `start` a next cell may be
        found: list[int] = []
        for cell in frontier:
            for n in neighbours[cell]:
                if n in dist or to_start[n] > budget:
                    continue
                if n == start:
                    dist[n] = step
                    return dist
                if n not in blocked:
                    dist[n] = step
                    found.append(n)
        frontier = found
    return None


def shortest_path(
    sx: int,
    sy: int,
    tx: int,
    ty: int,
    facing: str,
    width: int,
    height: int,
    blocked: Container[int],
    limit: int,
    obstacles_near: bool,
) -> list[tuple[int, int]] | None:
    """The path the engine picks from (sx, sy) to (tx, ty), or None if none is `limit` long.

    Each step stays on a shortest free path; among such steps it keeps the current
    facing if it can; otherwise it takes the direction at the smallest angle to the
    straight line to the destination; a remaining tie goes to the first direction in
    N NE E SE S SW W NW. `obstacles_near` False promises that no blocked cell lies on
    any Chebyshev-shortest route, which lets free distance equal Chebyshev distance.
    """
    total = cheb(sx, sy, tx, ty)
    if total > limit:
        return None
    dist: dict[int, int] | None = None
    if obstacles_near:
        dist = free_distances(ty * width + tx, sy * width + sx, width, height, blocked, limit)
        if dist is None:
            return None
    path: list[tuple[int, int]] = []
    cx, cy = sx, sy
    here = dist[cy * width + cx] if dist is not None else total
    while cx != tx or cy != ty:
        want = here - 1
        dx, dy = tx - cx, ty - cy
        # The steps that stay on a shortest free path, in N NE E SE S SW W NW order:
        # the facing if it is one, else the first at the smallest angle to (dx, dy)
        # (`closest_direction` over them, computed on the way).
        step = ""
        best_key = -math.inf
        for name, ex, ey, diagonal in _STEPS_DIAGONAL:
            nx, ny = cx + ex, cy + ey
            if not (0 <= nx < width and 0 <= ny < height):
                continue
            if dist is not None:
                if dist.get(ny * width + nx, -1) != want:
                    continue
            else:
                ax, ay = dx - ex, dy - ey  # the Chebyshev distance left is `want` exactly
                if (ax if ax >= 0 else -ax) > want or (ay if ay >= 0 else -ay) > want:
                    continue
            if name == facing:
                step = name
                break
            dot = ex * dx + ey * dy
            key = dot / _SQRT2 if diagonal else float(dot)
            if key > best_key:
                step, best_key = name, key
        ex, ey = DELTAS[step]
        cx, cy = cx + ex, cy + ey
        facing = step
        here = want
        path.append((cx, cy))
    return path


_FREE_PATHS: dict[tuple[int, int, str], tuple[tuple[int, int], ...]] = {}


def free_path(dx: int, dy: int, facing: str) -> tuple[tuple[int, int], ...]:
    """The steps, as offsets from the start, that `shortest_path` picks toward the
    offset (dx, dy) when nothing stands in the way and no edge is near.

    On a real board it is the path as long as every one of its cells is on the board
    and free: a blocked or off-board cell that the path does not cross only takes away
    steps the path did not pick, so every step it picked is still picked. Computed once
    per offset and facing (a module-level table: the same answer for every board).
    """
    key = (dx, dy, facing)
    steps = _FREE_PATHS.get(key)
    if steps is None:
        total = cheb(0, 0, dx, dy)
        r = total + 1
        size = 2 * r + 1
        path = shortest_path(r, r, r + dx, r + dy, facing, size, size, (), total, False)
        assert path is not None  # nothing stands in the way
        steps = tuple((x - r, y - r) for x, y in path)
        _FREE_PATHS[key] = steps
    return steps


def on_shortest_route(sx: int, sy: int, tx: int, ty: int, x: int, y: int) -> bool:
    """Whether (x, y) lies on some Chebyshev-shortest route from s to t."""
    return cheb(sx, sy, x, y) + cheb(x, y, tx, ty) == cheb(sx, sy, tx, ty)
