"""The Helium 3 state as typed values, and its one canonical JSON form.

`State.from_json` checks everything docs/protocol.md requires of a state and raises
`StateError` (code `bad_state`) for anything malformed or inconsistent;
`State.to_json` gives back exactly the protocol's dict, so the two round trip.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.errors import StateError
from engine.helium3.board import DIRECTIONS

RULESET = "helium3"
_new = object.__new__
WEAPONS = ("missile", "laser")
MAX_SIDE = 64
MAX_SEATS = 4

ROBOT_KEYS = (
    "id", "seat", "x", "y", "facing", "active", "armed", "shield", "deflect", "mined", "alive",
)  # fmt: skip
STATE_KEYS = (
    "ruleset", "seed", "width", "height", "turn", "to_move", "clock_ms", "length_ms",
    "helium", "players", "robots", "over", "winners",
)  # fmt: skip


@dataclass(slots=True)
class Robot:
    """One X-TRACT robot. Treated as a value: the resolver copies before it changes one."""

    id: str
    seat: int
    x: int
    y: int
    facing: str
    active: bool = False
    armed: str | None = None
    shield: bool = False
    deflect: str | None = None
    mined: int = 0
    alive: bool = True

    def copy(self) -> Robot:
        """A copy, made field by field (faster than the constructor): every field is set."""
        copy = _new(Robot)
        copy.id = self.id
        copy.seat = self.seat
        copy.x = self.x
        copy.y = self.y
        copy.facing = self.facing
        copy.active = self.active
        copy.armed = self.armed
        copy.shield = self.shield
        copy.deflect = self.deflect
        copy.mined = self.mined
        copy.alive = self.alive
        return copy

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id, "seat": self.seat, "x": self.x, "y": self.y,
            "facing": self.facing, "active": self.active, "armed": self.armed,
            "shield": self.shield, "deflect": self.deflect, "mined": self.mined,
            "alive": self.alive,
        }  # fmt: skip


class Derived:
    """What the turn that made a state knew of its robots, for the next turn to take
    instead of working it out again: the robots as they were then, the occupancy
    (cell index -> position in `robots`) of the living ones, and the living seats
    (None until known). It holds while the state's robots still equal those."""

    __slots__ = ("robots", "occupancy", "living")

    def __init__(
        self, robots: list[Robot], occupancy: dict[int, int], living: list[int] | None
    ) -> None:
        self.robots = robots
        self.occupancy = occupancy
        self.living = living


@dataclass(slots=True)
class State:
    """A whole match position. `helium` is flat: cell (x, y) is `helium[y * width + x]`."""

    seed: int
    width: int
    height: int
    helium: list[int]
    money: dict[int, int]
    robots: list[Robot]
    turn: int = 0
    to_move: int | None = 1
    clock_ms: int = 0
    length_ms: int = 600_000
    over: bool = False
    winners: list[int] = field(default_factory=list)
    termination: str | None = None
    ruleset: str = RULESET
    # Derived lookups shared between copies: robot id -> list index never changes
    # within a match (robots keep their place in the list, destroyed ones included).
    _index: dict[str, int] | None = field(default=None, repr=False, compare=False)
    # What the turn that made this state knew of it (`Derived`); never copied.
    _derived: Derived | None = field(default=None, repr=False, compare=False, kw_only=True)

    @property
    def seats(self) -> list[int]:
        return list(self.money)

    def copy(self, helium: list[int] | None = None) -> State:
        """A copy that shares the (immutable by convention) robots but not the lists;
        `helium`, when given, is the copy's helium list instead of a copy of this one's.

        Made field by field (a copy is made every turn; this is about twice as fast as
        calling the constructor): every field of the class is set here."""
        copy = _new(State)
        copy.seed = self.seed
        copy.width = self.width
        copy.height = self.height
        copy.helium = self.helium.copy() if helium is None else helium
        copy.money = self.money.copy()
        copy.robots = self.robots.copy()
        copy.turn = self.turn
        copy.to_move = self.to_move
        copy.clock_ms = self.clock_ms
        copy.length_ms = self.length_ms
        copy.over = self.over
        copy.winners = self.winners.copy()
        copy.termination = self.termination
        copy.ruleset = self.ruleset
        index = self._index
        copy._index = self.index if index is None else index
        copy._derived = None
        return copy

    @property
    def index(self) -> dict[str, int]:
        """Robot id -> position in `robots` (read-only)."""
        if self._index is None:
            self._index = {r.id: i for i, r in enumerate(self.robots)}
        return self._index

    def derived(self) -> Derived | None:
        """What the turn that made this state knew of it, while its robots are unchanged
        (robots are values: one is changed by putting a changed copy in its place)."""
        known = self._derived
        if known is not None and known.robots == self.robots:
            return known
        return None

    def occupancy(self) -> dict[int, int]:
        """A new dict of cell index (`y * width + x`) -> position in `robots` of every
        living robot."""
        known = self.derived()
        if known is not None:
            return known.occupancy.copy()
        w = self.width
        return {r.y * w + r.x: i for i, r in enumerate(self.robots) if r.alive}

    def living_seats(self) -> list[int]:
        known = self.derived()
        if known is not None and known.living is not None:
            return known.living[:]
        alive = {r.seat for r in self.robots if r.alive}
        living = [s for s in self.money if s in alive]
        if known is not None:
            known.living = living[:]
        return living

    def robot(self, robot_id: str) -> Robot | None:
        for r in self.robots:
            if r.id == robot_id:
                return r
        return None

    def to_json(self) -> dict[str, Any]:
        w = self.width
        out: dict[str, Any] = {
            "ruleset": self.ruleset,
            "seed": self.seed,
            "width": w,
            "height": self.height,
            "turn": self.turn,
            "to_move": self.to_move,
            "clock_ms": self.clock_ms,
            "length_ms": self.length_ms,
            "helium": [self.helium[y * w : y * w + w] for y in range(self.height)],
            "players": [{"seat": s, "money": m} for s, m in self.money.items()],
            "robots": [r.to_json() for r in self.robots],
            "over": self.over,
            "winners": self.winners[:],
        }
        if self.termination is not None:
            out["termination"] = self.termination
        return out

    @classmethod
    def from_json(cls, data: Any) -> State:
        return _parse_state(data)

    def check(self) -> None:
        """Raise StateError unless the position is consistent."""
        _check_consistency(self)


