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


@lru_cache(maxsize=64)
def _around(width: int, height: int) -> tuple[tuple[int, ...], ...]:
    """For each cell, itself and its four neighbours: where a piece there deals damage."""
    return tuple(zip(*neighbours(width, height), strict=True))


def resolve(state: State, moves: dict[int, int]) -> tuple[State, list[Event]]:
    """The next state and the turn's events. `moves` maps a cell index to a direction for
    every seat at once (each cell was checked to be its owner's); unnamed cells stay."""
    width, height, seats = state.width, state.height, state.seats
    owner, strength, production = state.owner, state.strength, state.production
    step = neighbours(width, height)
    owned = list(compress(range(len(owner)), owner))
    seat_range = range(1, seats + 1)

    # Steps 1 and 2: growth and moves. `pieces[s]` maps a cell to seat s's strength
    # there, uncapped while pieces merge; `merged` is the cells where two or more met.
    pieces: list[dict[int, int]] = [{} for _ in range(seats + 1)]
    events: list[Event] = []
    moved_from: list[int] = []
    merged: set[tuple[int, int]] = set()
    get_move = moves.get
    for i in owned:
        seat = owner[i]
        direction = get_move(i, 0)
        if direction:
            value = strength[i]
            target = step[direction][i]
            moved_from.append(i)
            events.append(
                {"type": "move", "seat": seat, "from": [i % width, i // width],
                 "to": [target % width, target // width], "direction": direction,
                 "strength": value, "t_ms": MOVE_MS, "duration_ms": MOVE_DURATION_MS}
            )  # fmt: skip
        else:
            value = strength[i] + production[i]
            if value > MAX_STRENGTH:
                value = MAX_STRENGTH
            target = i
        mine = pieces[seat]
        if target in mine:
            merged.add((target, seat))
            mine[target] += value
        else:
            mine[target] = value
    for i in moved_from:
        mine = pieces[owner[i]]
        if i not in mine:
            mine[i] = 0
    for i, seat in sorted(merged):
        mine = pieces[seat]
        total = mine[i]
        if total > MAX_STRENGTH:
            mine[i] = MAX_STRENGTH
        events.append(
            {"type": "merge", "seat": seat, "at": [i % width, i // width], "strength": mine[i],
             "lost": total - mine[i], "t_ms": MERGE_MS, "duration_ms": MERGE_DURATION_MS}
        )  # fmt: skip

    damage, neutral_damage = _damage(state, pieces)

    # Steps 4 and 5: destruction, the neutral cells' loss, the new grid.
    new_owner = owner[:]
    new_strength = strength[:]
    for i in owned:
        new_owner[i] = 0
        new_strength[i] = 0
    for i, value in neutral_damage.items():
        left = strength[i] - value
        new_strength[i] = left if left > 0 else 0
    hits: list[tuple[int, int, int, bool]] = []
    for seat in seat_range:
        mine = pieces[seat]
        for i, value in damage[seat].items():
            destroyed = value >= mine[i]
            hits.append((i, seat, value, destroyed))
            if destroyed:
                del mine[i]
            else:
                mine[i] -= value
    territory = [0] * (seats + 1)
    for seat in seat_range:
        mine = pieces[seat]
        territory[seat] = len(mine)
        for i, value in mine.items():
            new_owner[i] = seat
            new_strength[i] = value
    if hits:
        hits.sort()
        for i, seat, value, _ in hits:
            events.append(
                {"type": "damage", "seat": seat, "at": [i % width, i // width], "damage": value,
                 "t_ms": DAMAGE_MS, "duration_ms": DAMAGE_DURATION_MS}
            )  # fmt: skip
        for i, seat, _, destroyed in hits:
            if destroyed:
                events.append(
                    {"type": "destroyed", "seat": seat, "at": [i % width, i // width],
                     "t_ms": DESTROYED_MS, "duration_ms": DESTROYED_DURATION_MS}
                )  # fmt: skip
    changed = [i for i in owned if new_owner[i] != owner[i]]
    for seat in seat_range:
        changed += [i for i in pieces[seat] if not owner[i]]
    changed.sort()
    for i in changed:
        events.append(
            {"type": "captured", "at": [i % width, i // width], "owner": new_owner[i],
             "previous": owner[i], "t_ms": CAPTURED_MS, "duration_ms": CAPTURED_DURATION_MS}
        )  # fmt: skip

    new = State(
        state.seed, width, height, new_owner, new_strength, production, seats, state.turn + 1,
        [t + territory[s] for s, t in enumerate(state.territory_total, start=1)],
        state.eliminated[:],
    )  # fmt: skip
    _finish(new, state, territory, events)
    return new, events


def _damage(
    state: State, pieces: list[dict[int, int]]
) -> tuple[list[dict[int, int]], dict[int, int]]:
    """Step 3: the damage each seat's pieces take (`damage[s]`: cell -> total; a piece
    that is hit at all has an entry, even of 0) and the neutral cells take.

    Two pieces of different seats hit each other when they share a cell or are
    orthogonal neighbours. Pairs on neighbouring cells are found once each, from the
    west or north cell of the pair (looking east and south); a cell holding pieces of
    several seats (a contested cell) is rare and handled on its own with all its pairs.
    """
    width, height, seats = state.width, state.height, state.seats
    owner, strength = state.owner, state.strength
    step = neighbours(width, height)
    east, south = step[2], step[3]
    occupant = [0] * (width * height)  # the seat with pieces there, -1 for several
    contested: list[int] = []
    for seat in range(1, seats + 1):
        for i in pieces[seat]:
            if occupant[i]:
                if occupant[i] > 0:
                    contested.append(i)
                occupant[i] = -1
            else:
                occupant[i] = seat
    damage: list[dict[int, int]] = [{} for _ in range(seats + 1)]
    neutral_damage: dict[int, int] = {}
    for seat in range(1, seats + 1):
        mine = pieces[seat]
        hurt = damage[seat]
        for i, value in mine.items():
            if occupant[i] > 0:
                for c in (east[i], south[i]):
                    other = occupant[c]
                    if other > 0 and other != seat:
                        theirs = damage[other]
                        theirs[c] = theirs.get(c, 0) + value
                        hurt[i] = hurt.get(i, 0) + pieces[other][c]
            if not owner[i] and strength[i]:
                hurt[i] = hurt.get(i, 0) + strength[i]
                neutral_damage[i] = neutral_damage.get(i, 0) + value
    for i in contested:
        here = [(s, pieces[s][i]) for s in range(1, seats + 1) if i in pieces[s]]
        for s, value in here:
            for t, _ in here:
                if t != s:
                    damage[t][i] = damage[t].get(i, 0) + value
        for direction in (1, 2, 3, 4):
            c = step[direction][i]
            if occupant[c] < 0 and direction in (1, 4):
                continue  # a contested neighbour to the north or west handles this pair
            there = [(s, pieces[s][c]) for s in range(1, seats + 1) if c in pieces[s]]
            for s, value in here:
                for t, their_value in there:
                    if t != s:
                        damage[t][c] = damage[t].get(c, 0) + value
                        damage[s][i] = damage[s].get(i, 0) + their_value
    return damage, neutral_damage


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
