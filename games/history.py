"""Past turns as one viewer may know them: the rows of a turn grouped into one entry.

A turn made of steps (the arena's) is stored as one Resolution per step. The seat
that plays it sees each of its steps at once, and its entry for the turn lists them
(`steps`), their events one after the other on the turn's clock. Every other viewer
(another seat, a spectator) learns that the turn happened only once it has ended, as
one entry with only the events it perceives: nothing says how many steps the turn
took, of which kinds, or how long they lasted. Its `turn_ms` is the end of the last
event it perceives (0 if none), so it says no more than those events do. Once the
match is over every entry is whole.

A turn of any other shape is one row, and its entry is that row, as before.
Every read path of the site (page, poll, history, movie, API, stream, emails) goes
through `entries`, so they all tell the same thing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import engine


class Row(Protocol):
    turn_number: int
    step: int
    seat: int
    turn_ms: int
    events: Any
    orders: Any


@dataclass(frozen=True)
class Reader:
    """Who reads the history of which match, and how far: `viewer` is a seat or None
    (a spectator); `open_turn` the turn of steps still being played (None when there
    is none or the match is over), whose rows only its own seat may read."""

    ruleset: str
    viewer: int | None
    over: bool
    open_turn: int | None = None
    open_seat: int | None = None
    steps_done: int = 0  # in the open turn

    @property
    def steps(self) -> bool:
        return engine.ruleset(self.ruleset).shape.steps

    def sees_steps_of(self, seat: int) -> bool:
        """Whether this reader is told each step of `seat`'s turns (its own, or all
        of them once the match is over)."""
        return self.over or not self.steps or self.viewer == seat

    def may_read(self, number: int, seat: int) -> bool:
        """Whether the turn's rows are known to this reader now: a turn still being
        played only to its own seat."""
        return number != self.open_turn or self.viewer == seat

    @property
    def hidden_turn(self) -> int | None:
        """The turn being played that this reader may not know of yet, if any."""
        return self.open_turn if self.viewer != self.open_seat else None

    @property
    def step_now(self) -> int:
        """The steps of the open turn this reader may count: its own turn's, else 0."""
        mine = self.open_turn is not None and self.viewer == self.open_seat
        return self.steps_done if mine else 0


def reader_for(
    ruleset: str, state: dict[str, Any] | None, viewer: int | None, *, over: bool
) -> Reader:
    """The reader of a match whose state is `state` (the match's current one)."""
    rules = engine.ruleset(ruleset)
    if state is None or over or state.get("over") or not rules.shape.steps:
        return Reader(ruleset, viewer, over)
    awaited = engine.awaiting(state)
    seat = awaited[0] if len(awaited) == 1 else None
    return Reader(ruleset, viewer, over, int(state["turn"]), seat, engine.step(state))


def group(rows: Iterable[Row]) -> list[list[Row]]:
    """Rows in (turn, step) order, grouped by turn."""
    turns: list[list[Row]] = []
    for row in rows:
        if turns and turns[-1][0].turn_number == row.turn_number:
            turns[-1].append(row)
        else:
            turns.append([row])
    return turns


def _end_of(events: Sequence[dict[str, Any]]) -> int:
    return max((int(e.get("t_ms", 0)) + int(e.get("duration_ms", 0)) for e in events), default=0)


def entry(rows: Sequence[Row], reader: Reader, *, orders: bool = False) -> dict[str, Any] | None:
    """One turn's rows as the reader's entry: `turn`, `seat`, `turn_ms`, `events` and,
    for a turn of steps it sees step by step, `steps` (each `step`, `turn_ms` and
    `events`, the latter also in the turn's `events`, shifted onto the turn's clock).
    `orders`: once the match is over, each row's orders too (the turn's, or each
    step's). None when the reader may not know of the turn yet."""
    first = rows[0]
    if not reader.may_read(first.turn_number, first.seat):
        return None
    out: dict[str, Any] = {"turn": first.turn_number, "seat": first.seat}
    views = [
        engine.events_view(r.events, reader.viewer, over=reader.over, ruleset=reader.ruleset)
        for r in rows
    ]
    orders = orders and reader.over
    if not reader.steps:
        out.update(turn_ms=first.turn_ms, events=views[0])
        if orders:
            out["orders"] = first.orders
        return out
    if not reader.sees_steps_of(first.seat):
        events = [e for seen in views for e in seen]
        out.update(turn_ms=_end_of(events), events=events)
        return out
    steps = []
    events = []
    clock = 0
    for row, seen in zip(rows, views, strict=True):
        steps.append({"step": row.step, "turn_ms": row.turn_ms, "events": seen})
        if orders:
            steps[-1]["orders"] = row.orders
        events += [{**e, "t_ms": int(e.get("t_ms", 0)) + clock} for e in seen]
        clock += row.turn_ms
    out.update(turn_ms=clock, events=events, steps=steps)
    return out


def entries(rows: Iterable[Row], reader: Reader, *, orders: bool = False) -> list[dict[str, Any]]:
    """Every turn of `rows` the reader may know, one entry each, in order."""
    found = (entry(turn, reader, orders=orders) for turn in group(rows))
    return [e for e in found if e is not None]
