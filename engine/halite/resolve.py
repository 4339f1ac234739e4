"""One Halite turn (halite.md "One turn"), every seat's moves at once.

1. A piece that stays still grows by its cell's production (capped at 255).
2. Every piece goes where its move takes it; a seat's pieces that end on one cell
   merge (capped at 255); a piece that moved away leaves a piece of strength 0.
3. Damage, from the strengths after step 2: each piece deals its strength to every
   other seat's piece on its cell and the four adjacent ones; a piece on a cell that
   had neutral strength takes that strength, and the cell takes the pieces' sum.
4. A piece whose damage is at least its strength is destroyed; neutral strength
   falls by its damage, not below 0.
5. A cell whose pieces were all destroyed is neutral; a survivor owns its cell.
6. Territory is counted; a seat with no cell is eliminated.
7. The match is over when one seat or none has cells, or at `max_turns`.

The work is proportional to the owned cells and their neighbours: the grids are flat
lists, neighbours come from a table per board size. The one walk that would visit every
piece, finding where two seats' pieces touch, is done on the whole board as one integer
(`_contacts`), a few operations in C, and visits only the pieces on a front.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import compress
from typing import Any

from engine.halite.state import MAX_STRENGTH, State

Event = dict[str, Any]

TURN_MS = 800
MOVE_MS, MOVE_DURATION_MS = 0, 300
MERGE_MS, MERGE_DURATION_MS = 300, 100
DAMAGE_MS, DAMAGE_DURATION_MS = 400, 200
DESTROYED_MS, DESTROYED_DURATION_MS = 600, 200
CAPTURED_MS, CAPTURED_DURATION_MS = 600, 200
END_MS = 800

__all__ = ["TURN_MS", "Event", "neighbours", "resolve"]


@lru_cache(maxsize=64)
def neighbours(width: int, height: int) -> tuple[tuple[int, ...], ...]:
    """For each direction 0..4, the flat index each cell's move leads to (wrapping)."""
    n = width * height
    cells = range(n)
    return (
        tuple(cells),
        tuple((i - width) % n for i in cells),
        tuple(i - i % width + (i % width + 1) % width for i in cells),
        tuple((i + width) % n for i in cells),
        tuple(i - i % width + (i % width - 1) % width for i in cells),
    )


