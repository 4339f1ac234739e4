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

The work is proportional to the owned cells and their neighbours, never the board:
the grids are flat lists, neighbours come from a table per board size.
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


class _Pieces:
    """Where the pieces are after step 2, on flat lists: `seat[c]` is the seat whose
    pieces are on cell c (0 none, -1 several: a contested cell, whose strengths are in
    `contested[c]`, seat -> strength), `value[c]` the strength of a lone seat's piece
    (meaningless where `seat[c]` is 0); `cells` lists every cell that holds pieces.

    Every owned cell still holds a piece of its owner after the moves (the piece that
    stayed, or the one left behind, or pieces that came in), so both lists start as
    copies of the grids, and only the moves change them. Nearly every cell holds one
    seat's pieces, so the common case costs list lookups only."""

    __slots__ = ("cells", "contested", "seat", "value")

    def __init__(self, owner: list[int], strength: list[int]) -> None:
        self.seat = owner[:]
        self.value = strength[:]
        self.cells = list(compress(range(len(owner)), owner))
        self.contested: dict[int, dict[int, int]] = {}

    def add(self, c: int, seat: int, value: int) -> bool:
        """Put a piece of `seat` on cell c; True when it merges with one already there."""
        here = self.seat[c]
        if here == seat:
            self.value[c] += value
            return True
        if here == 0:
            self.seat[c] = seat
            self.value[c] = value
            self.cells.append(c)
            return False
        if here > 0:
            self.contested[c] = {here: self.value[c], seat: value}
            self.seat[c] = -1
            return False
        strengths = self.contested[c]
        if seat in strengths:
            strengths[seat] += value
            return True
        strengths[seat] = value
        return False

    def put(self, c: int, seat: int, value: int) -> None:
        if self.seat[c] == seat:
            self.value[c] = value
        else:
            self.contested[c][seat] = value


