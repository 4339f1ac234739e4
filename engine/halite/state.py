"""Halite's state (halite.md "State (protocol JSON)") on flat lists, and its JSON.

The grids are kept flat, cell (x, y) at `y * width + x`, because a turn walks the
owned cells and their neighbours by index arithmetic. The JSON form is row-major
(`owner[y][x]`). Parsing checks every documented field and their agreement with
each other (territory, alive, awaiting, scores); a field the project adds
(`players`) is optional and, when given, must agree too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from engine.errors import StateError

RULESET = "halite"
SEAT_COUNTS = (2, 3, 4, 5, 6)
MAX_SEATS = 6
MIN_SIZE, MAX_SIZE = 10, 50  # the options; a parsed state may be any size MIN_GRID..MAX_GRID
MIN_GRID, MAX_GRID = 3, 255  # from 3 up, a cell and its four neighbours are five cells
MAX_STRENGTH = 255
MAX_PRODUCTION = 15

__all__ = ["RULESET", "SEAT_CELLS", "Header", "State", "max_turns_for", "parse", "peek"]

SEAT_CELLS = [bytes(b == seat for b in range(256)) for seat in range(MAX_SEATS + 1)]
"""`bytes(owner).translate(SEAT_CELLS[seat])` has a 1 on each of the seat's cells, 0
elsewhere: with `itertools.compress`, the seat's cells in a few passes in C."""


def max_turns_for(width: int, height: int) -> int:
    """floor(10 * sqrt(width * height)), computed exactly on integers."""
    return math.isqrt(100 * width * height)


@dataclass(slots=True)
class State:
    """A Halite position. `owner`, `strength` and `production` are flat, row-major.

    `territory_total[s - 1]` is seat s's territory summed over every frame so far
    (1 at the start, as in 2016); `eliminated` lists seats in the order they lost
    their last cell; `ranking` and `winners` are filled when the match is over.
    """

    seed: int
    width: int
    height: int
    owner: list[int]
    strength: list[int]
    production: list[int]
    seats: int
    turn: int = 0
    territory_total: list[int] = field(default_factory=list)
    eliminated: list[int] = field(default_factory=list)
    over: bool = False
    winners: list[int] = field(default_factory=list)
    ranking: list[int] = field(default_factory=list)

    @property
    def max_turns(self) -> int:
        return max_turns_for(self.width, self.height)

    def territory(self) -> list[int]:
        """Cells owned by each seat now (index s - 1 for seat s)."""
        packed = bytes(self.owner)
        return [packed.count(s) for s in range(1, self.seats + 1)]

    @property
    def alive(self) -> list[int]:
        """Seats that still own a cell, in seat order."""
        gone = self.eliminated
        return [s for s in range(1, self.seats + 1) if s not in gone]

    @property
    def awaiting(self) -> list[int]:
        """Every seat still in play gives orders each turn; none once over."""
        return [] if self.over else self.alive

    def scores(self) -> dict[str, int]:
        """What Halite ranks by: each seat's territory now."""
        return {str(s): n for s, n in enumerate(self.territory(), start=1)}

    def to_json(self) -> dict[str, Any]:
        rows = _rows(self.width, self.height)
        alive = self.alive
        territory = self.territory()
        return {
            "ruleset": RULESET,
            "seed": self.seed,
            "width": self.width,
            "height": self.height,
            "turn": self.turn,
            "max_turns": self.max_turns,
            "owner": list(map(self.owner.__getitem__, rows)),
            "strength": list(map(self.strength.__getitem__, rows)),
            "production": list(map(self.production.__getitem__, rows)),
            "seats": self.seats,
            "alive": alive,
            "eliminated": self.eliminated[:],
            "territory_total": {str(s): t for s, t in enumerate(self.territory_total, start=1)},
            "awaiting": [] if self.over else alive,
            "scores": {str(s): t for s, t in enumerate(territory, start=1)},
            "over": self.over,
            "winners": self.winners[:],
            "ranking": self.ranking[:],
            "players": [{"seat": s} for s in range(1, self.seats + 1)],
        }

    @classmethod
    def from_json(cls, data: Any) -> State:
        return parse(data)