def resolve(state: State, moves: dict[int, int]) -> tuple[State, list[Event]]:
    """The next state and the turn's events. `moves` maps a cell index to a direction for
    every seat at once (each cell was checked to be its owner's); unnamed cells stay.

    Where the pieces are after step 2 is kept on flat lists: `on[c]` is the seat whose
    pieces are on cell c (0 none, -1 several: a contested cell, whose strengths are in
    `contested[c]`, seat -> strength), `value_of[c]` the strength of a lone seat's
    piece (the neutral strength where `on[c]` is 0). Every owned cell still holds a piece of its owner after the moves (the piece
    that stayed, or the one left behind, or pieces that came in), so both lists start
    as copies of the grids and only the moves change them. A piece of a seat on a cell
    is keyed `cell * 8 + seat` (seats are 1 to 6): an int hashes and sorts faster than a
    pair, and sorts in the same order."""
    width, height, seats = state.width, state.height, state.seats
    owner, strength, production = state.owner, state.strength, state.production
    step = neighbours(width, height)
    on = owner[:]
    value_of = strength[:]
    contested: dict[int, dict[int, int]] = {}

    # Step 1: every still piece (not named, or named with 0) grows where it stands; a
    # piece that moves leaves a piece of strength 0.
    for i in compress(range(len(owner)), owner):
        value = strength[i] + production[i]
        value_of[i] = value if value < MAX_STRENGTH else MAX_STRENGTH
    moving = sorted([i for i, d in moves.items() if d])
    for i in moving:
        value_of[i] = 0

    # Step 2: the moves, in row-major order of the cells they leave; strengths add up
    # uncapped while pieces arrive. `merged` is the pieces (keys) where two or more of a
    # seat's pieces met (the piece left behind is not one: `vacant` holds the cells left
    # that no piece of their seat has entered yet); `entered` the cells that were neutral.
    events: list[Event] = []
    append = events.append
    vacant = set(moving)
    merged: set[int] = set()
    entered: set[int] = set()
    for i in moving:
        seat = owner[i]
        direction = moves[i]
        value = strength[i]
        target = step[direction][i]
        append(
            {"type": "move", "seat": seat, "from": [i % width, i // width],
             "to": [target % width, target // width], "direction": direction,
             "strength": value, "t_ms": MOVE_MS, "duration_ms": MOVE_DURATION_MS}
        )  # fmt: skip
        here = on[target]
        if here == seat:
            if target in vacant:
                vacant.remove(target)
            else:
                merged.add(target * 8 + seat)
            value_of[target] += value
        elif here == 0:
            on[target] = seat
            value_of[target] = value
            entered.add(target)
        else:
            _contest(on, value_of, contested, target, seat, value, vacant, merged, owner)
            if not owner[target]:
                entered.add(target)
    for key in sorted(merged):
        i, seat = key >> 3, key & 7
        lone = on[i] == seat
        total = value_of[i] if lone else contested[i][seat]
        lost = 0
        if total > MAX_STRENGTH:
            lost = total - MAX_STRENGTH
            if lone:
                value_of[i] = MAX_STRENGTH
            else:
                contested[i][seat] = MAX_STRENGTH
        append(
            {"type": "merge", "seat": seat, "at": [i % width, i // width],
             "strength": total - lost, "lost": lost, "t_ms": MERGE_MS,
             "duration_ms": MERGE_DURATION_MS}
        )  # fmt: skip

    hit, neutral_damage = _damage(step, strength, on, value_of, contested, entered)

    # Steps 4 and 5: destruction, the neutral cells' loss, the new grid. The piece
    # lists become the new grids: a cell with no piece keeps its neutral strength; a
    # cell whose pieces were all destroyed becomes neutral with what the neutral
    # strength kept (0 where it was owned). A cell changes hands only where a piece
    # was destroyed or a piece entered a neutral cell.
    def left(i: int) -> int:
        if owner[i]:
            return 0
        rest = strength[i] - neutral_damage.get(i, 0)
        return rest if rest > 0 else 0

    dead: list[int] = []
    for key, damage in hit.items():
        i = key >> 3
        if on[i] > 0:  # a lone seat's piece: the key's seat
            value = value_of[i]
            if damage >= value:
                dead.append(key)
                on[i] = 0
                value_of[i] = left(i)
            else:
                value_of[i] = value - damage
        else:
            strengths = contested[i]
            seat = key & 7
            value = strengths[seat]
            if damage >= value:
                dead.append(key)
                del strengths[seat]
            else:
                strengths[seat] = value - damage
    for i, strengths in contested.items():
        # At most one seat survives on a cell: each took at least the other's strength.
        on[i], value_of[i] = next(iter(strengths.items())) if strengths else (0, left(i))
    new_owner, new_strength = on, value_of
    for key in sorted(hit):
        i = key >> 3
        append(
            {"type": "damage", "seat": key & 7, "at": [i % width, i // width],
             "damage": hit[key], "t_ms": DAMAGE_MS, "duration_ms": DAMAGE_DURATION_MS}
        )  # fmt: skip
    dead.sort()
    for key in dead:
        i = key >> 3
        entered.add(i)
        append(
            {"type": "destroyed", "seat": key & 7, "at": [i % width, i // width],
             "t_ms": DESTROYED_MS, "duration_ms": DESTROYED_DURATION_MS}
        )  # fmt: skip
    for i in sorted(entered):
        now = new_owner[i]
        if now != owner[i]:
            append(
                {"type": "captured", "at": [i % width, i // width], "owner": now,
                 "previous": owner[i], "t_ms": CAPTURED_MS, "duration_ms": CAPTURED_DURATION_MS}
            )  # fmt: skip

    packed = bytes(new_owner)
    territory = [0] + [packed.count(s) for s in range(1, seats + 1)]
    new = State(
        state.seed, width, height, new_owner, new_strength, production, seats, state.turn + 1,
        [t + territory[s] for s, t in enumerate(state.territory_total, start=1)],
        state.eliminated[:],
    )  # fmt: skip
    _finish(new, state, territory, events)
    return new, events


def _contest(
    on: list[int],
    value_of: list[int],
    contested: dict[int, dict[int, int]],
    c: int,
    seat: int,
    value: int,
    vacant: set[int],
    merged: set[int],
    owner: list[int],
) -> None:
    """A piece of `seat` arrives on cell c, which holds another seat's pieces: the cell
    becomes (or stays) contested. It merges with the seat's pieces already there,
    unless all it finds is the piece of strength 0 its seat left behind."""
    here = on[c]
    if here > 0:
        contested[c] = {here: value_of[c], seat: value}
        on[c] = -1
        return
    strengths = contested[c]
    first = c in vacant and owner[c] == seat
    if seat in strengths:
        strengths[seat] += value
        if not first:
            merged.add(c * 8 + seat)
    else:
        strengths[seat] = value
    if first:
        vacant.remove(c)


def _damage(
    step: tuple[tuple[int, ...], ...],
    strength: list[int],
    on: list[int],
    value_of: list[int],
    contested: dict[int, dict[int, int]],
    entered: set[int],
) -> tuple[dict[int, int], dict[int, int]]:
    """Step 3: the damage each piece takes (`hit[cell * 8 + seat]`; a piece that is hit
    at all has an entry, even of 0) and the damage each neutral cell takes.

    Two pieces of different seats hit each other when they share a cell or are
    orthogonal neighbours. Pairs on neighbouring cells are found once each, from the
    west or north cell of the pair (looking east and south); a contested cell is rare
    and handled on its own with all its pairs. Only a cell a piece `entered` can have
    neutral strength under a piece.
    """
    hit: dict[int, int] = {}
    get = hit.get
    if contested:
        lone = on[:]
        for i in contested:
            lone[i] = 0
        packed = bytes(lone)
    else:
        packed = bytes(on)
    for i, c in _contacts(packed, step):
        seat, other = on[i], on[c]
        key = c * 8 + other
        hit[key] = get(key, 0) + value_of[i]
        key = i * 8 + seat
        hit[key] = get(key, 0) + value_of[c]
    for i, strengths in contested.items():
        here = list(strengths.items())
        for s, value in here:
            for t, _ in here:
                if t != s:
                    key = i * 8 + t
                    hit[key] = get(key, 0) + value
        for direction in (1, 2, 3, 4):
            c = step[direction][i]
            other = on[c]
            if other > 0:
                there = [(other, value_of[c])]
            elif other < 0 and direction in (2, 3):
                there = list(contested[c].items())
            else:
                continue  # nobody there, or a contested cell to the north or west, which
                # handles this pair as its south or east neighbour
            for s, value in here:
                for t, their_value in there:
                    if t != s:
                        key = c * 8 + t
                        hit[key] = get(key, 0) + value
                        key = i * 8 + s
                        hit[key] = get(key, 0) + their_value
    neutral_damage: dict[int, int] = {}
    for i in entered:
        if strength[i]:
            held = [(on[i], value_of[i])] if on[i] > 0 else list(contested[i].items())
            for seat, value in held:
                key = i * 8 + seat
                hit[key] = get(key, 0) + strength[i]
                neutral_damage[i] = neutral_damage.get(i, 0) + value
    return hit, neutral_damage


def _contacts(packed: bytes, step: tuple[tuple[int, ...], ...]) -> list[tuple[int, int]]:
    """Every pair (cell, its east or south neighbour) where lone pieces of two seats
    meet, given `packed`, the seat on each cell (0 for none). The board is read as one
    integer with a byte per cell (a seat fits in its 3 low bits), shifted to put each
    cell's east and south neighbours in its place, so that the few hundred cells on a
    front are found in a handful of operations on whole boards instead of a step per
    piece; the pairs come east ones first, each in row-major order."""
    n = len(packed)
    width = step[3][0]  # cell 0's south neighbour
    last, not_last, ones = _masks(n, width)
    board = int.from_bytes(packed, "little")
    east_of = ((board >> 8) & not_last) | ((board << 8 * (width - 1)) & last)
    south_of = (board >> 8 * width) | ((board & ((1 << 8 * width) - 1)) << 8 * (n - width))
    held = _nonzero(board, ones)
    pairs: list[tuple[int, int]] = []
    for neighbour, direction in ((east_of, 2), (south_of, 3)):
        meet = held & _nonzero(neighbour, ones) & _nonzero(board ^ neighbour, ones)
        if meet:
            to = step[direction]
            found = meet.to_bytes(n, "little")
            i = found.find(1)
            while i >= 0:  # a front is a few dozen cells of the board: find() skips the rest
                pairs.append((i, to[i]))
                i = found.find(1, i + 1)
    return pairs


def _nonzero(board: int, ones: int) -> int:
    """1 in the low bit of each cell's byte whose 3 low bits are not all 0."""
    return (board | board >> 1 | board >> 2) & ones


@lru_cache(maxsize=64)
def _masks(n: int, width: int) -> tuple[int, int, int]:
    """For a board of n cells, `width` wide, a byte per cell: all bits of the last
    column's cells, all bits of every other cell, and the low bit of every cell."""
    last = int.from_bytes(bytes(255 if i % width == width - 1 else 0 for i in range(n)), "little")
    every = (1 << 8 * n) - 1
    ones = int.from_bytes(b"\x01" * n, "little")
    return last, every ^ last, ones


def _finish(new: State, old: State, territory: list[int], events: list[Event]) -> None:
    """Steps 6 and 7: eliminations, and the end of the match with its ranking."""
    total = new.territory_total
    gone = [s for s in old.alive if not territory[s]]
    gone.sort(key=lambda s: total[s - 1])  # same turn: the smaller territory_total first
    new.eliminated.extend(gone)
    for seat in gone:
        events.append({"type": "eliminated", "seat": seat, "t_ms": END_MS, "duration_ms": 0})
    alive = [s for s in old.alive if territory[s]]
    if len(alive) > 1 and new.turn < new.max_turns:
        return

    def key(seat: int) -> tuple[int, int]:
        return (territory[seat], total[seat - 1])

    # As in 2016: ties of both territory and territory_total rank the larger seat first.
    standing = sorted(alive, key=lambda s: (key(s), s), reverse=True)
    new.ranking = standing + new.eliminated[::-1]
    best = new.ranking[0]
    contenders = alive or gone
    new.winners = sorted(s for s in contenders if key(s) == key(best))
    new.over = True
    events.append(
        {"type": "over", "winners": new.winners[:], "ranking": new.ranking[:], "t_ms": END_MS,
         "duration_ms": 0}
    )  # fmt: skip