def resolve(state: State, moves: dict[int, int]) -> tuple[State, list[Event]]:
    """The next state and the turn's events. `moves` maps a cell index to a direction for
    every seat at once (each cell was checked to be its owner's); unnamed cells stay."""
    width, height, seats = state.width, state.height, state.seats
    owner, strength, production = state.owner, state.strength, state.production
    step = neighbours(width, height)
    pieces = _Pieces(owner, strength)
    on, value_of, cells = pieces.seat, pieces.value, pieces.cells

    # Step 1: every still piece (not named, or named with 0) grows where it stands; a
    # piece that moves leaves a piece of strength 0.
    get_move = moves.get
    for i in cells:
        if get_move(i):
            value_of[i] = 0
        else:
            value = strength[i] + production[i]
            value_of[i] = value if value < MAX_STRENGTH else MAX_STRENGTH

    # Step 2: the moves, in row-major order of the cells they leave; strengths add up
    # uncapped while pieces arrive. `merged` is the cells where two or more of a seat's
    # pieces met (the piece left behind is not one: `vacant` holds the cells left that
    # no piece of their seat has entered yet); `entered` the cells that were neutral.
    events: list[Event] = []
    moving = sorted(i for i, d in moves.items() if d)
    vacant = set(moving)
    merged: set[tuple[int, int]] = set()
    entered: set[int] = set()
    for i in moving:
        seat = owner[i]
        direction = moves[i]
        value = strength[i]
        target = step[direction][i]
        events.append(
            {"type": "move", "seat": seat, "from": [i % width, i // width],
             "to": [target % width, target // width], "direction": direction,
             "strength": value, "t_ms": MOVE_MS, "duration_ms": MOVE_DURATION_MS}
        )  # fmt: skip
        here = on[target]
        if here == seat:
            if target in vacant:
                vacant.discard(target)
            else:
                merged.add((target, seat))
            value_of[target] += value
        elif here == 0:
            on[target] = seat
            value_of[target] = value
            cells.append(target)
            entered.add(target)
        else:
            first = target in vacant and owner[target] == seat
            if pieces.add(target, seat, value) and not first:
                merged.add((target, seat))
            if first:
                vacant.discard(target)
            if not owner[target]:
                entered.add(target)
    for i, seat in sorted(merged):
        total = value_of[i] if on[i] == seat else pieces.contested[i][seat]
        lost = 0
        if total > MAX_STRENGTH:
            pieces.put(i, seat, MAX_STRENGTH)
            lost = total - MAX_STRENGTH
        events.append(
            {"type": "merge", "seat": seat, "at": [i % width, i // width],
             "strength": total - lost, "lost": lost, "t_ms": MERGE_MS,
             "duration_ms": MERGE_DURATION_MS}
        )  # fmt: skip

    hit, neutral_damage = _damage(state, pieces, entered)

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

    contested = pieces.contested
    hits: list[tuple[int, int, int, bool]] = []
    for (i, seat), damage in hit.items():
        single = on[i] > 0
        value = value_of[i] if single else contested[i][seat]
        destroyed = damage >= value
        hits.append((i, seat, damage, destroyed))
        if not destroyed:
            if single:
                value_of[i] = value - damage
            else:
                contested[i][seat] = value - damage
        elif single:
            on[i] = 0
            value_of[i] = left(i)
        else:
            del contested[i][seat]
    for i, strengths in contested.items():
        # At most one seat survives on a cell: each took at least the other's strength.
        on[i], value_of[i] = next(iter(strengths.items())) if strengths else (0, left(i))
    new_owner, new_strength = on, value_of
    hits.sort()
    for i, seat, damage, _ in hits:
        events.append(
            {"type": "damage", "seat": seat, "at": [i % width, i // width], "damage": damage,
             "t_ms": DAMAGE_MS, "duration_ms": DAMAGE_DURATION_MS}
        )  # fmt: skip
    for i, seat, _, destroyed in hits:
        if destroyed:
            entered.add(i)
            events.append(
                {"type": "destroyed", "seat": seat, "at": [i % width, i // width],
                 "t_ms": DESTROYED_MS, "duration_ms": DESTROYED_DURATION_MS}
            )  # fmt: skip
    for i in sorted(entered):
        if new_owner[i] != owner[i]:
            events.append(
                {"type": "captured", "at": [i % width, i // width], "owner": new_owner[i],
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


def _damage(
    state: State, pieces: _Pieces, entered: set[int]
) -> tuple[dict[tuple[int, int], int], dict[int, int]]:
    """Step 3: the damage each piece takes (`hit[(cell, seat)]`; a piece that is hit at
    all has an entry, even of 0) and the damage each neutral cell takes.

    Two pieces of different seats hit each other when they share a cell or are
    orthogonal neighbours. Pairs on neighbouring cells are found once each, from the
    west or north cell of the pair (looking east and south); a contested cell is rare
    and handled on its own with all its pairs. Only a cell a piece `entered` can have
    neutral strength under a piece.
    """
    strength = state.strength
    step = neighbours(state.width, state.height)
    east, south = step[2], step[3]
    on, value_of, contested = pieces.seat, pieces.value, pieces.contested
    hit: dict[tuple[int, int], int] = {}
    get = hit.get
    for i in pieces.cells:
        seat = on[i]
        if seat < 0:
            continue
        c = east[i]
        other = on[c]
        if other != seat and other > 0:
            get_c, get_i = (c, other), (i, seat)
            hit[get_c] = get(get_c, 0) + value_of[i]
            hit[get_i] = get(get_i, 0) + value_of[c]
        c = south[i]
        other = on[c]
        if other != seat and other > 0:
            get_c, get_i = (c, other), (i, seat)
            hit[get_c] = get(get_c, 0) + value_of[i]
            hit[get_i] = get(get_i, 0) + value_of[c]
    for i, strengths in contested.items():
        here = list(strengths.items())
        for s, value in here:
            for t, _ in here:
                if t != s:
                    hit[i, t] = get((i, t), 0) + value
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
                        hit[c, t] = get((c, t), 0) + value
                        hit[i, s] = get((i, s), 0) + their_value
    neutral_damage: dict[int, int] = {}
    for i in entered:
        if strength[i]:
            held = [(on[i], value_of[i])] if on[i] > 0 else list(contested[i].items())
            for seat, value in held:
                hit[i, seat] = get((i, seat), 0) + strength[i]
                neutral_damage[i] = neutral_damage.get(i, 0) + value
    return hit, neutral_damage


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
