"""What a bot reads from its seat's view: its own robot and what its scans showed.

A bot sees the arena only through `view(state, seat)`, so a `Sight` holds nothing a
seat may not know. Cells scanned during the current turn are exact (no other robot
moves while a seat plays), except the robot's own cell, which moves with it; older
scans keep obstacles (they never move) but robots may have left or arrived since."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from engine.arena.state import DIRECTIONS, PARTS

Cell = tuple[int, int]


RADAR_RANGE = {p: v for p, (k, _, v) in PARTS.items() if k == "radar"}


def kind(part: str) -> str:
    """The kind of a part: engine, radar, shield or weapon."""
    return PARTS[part][0]


@dataclass(frozen=True, slots=True)
class Known:
    """The latest scan of one cell: what it showed, whose robot, and when."""

    what: str
    seat: int | None
    turn: int
    step: int


@dataclass(frozen=True, slots=True)
class Sight:
    seat: int
    phase: str
    width: int
    height: int
    turn: int
    step: int
    round: int
    rounds: int
    seats: tuple[int, ...]
    at: Cell
    health: int
    max_health: int
    parts: tuple[str, ...]
    steps_left: int
    shot: bool
    reload: int
    known: dict[Cell, Known]

    @classmethod
    def from_view(cls, seen: dict[str, Any], seat: int) -> Sight:
        own: dict[str, Any] = next((r for r in seen.get("robots", []) if r.get("seat") == seat), {})
        known: dict[Cell, Known] = {}
        for key, entry in (seen.get("knowledge") or {}).get(str(seat), {}).items():
            x, _, y = key.partition(",")
            known[(int(x), int(y))] = Known(entry[0], entry[1], entry[2], entry[3])
        count = seen.get("seats")
        seats = tuple(range(1, count + 1)) if isinstance(count, int) else (seat,)
        return cls(
            seat=seat,
            phase=seen.get("phase", "play"),
            width=seen.get("width", 10),
            height=seen.get("height", 10),
            turn=seen.get("turn", 0),
            step=seen.get("step", 0),
            round=seen.get("round", 1),
            rounds=seen.get("rounds", 40),
            seats=seats,
            at=(own.get("x", 0), own.get("y", 0)),
            health=own.get("health", 0),
            max_health=own.get("max_health", 0),
            parts=tuple(own.get("parts") or ()),
            steps_left=own.get("steps_left", 0),
            shot=bool(own.get("shot", False)),
            reload=own.get("reload", 0),
            known=known,
        )

    def part(self, of_kind: str) -> str | None:
        return next((p for p in self.parts if kind(p) == of_kind), None)

    @property
    def radar(self) -> int:
        """The scan's reach, 0 without a radar."""
        part = self.part("radar")
        return RADAR_RANGE[part] if part else 0

    @property
    def weapon(self) -> str | None:
        """The weapon that may fire now, if any (a cannon fires every second turn)."""
        weapon = self.part("weapon")
        if self.shot or weapon is None or (weapon == "cannon" and self.reload > 0):
            return None
        return weapon

    def inside(self, cell: Cell) -> bool:
        return 0 <= cell[0] < self.width and 0 <= cell[1] < self.height

    def cells(self) -> Iterator[Cell]:
        for y in range(self.height):
            for x in range(self.width):
                yield (x, y)

    def fresh(self, cell: Cell) -> bool:
        """Whether the cell was scanned during this turn (so its entry is exact)."""
        entry = self.known.get(cell)
        return entry is not None and entry.turn == self.turn

    def scanned_here(self) -> bool:
        """Whether a scan of this turn saw the robot where it stands now."""
        entry = self.known.get(self.at)
        return entry is not None and entry.turn == self.turn and entry.seat == self.seat

    def free(self, cell: Cell) -> bool:
        """Whether a move may enter the cell for sure: scanned this turn, and empty
        (or where the robot itself was seen: it has left it since)."""
        if cell == self.at or not self.inside(cell) or not self.fresh(cell):
            return False
        entry = self.known[cell]
        return entry.what == "empty" or (entry.what == "robot" and entry.seat == self.seat)

    def neighbours(self, cell: Cell) -> Iterator[tuple[str, Cell]]:
        for name, (dx, dy) in DIRECTIONS.items():
            yield name, (cell[0] + dx, cell[1] + dy)

    def reachable(self) -> dict[Cell, list[str]]:
        """Every cell a move may reach this turn for sure, with a shortest path to it
        (breadth first, in the fixed order of DIRECTIONS)."""
        paths: dict[Cell, list[str]] = {self.at: []}
        frontier = [self.at]
        while frontier:
            nxt: list[Cell] = []
            for cell in frontier:
                if len(paths[cell]) >= self.steps_left:
                    continue
                for name, to in self.neighbours(cell):
                    if to not in paths and self.free(to):
                        paths[to] = [*paths[cell], name]
                        nxt.append(to)
            frontier = nxt
        return paths

    def enemies(self) -> dict[int, tuple[Cell, Known]]:
        """Each other seat's robot where the latest scan that saw it showed it."""
        out: dict[int, tuple[Cell, Known]] = {}
        for cell, entry in self.known.items():
            if entry.what != "robot" or entry.seat is None or entry.seat == self.seat:
                continue
            seen = out.get(entry.seat)
            if seen is None or (entry.turn, entry.step) > (seen[1].turn, seen[1].step):
                out[entry.seat] = (cell, entry)
        return out