def _is_int(v: Any) -> bool:
    return type(v) is int


def _int(data: dict[str, Any], key: str, where: str, lo: int | None = 0) -> int:
    v = data.get(key)
    if not isinstance(v, int) or isinstance(v, bool):
        raise StateError(f"{where}'{key}' must be an integer.")
    if lo is not None and v < lo:
        raise StateError(f"{where}'{key}' must be at least {lo}.")
    return v


def _bool(data: dict[str, Any], key: str, where: str) -> bool:
    v = data.get(key)
    if type(v) is not bool:
        raise StateError(f"{where}'{key}' must be true or false.")
    return v


def _parse_state(data: Any) -> State:
    if not isinstance(data, dict):
        raise StateError("The state must be a JSON object.")
    missing = [k for k in STATE_KEYS if k not in data]
    if missing:
        raise StateError(f"The state is missing '{missing[0]}'.")
    if data["ruleset"] != RULESET:
        raise StateError(f"The state's ruleset must be '{RULESET}'.")
    seed = _int(data, "seed", "", lo=None)
    width = _int(data, "width", "", lo=1)
    height = _int(data, "height", "", lo=1)
    if width > MAX_SIDE or height > MAX_SIDE:
        raise StateError(f"The board may be at most {MAX_SIDE} cells on a side.")
    helium = _parse_helium(data["helium"], width, height)
    money = _parse_players(data["players"])
    robots = _parse_robots(data["robots"], width, height, money)
    to_move = data["to_move"]
    if to_move is not None and not _is_int(to_move):
        raise StateError("'to_move' must be a seat number or null.")
    winners = data["winners"]
    if not isinstance(winners, list) or not all(_is_int(s) and s in money for s in winners):
        raise StateError("'winners' must be a list of seats in the match.")
    termination = data.get("termination")
    if termination is not None and termination not in ("clock", "elimination"):
        raise StateError("'termination' must be 'clock', 'elimination' or absent.")
    state = State(
        seed=seed,
        width=width,
        height=height,
        helium=helium,
        money=money,
        robots=robots,
        turn=_int(data, "turn", ""),
        to_move=to_move,
        clock_ms=_int(data, "clock_ms", ""),
        length_ms=_int(data, "length_ms", "", lo=1),
        over=_bool(data, "over", ""),
        winners=list(winners),
        termination=termination,
    )
    _check_consistency(state)
    return state


