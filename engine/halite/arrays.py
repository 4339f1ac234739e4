"""Steps 1 to 5 of a Halite turn (see `resolve`) on whole-board numpy arrays: the
work is proportional to the board, whatever is on it, and a crowded board costs less
than walking its pieces one by one.

One row of cells per seat: `total[s - 1, c]` is the strength of seat s's pieces on
cell c after step 2 (uncapped, for the merge events), `here[s - 1, c]` whether it has
any there (a piece of strength 0 is a piece: it deals 0 and any contact destroys it). The damage of step 3 is every
seat's sum over a cell and its four neighbours less the piece's own seat's, all seats
in one pass of shifted adds. The events are then read off the arrays in their
documented order (moves by the cell left; merges, damage and destructions by cell
and seat; captures by cell).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.halite.state import MAX_STRENGTH, State
from engine.halite.timeline import (
    CAPTURED_DURATION_MS,
    CAPTURED_MS,
    DAMAGE_DURATION_MS,
    DAMAGE_MS,
    DESTROYED_DURATION_MS,
    DESTROYED_MS,
    MERGE_DURATION_MS,
    MERGE_MS,
    MOVE_DURATION_MS,
    MOVE_MS,
    Event,
)

Ints = npt.NDArray[np.integer[Any]]
Bools = npt.NDArray[np.bool_]

__all__ = ["frame", "neighbours"]


@lru_cache(maxsize=64)
def neighbours(width: int, height: int) -> Ints:
    """`table[d, i]`: the flat index (y * width + x) one step from cell i in direction
    d (0 still, 1 north, 2 east, 3 south, 4 west; wrapping). Read-only: it is shared."""
    cells = np.arange(width * height, dtype=np.int64)
    x, y = cells % width, cells // width
    table = np.stack(
        [
            cells,
            (y - 1) % height * width + x,
            y * width + (x + 1) % width,
            (y + 1) % height * width + x,
            y * width + (x - 1) % width,
        ]
    )
    table.flags.writeable = False
    return table


def _grid(values: list[int]) -> Ints:
    """A flat grid of whole numbers 0..255 (every grid of a state) as an array."""
    return np.frombuffer(bytes(values), dtype=np.uint8).astype(np.int32)


_COUNT_SHIFT = 13
_SEAT_NUMBERS = np.arange(1, 7, dtype=np.int32)[:, None]  # row s - 1 holds seat s


def _plus_sums(table: Ints, width: int, height: int) -> Ints:
    """Each row's sum over every cell and its four neighbours (wrapping), by shifted
    adds of the rows seen as height x width grids."""
    grid = table.reshape(-1, height, width)
    out = grid.copy()
    out[:, 1:] += grid[:, :-1]
    out[:, 0] += grid[:, -1]
    out[:, :-1] += grid[:, 1:]
    out[:, -1] += grid[:, 0]
    out[:, :, 1:] += grid[:, :, :-1]
    out[:, :, 0] += grid[:, :, -1]
    out[:, :, :-1] += grid[:, :, 1:]
    out[:, :, -1] += grid[:, :, 0]
    return out.reshape(table.shape)


def frame(state: State, moves: dict[int, int]) -> tuple[State, list[Event], list[int]]:
    """Steps 1 to 5: the next state (before eliminations and the end), the events so
    far and each seat's territory (index s for seat s). `moves` maps a cell index to a
    direction for every seat at once (each cell was checked to be its owner's)."""
    width, height, seats = state.width, state.height, state.seats
    n = width * height
    step = neighbours(width, height)
    owner = _grid(state.owner)
    strength = _grid(state.strength)
    cells = step[0]

    # Step 1: every still piece (not named, or named with 0) grows where it stands; a
    # piece that moves leaves a piece of strength 0. A move of 0 is no move. The pieces
    # go in a table of one row per seat after a row 0 that takes the neutral cells.
    direction = np.zeros(n, dtype=np.int32)
    if moves:
        direction[np.fromiter(moves, np.int64, len(moves))] = np.fromiter(
            moves.values(), np.int32, len(moves)
        )
    movers = np.flatnonzero(direction)  # row-major: the order of the move events
    still = direction == 0
    grown = np.minimum(strength + _grid(state.production), MAX_STRENGTH)
    home = owner * n + cells
    value = np.zeros((seats + 1) * n, dtype=np.int32)
    value[home] = np.where(still, grown, 0)
    present = np.zeros((seats + 1) * n, dtype=np.bool_)
    present[home] = True
    stayed = np.zeros((seats + 1) * n, dtype=np.int32)
    stayed[home] = still

    # Step 2: the moves. Strengths add up uncapped while pieces arrive; a seat's pieces
    # merge where two or more of them end on a cell (the piece left behind is not one).
    mover_dir = direction[movers]
    mover_seat = owner[movers]
    mover_value = strength[movers]
    targets = step[mover_dir, movers]
    landing = mover_seat * n + targets
    arrived = np.bincount(landing, minlength=(seats + 1) * n)
    value += np.bincount(landing, weights=mover_value, minlength=(seats + 1) * n).astype(np.int32)
    present |= arrived > 0
    # From here on, row s - 1 is seat s.
    merged = (arrived + stayed >= 2)[n:].reshape(seats, n)
    total = value[n:].reshape(seats, n)
    here = present[n:].reshape(seats, n)
    piece = np.minimum(total, MAX_STRENGTH)

    # Step 3: a piece takes the strength of every other seat's pieces on its cell and
    # the four next to it (it is hit, even by 0, when there is any), and the neutral
    # strength of a cell that was neutral; that cell takes the pieces' sum. A piece
    # counts 1 << 13 besides its strength, so one sum gives how many hit and how hard
    # (five other seats on five cells are at most 25 * 255 strong, under 1 << 13).
    near = _plus_sums(piece + here * np.int32(1 << _COUNT_SHIFT), width, height)
    others = near.sum(axis=0) - near
    contact = others >= 1 << _COUNT_SHIFT
    damage = others & ((1 << _COUNT_SHIFT) - 1)
    occupied = here.any(axis=0)
    neutral = occupied & (owner == 0) & (strength > 0)
    damage += np.where(neutral, strength, 0)
    hit = here & (contact | neutral)

    # Steps 4 and 5: destruction, the neutral cells' loss, the new grids. At most one
    # seat survives on a cell: pieces sharing a cell each take the others' strength.
    destroyed = hit & (damage >= piece)
    alive = here & ~destroyed
    new_owner = (alive * _SEAT_NUMBERS[:seats]).sum(axis=0)  # 0 where none survived
    kept = (np.where(hit, piece - damage, piece) * alive).sum(axis=0)
    left = np.where(owner > 0, 0, np.maximum(strength - np.where(neutral, piece.sum(axis=0), 0), 0))
    new_strength = np.where(new_owner > 0, kept, np.where(occupied, left, strength))

    events = _events(width, movers, mover_seat, targets, mover_dir, mover_value)
    events += _contact_events(width, merged, total, hit, damage, destroyed)
    changed = np.flatnonzero(new_owner != owner)
    events += [
        {"type": "captured", "at": [x, y], "owner": o, "previous": p, "t_ms": CAPTURED_MS,
         "duration_ms": CAPTURED_DURATION_MS}
        for x, y, o, p in zip(
            (changed % width).tolist(), (changed // width).tolist(),
            new_owner[changed].tolist(), owner[changed].tolist(), strict=True,
        )
    ]  # fmt: skip

    territory = np.bincount(new_owner, minlength=seats + 1).tolist()
    new = State(
        state.seed, width, height, new_owner.tolist(), new_strength.tolist(), state.production,
        seats, state.turn + 1,
        [t + territory[s] for s, t in enumerate(state.territory_total, start=1)],
        state.eliminated[:],
    )  # fmt: skip
    return new, events, territory


def _by_cell(table: Bools) -> tuple[Ints, Ints]:
    """The (cell, row) of every true entry of a (seat row, cell) table, ordered by cell
    and then row (a stable sort of the row-major order by cell)."""
    found = np.flatnonzero(table)
    if not found.size:
        return found, found
    row, cell = np.divmod(found, table.shape[1])
    order = np.argsort(cell, kind="stable")
    return cell[order], row[order]


def _events(
    width: int, movers: Ints, seat: Ints, targets: Ints, direction: Ints, value: Ints
) -> list[Event]:
    """The move events, in row-major order of the cells left."""
    return [
        {"type": "move", "seat": s, "from": [x, y], "to": [tx, ty], "direction": d,
         "strength": v, "t_ms": MOVE_MS, "duration_ms": MOVE_DURATION_MS}
        for s, x, y, tx, ty, d, v in zip(
            seat.tolist(), (movers % width).tolist(), (movers // width).tolist(),
            (targets % width).tolist(), (targets // width).tolist(), direction.tolist(),
            value.tolist(), strict=True,
        )
    ]  # fmt: skip


def _contact_events(
    width: int, merged: Bools, total: Ints, hit: Bools, damage: Ints, destroyed: Bools
) -> list[Event]:
    """Merges, then damage, then destructions, each in order of (cell, seat)."""
    cell, row = _by_cell(merged)
    seat = row + 1
    totals = total[row, cell]
    lost = np.maximum(totals - MAX_STRENGTH, 0)
    events = [
        {"type": "merge", "seat": s, "at": [x, y], "strength": t - k, "lost": k,
         "t_ms": MERGE_MS, "duration_ms": MERGE_DURATION_MS}
        for s, x, y, t, k in zip(
            seat.tolist(), (cell % width).tolist(), (cell // width).tolist(), totals.tolist(),
            lost.tolist(), strict=True,
        )
    ]  # fmt: skip
    cell, row = _by_cell(hit)
    xs, ys, seats = (cell % width).tolist(), (cell // width).tolist(), (row + 1).tolist()
    events += [
        {"type": "damage", "seat": s, "at": [x, y], "damage": d, "t_ms": DAMAGE_MS,
         "duration_ms": DAMAGE_DURATION_MS}
        for s, x, y, d in zip(seats, xs, ys, damage[row, cell].tolist(), strict=True)
    ]  # fmt: skip
    events += [
        {"type": "destroyed", "seat": s, "at": [x, y], "t_ms": DESTROYED_MS,
         "duration_ms": DESTROYED_DURATION_MS}
        for s, x, y, gone in zip(seats, xs, ys, destroyed[row, cell].tolist(), strict=True)
        if gone
    ]  # fmt: skip
    return events