@lru_cache(maxsize=64)
def _rows(width: int, height: int) -> tuple[slice, ...]:
    """The slices that cut a flat grid into its rows."""
    return tuple(slice(i, i + width) for i in range(0, width * height, width))


# -- parsing --------------------------------------------------------------------------------

_REQUIRED = (
    "ruleset", "seed", "width", "height", "turn", "max_turns", "owner", "strength",
    "production", "seats", "alive", "eliminated", "territory_total", "awaiting", "scores",
    "over", "winners", "ranking",
)  # fmt: skip


def _int(data: dict[str, Any], key: str, lo: int, hi: int | None = None) -> int:
    value = data[key]
    if type(value) is not int or value < lo or (hi is not None and value > hi):
        top = "" if hi is None else f" to {hi}"
        raise StateError(f"'{key}' must be a whole number from {lo}{top}.")
    return value


def _grid(data: dict[str, Any], key: str, width: int, height: int, top: int) -> bytes:
    """A row-major grid of `height` rows of `width` whole numbers 0..top, flattened (as
    bytes: the caller counts in them before making the list)."""
    rows = data[key]
    if type(rows) is not list or len(rows) != height or not _rows_of(rows, width):
        raise StateError(f"'{key}' must be {height} rows of {width} numbers.")
    # bytes() takes exactly the whole numbers 0..255 (fast, in C); translate() then
    # deletes the allowed values, so anything left is out of range.
    try:
        packed = b"".join(map(bytes, rows))
    except (TypeError, ValueError):
        packed = b""
    if len(packed) != width * height or (top < 255 and packed.translate(None, _UP_TO[top])):
        raise StateError(f"Every value of '{key}' must be a whole number from 0 to {top}.")
    return packed


_UP_TO = [bytes(range(top + 1)) for top in range(256)]


def _rows_of(rows: list[Any], width: int) -> bool:
    """Whether every row is a list of `width` items (checked in C, rows at a time)."""
    return set(map(type, rows)) == {list} and set(map(len, rows)) == {width}


def _seat_list(data: dict[str, Any], key: str, seats: int) -> list[int]:
    value = data[key]
    if (
        type(value) is not list
        or any(type(s) is not int or not 1 <= s <= seats for s in value)
        or len(set(value)) != len(value)
    ):
        raise StateError(f"'{key}' must list distinct seats from 1 to {seats}.")
    return value[:]


def _per_seat(data: dict[str, Any], key: str, seats: int, lo: int) -> list[int]:
    value = data[key]
    keys = [str(s) for s in range(1, seats + 1)]
    if type(value) is not dict or sorted(value) != sorted(keys):
        raise StateError(f"'{key}' must have one entry per seat, '1' to '{seats}'.")
    numbers = [value[k] for k in keys]
    if any(type(v) is not int or v < lo for v in numbers):
        raise StateError(f"Every entry of '{key}' must be a whole number, at least {lo}.")
    return numbers