def _parse_helium(rows: Any, width: int, height: int) -> list[int]:
    if not isinstance(rows, list) or len(rows) != height:
        raise StateError(f"'helium' must be a list of {height} rows.")
    flat: list[int] = []
    for y, row in enumerate(rows):
        if not isinstance(row, list) or len(row) != width:
            raise StateError(f"Helium row {y} must hold {width} cells.")
        for v in row:
            if not _is_int(v) or v < 0:
                raise StateError(f"Helium row {y} must hold non-negative integers.")
        flat.extend(row)
    return flat


def _parse_players(players: Any) -> dict[int, int]:
    if not isinstance(players, list) or not 1 <= len(players) <= MAX_SEATS:
        raise StateError(f"'players' must list 1 to {MAX_SEATS} seats.")
    money: dict[int, int] = {}
    for p in players:
        if not isinstance(p, dict):
            raise StateError("Each player must be an object with 'seat' and 'money'.")
        seat = _int(p, "seat", "A player's ", lo=1)
        if seat > MAX_SEATS or seat in money:
            raise StateError(f"Seat {seat} is out of range or listed twice.")
        money[seat] = _int(p, "money", f"Seat {seat}'s ", lo=0)
    if list(money) != sorted(money):
        raise StateError("'players' must be listed in seat order.")
    return money


def _parse_robots(items: Any, width: int, height: int, money: dict[int, int]) -> list[Robot]:
    if not isinstance(items, list) or len(items) > 5 * MAX_SEATS:
        raise StateError(f"'robots' must be a list of at most {5 * MAX_SEATS} robots.")
    robots: list[Robot] = []
    for item in items:
        if not isinstance(item, dict):
            raise StateError("Each robot must be an object.")
        rid = item.get("id")
        if not isinstance(rid, str) or not rid or len(rid) > 16:
            raise StateError("Each robot needs a short string 'id'.")
        where = f"Robot {rid}: "
        for key in ROBOT_KEYS:
            if key not in item:
                raise StateError(f"{where}'{key}' is missing.")
        seat = _int(item, "seat", where, lo=1)
        if seat not in money:
            raise StateError(f"{where}seat {seat} is not a player of this match.")
        x = _int(item, "x", where, lo=None)
        y = _int(item, "y", where, lo=None)
        if not (0 <= x < width and 0 <= y < height):
            raise StateError(f"{where}cell ({x}, {y}) is off the board.")
        facing = item["facing"]
        if facing not in DIRECTIONS:
            raise StateError(f"{where}'facing' must be one of {' '.join(DIRECTIONS)}.")
        armed = item["armed"]
        if armed is not None and armed not in WEAPONS:
            raise StateError(f"{where}'armed' must be null, 'missile' or 'laser'.")
        deflect = item["deflect"]
        if deflect is not None and deflect not in DIRECTIONS:
            raise StateError(f"{where}'deflect' must be null or a direction.")
        robots.append(
            Robot(
                id=rid,
                seat=seat,
                x=x,
                y=y,
                facing=facing,
                active=_bool(item, "active", where),
                armed=armed,
                shield=_bool(item, "shield", where),
                deflect=deflect,
                mined=_int(item, "mined", where),
                alive=_bool(item, "alive", where),
            )
        )
    return robots


def _check_consistency(state: State) -> None:
    seen_ids: set[str] = set()
    cells: set[tuple[int, int]] = set()
    for r in state.robots:
        if r.id in seen_ids:
            raise StateError(f"Robot id {r.id} is used twice.")
        seen_ids.add(r.id)
        if r.armed is not None and r.shield:
            raise StateError(f"Robot {r.id} cannot be armed and shielded at once.")
        if r.deflect is not None and not r.shield:
            raise StateError(f"Robot {r.id} has a deflect direction but no shield.")
        if r.alive:
            if (r.x, r.y) in cells:
                raise StateError(f"Two living robots stand on ({r.x}, {r.y}).")
            cells.add((r.x, r.y))
        elif r.shield or r.armed is not None:
            raise StateError(f"Destroyed robot {r.id} cannot be armed or shielded.")
    if state.over:
        if state.to_move is not None:
            raise StateError("A finished match has no seat to move ('to_move' must be null).")
    else:
        if state.winners:
            raise StateError("A running match has no winners yet.")
        if state.to_move not in state.money:
            raise StateError("'to_move' must be a seat of this match while it runs.")
        if state.to_move not in state.living_seats():
            raise StateError(f"Seat {state.to_move} is to move but has no robots left.")
