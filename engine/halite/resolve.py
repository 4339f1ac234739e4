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

Steps 1 to 5 are computed one of two ways, giving the same frames and events (the
tests play both): `lists` walks the pieces, cheap while the board is mostly empty;
`arrays` works on whole-board numpy arrays, whose cost hardly depends on what is on the
board: it is the cheaper once the pieces cover most of it (`ARRAYS_FROM`; measured on
30 x 30 and 50 x 50 boards of four and six `grower`s, the two are about even from half
the board owned to 70 %, and the arrays 1.1 to 1.4 times as fast beyond).
"""

from __future__ import annotations

from engine.halite import arrays, lists
from engine.halite.state import State
from engine.halite.timeline import END_MS, TURN_MS, Event

__all__ = ["ARRAYS_FROM", "TURN_MS", "Event", "resolve"]

ARRAYS_FROM = 0.7  # the share of the board's cells owned from which `arrays` resolves


def resolve(
    state: State, moves: dict[int, int], *, use_arrays: bool | None = None
) -> tuple[State, list[Event]]:
    """The next state and the turn's events. `moves` maps a cell index to a direction for
    every seat at once (each cell was checked to be its owner's); unnamed cells stay.
    `use_arrays` picks the way (by default, by how much of the board is owned)."""
    if use_arrays is None:
        n = state.width * state.height
        use_arrays = n - bytes(state.owner).count(0) >= ARRAYS_FROM * n
    new, events, territory = (arrays if use_arrays else lists).frame(state, moves)
    _finish(new, state, territory, events)
    return new, events


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