def parse(data: Any) -> State:
    """The state from its JSON; StateError (bad_state) on any field missing, malformed,
    out of range or disagreeing with the rest."""
    if type(data) is not dict:
        raise StateError("The state must be a JSON object.")
    missing = [k for k in _REQUIRED if k not in data]
    if missing:
        raise StateError(f"The state is missing '{missing[0]}'.")
    if data["ruleset"] != RULESET:
        raise StateError(f"The state's ruleset must be '{RULESET}'.")
    seed = data["seed"]
    if type(seed) is not int:
        raise StateError("'seed' must be a whole number.")
    width = _int(data, "width", MIN_GRID, MAX_GRID)
    height = _int(data, "height", MIN_GRID, MAX_GRID)
    seats = _int(data, "seats", SEAT_COUNTS[0], MAX_SEATS)
    max_turns = max_turns_for(width, height)
    if data["max_turns"] != max_turns or type(data["max_turns"]) is not int:
        raise StateError(f"'max_turns' must be floor(10 * sqrt(width * height)) = {max_turns}.")
    turn = _int(data, "turn", 0, max_turns)
    packed = _grid(data, "owner", width, height, seats)
    owner = list(packed)
    strength = list(_grid(data, "strength", width, height, MAX_STRENGTH))
    production = list(_grid(data, "production", width, height, MAX_PRODUCTION))
    over = data["over"]
    if type(over) is not bool:
        raise StateError("'over' must be true or false.")
    alive = _seat_list(data, "alive", seats)
    eliminated = _seat_list(data, "eliminated", seats)
    territory_total = _per_seat(data, "territory_total", seats, 1)
    state = State(
        seed, width, height, owner, strength, production, seats, turn,
        territory_total, eliminated, over,
        _seat_list(data, "winners", seats), _seat_list(data, "ranking", seats),
    )  # fmt: skip
    territory = [packed.count(s) for s in range(1, seats + 1)]
    if alive != [s for s in range(1, seats + 1) if territory[s - 1]]:
        raise StateError("'alive' must list, in seat order, the seats that own a cell.")
    if sorted(alive + eliminated) != list(range(1, seats + 1)):
        raise StateError("Every seat must be either 'alive' or 'eliminated', not both.")
    if over != (len(alive) <= 1 or turn == max_turns):
        raise StateError("'over' must be true exactly when one seat or none is left or time is up.")
    if over:
        if not state.winners or sorted(state.ranking) != list(range(1, seats + 1)):
            raise StateError("A finished match needs its winners and a ranking of every seat.")
    elif state.winners or state.ranking:
        raise StateError("'winners' and 'ranking' stay empty until the match is over.")
    for key, derived in (
        ("awaiting", state.awaiting),
        ("scores", {str(s): n for s, n in enumerate(territory, start=1)}),
        ("players", [{"seat": s} for s in range(1, seats + 1)]),
    ):
        if key in data and data[key] != derived:
            raise StateError(f"'{key}' does not agree with the rest of the state.")
    return state


@dataclass(frozen=True, slots=True)
class Header:
    """What one seat's orders are checked against (`peek`); `owner` is row-major."""

    over: bool
    awaiting: list[int]
    turn: int
    width: int
    height: int
    owner: list[list[int]]


def peek(data: Any) -> Header:
    """The fields orders are checked against, each checked, without the rest of the
    state: a check of every seat's orders in a turn reads only these, and `parse`
    (run once when the turn resolves) checks the whole state."""
    if type(data) is not dict:
        raise StateError("The state must be a JSON object.")
    missing = [
        k
        for k in ("ruleset", "over", "awaiting", "turn", "width", "height", "owner")
        if k not in data
    ]
    if missing:
        raise StateError(f"The state is missing '{missing[0]}'.")
    if data["ruleset"] != RULESET:
        raise StateError(f"The state's ruleset must be '{RULESET}'.")
    width = _int(data, "width", MIN_GRID, MAX_GRID)
    height = _int(data, "height", MIN_GRID, MAX_GRID)
    turn = _int(data, "turn", 0, max_turns_for(width, height))
    over, awaiting, rows = data["over"], data["awaiting"], data["owner"]
    if type(over) is not bool:
        raise StateError("'over' must be true or false.")
    if (
        type(awaiting) is not list
        or any(type(s) is not int for s in awaiting)
        or awaiting != sorted(set(awaiting))
        or (over and awaiting)
    ):
        raise StateError("'awaiting' must list the seats in play in seat order, none once over.")
    if type(rows) is not list or len(rows) != height or not _rows_of(rows, width):
        raise StateError(f"'owner' must be {height} rows of {width} numbers.")
    return Header(over, awaiting, turn, width, height, rows)
