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

A turn's events are recorded grouped by kind (`GROUPS`): one event per kind with a list
per field, made a list at a time in C, where a dict per piece cost more than the rest of
the turn (a mid-match 30 x 30 turn tells about 590 pieces). `expand` gives them piece
by piece, as every viewer reads them (`api.events_view`).
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

# What a turn records, grouped by kind in this order: each kind's event has a list per
# field of the event each piece or cell is told as (`expand`), a cell as its x and its
# y (the move's `from` and `to` as `from_x`, `from_y`, `to_x`, `to_y`), in the order
# they are told: moves by the cell they leave, the others cell by cell in row-major
# order, seat by seat on a cell.
GROUPS: dict[str, tuple[str, tuple[str, ...]]] = {
    "moves": ("move", ("seat", "from_x", "from_y", "to_x", "to_y", "direction", "strength")),
    "merges": ("merge", ("seat", "x", "y", "strength", "lost")),
    "damages": ("damage", ("seat", "x", "y", "damage")),
    "destructions": ("destroyed", ("seat", "x", "y")),
    "captures": ("captured", ("x", "y", "owner", "previous")),
}

__all__ = ["GROUPS", "TURN_MS", "Event", "expand", "neighbours", "resolve"]


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
    xs, ys = _coordinates(width, height)
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
    vacant = set(moving)
    merged: set[int] = set()
    entered: set[int] = set()
    targets: list[int] = []
    for i in moving:
        seat = owner[i]
        value = strength[i]
        target = step[moves[i]][i]
        targets.append(target)
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
    events: list[Event] = []
    if moving:
        events.append(
            {"type": "moves", "seat": list(map(owner.__getitem__, moving)),
             "from_x": list(map(xs.__getitem__, moving)),
             "from_y": list(map(ys.__getitem__, moving)),
             "to_x": list(map(xs.__getitem__, targets)),
             "to_y": list(map(ys.__getitem__, targets)),
             "direction": list(map(moves.__getitem__, moving)),
             "strength": list(map(strength.__getitem__, moving)),
             "t_ms": MOVE_MS, "duration_ms": MOVE_DURATION_MS}
        )  # fmt: skip
    if merged:
        keys = sorted(merged)
        kept: list[int] = []
        lost: list[int] = []
        for key in keys:
            i, seat = key >> 3, key & 7
            lone = on[i] == seat
            total = value_of[i] if lone else contested[i][seat]
            over = total - MAX_STRENGTH if total > MAX_STRENGTH else 0
            if over:
                if lone:
                    value_of[i] = MAX_STRENGTH
                else:
                    contested[i][seat] = MAX_STRENGTH
            kept.append(total - over)
            lost.append(over)
        events.append(
            {"type": "merges", **_pieces(keys, xs, ys), "strength": kept, "lost": lost,
             "t_ms": MERGE_MS, "duration_ms": MERGE_DURATION_MS}
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
    if hit:
        keys = sorted(hit)
        events.append(
            {"type": "damages", **_pieces(keys, xs, ys), "damage": list(map(hit.__getitem__, keys)),
             "t_ms": DAMAGE_MS, "duration_ms": DAMAGE_DURATION_MS}
        )  # fmt: skip
    if dead:
        dead.sort()
        entered.update(key >> 3 for key in dead)
        events.append(
            {"type": "destructions", **_pieces(dead, xs, ys), "t_ms": DESTROYED_MS,
             "duration_ms": DESTROYED_DURATION_MS}
        )  # fmt: skip
    packed = bytes(on)
    changed = [i for i in sorted(entered) if packed[i] != owner[i]]
    if changed:
        events.append(
            {"type": "captures", "x": list(map(xs.__getitem__, changed)),
             "y": list(map(ys.__getitem__, changed)),
             "owner": list(map(packed.__getitem__, changed)),
             "previous": list(map(owner.__getitem__, changed)), "t_ms": CAPTURED_MS,
             "duration_ms": CAPTURED_DURATION_MS}
        )  # fmt: skip

    territory = [0] + [packed.count(s) for s in range(1, seats + 1)]
    new = State(
        state.seed, width, height, on, value_of, production, seats, state.turn + 1,
        [t + territory[s] for s, t in enumerate(state.territory_total, start=1)],
        state.eliminated[:],
    )  # fmt: skip
    _finish(new, state, territory, events)
    return new, events


@lru_cache(maxsize=64)
def _coordinates(width: int, height: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Each cell's x and y."""
    cells = range(width * height)
    return tuple(i % width for i in cells), tuple(i // width for i in cells)


def _pieces(keys: list[int], xs: tuple[int, ...], ys: tuple[int, ...]) -> dict[str, list[int]]:
    """The seat, x and y lists of pieces keyed `cell * 8 + seat`."""
    cells = [key >> 3 for key in keys]
    return {
        "seat": [key & 7 for key in keys],
        "x": list(map(xs.__getitem__, cells)),
        "y": list(map(ys.__getitem__, cells)),
    }


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


def expand(events: list[Event]) -> list[Event]:
    """The turn's events piece by piece (halite.md "Views and events"): each grouped
    event becomes one event per piece or cell, in its order; other events stay as they
    are (a turn recorded piece by piece is read as it is)."""
    out: list[Event] = []
    for event in events:
        kind = event.get("type")
        told = _TOLD.get(kind) if type(kind) is str else None
        if told is None:
            out.append(event)
        else:
            out += told(event, event["t_ms"], event["duration_ms"])
    return out


# One function per grouped kind, each a comprehension: a turn may tell a thousand pieces.


def _moves(e: Event, t_ms: int, ms: int) -> list[Event]:
    return [
        {"type": "move", "seat": seat, "from": [fx, fy], "to": [tx, ty], "direction": d,
         "strength": strength, "t_ms": t_ms, "duration_ms": ms}
        for seat, fx, fy, tx, ty, d, strength in zip(
            e["seat"], e["from_x"], e["from_y"], e["to_x"], e["to_y"], e["direction"],
            e["strength"], strict=True,
        )
    ]  # fmt: skip


def _merges(e: Event, t_ms: int, ms: int) -> list[Event]:
    return [
        {"type": "merge", "seat": seat, "at": [x, y], "strength": strength, "lost": lost,
         "t_ms": t_ms, "duration_ms": ms}
        for seat, x, y, strength, lost in zip(
            e["seat"], e["x"], e["y"], e["strength"], e["lost"], strict=True
        )
    ]  # fmt: skip


def _damages(e: Event, t_ms: int, ms: int) -> list[Event]:
    return [
        {"type": "damage", "seat": seat, "at": [x, y], "damage": damage, "t_ms": t_ms,
         "duration_ms": ms}
        for seat, x, y, damage in zip(e["seat"], e["x"], e["y"], e["damage"], strict=True)
    ]  # fmt: skip


def _destructions(e: Event, t_ms: int, ms: int) -> list[Event]:
    return [
        {"type": "destroyed", "seat": seat, "at": [x, y], "t_ms": t_ms, "duration_ms": ms}
        for seat, x, y in zip(e["seat"], e["x"], e["y"], strict=True)
    ]


def _captures(e: Event, t_ms: int, ms: int) -> list[Event]:
    return [
        {"type": "captured", "at": [x, y], "owner": owner, "previous": previous,
         "t_ms": t_ms, "duration_ms": ms}
        for x, y, owner, previous in zip(e["x"], e["y"], e["owner"], e["previous"], strict=True)
    ]  # fmt: skip


_TOLD = {
    "moves": _moves, "merges": _merges, "damages": _damages, "destructions": _destructions,
    "captures": _captures,
}  # fmt: skip


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
