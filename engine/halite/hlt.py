"""Halite replays in the 2016 format (`.hlt`, version 11) and back to our replay form.

The 2016 environment wrote one JSON object per match: `version` (11), `width`,
`height`, `num_players`, `num_frames`, `player_names`, `productions[y][x]`,
`frames[f][y][x] = [owner, strength]` (frame 0 is the map before the first turn,
frame f the map after turn f) and `moves[t][y][x]`, the direction each cell's piece
was given on turn t (0 where none was), one grid per turn, so one fewer than frames.
We write the same keys the same way (compact, keys in alphabetical order) and add
`seed`, the map's seed, which the 2016 visualiser ignores and `import` reads back.

`export` re-resolves our replay to get every frame (its events must replay, as for
`python -m engine replay`); `parse` checks a file's shape; `to_record` builds our
replay from one: the initial state from frame 0 and the productions, each turn's
orders from its moves grid, the events by resolving, and each turn's frame as the
state fields the replay must reach (`expect`), so a replay check compares every frame.
"""

from __future__ import annotations

import gzip
import json
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from math import isqrt
from typing import Any

import engine
from engine.errors import EngineError, ShapeError, StateError
from engine.match import ReplayMismatch, same_events

VERSION = 11
RULESET = "halite"
GZIP_MAGIC = b"\x1f\x8b"
NAME_LENGTH = 30  # the 2016 environment kept this much of a bot's name
KEYS = (
    "version",
    "width",
    "height",
    "num_players",
    "num_frames",
    "player_names",
    "productions",
    "frames",
    "moves",
)

Grid = tuple[tuple[int, ...], ...]


class HltError(ShapeError):
    """A file that is not a 2016 Halite replay we can read, or a replay that is not
    Halite: wrong usage, so the command line exits 2 as on a bad option."""

    exit_status = 2

    def __init__(self, message: str, code: str = "bad_shape") -> None:
        super().__init__(code, message)


@dataclass(frozen=True, slots=True)
class Frame:
    """One map: `owner[y][x]` and `strength[y][x]`."""

    owner: Grid
    strength: Grid

    def to_json(self) -> list[list[list[int]]]:
        return [
            [[o, s] for o, s in zip(orow, srow, strict=True)]
            for orow, srow in zip(self.owner, self.strength, strict=True)
        ]

    @classmethod
    def of_state(cls, state: dict[str, Any]) -> Frame:
        return cls(_grid(state["owner"]), _grid(state["strength"]))


@dataclass(frozen=True, slots=True)
class Hlt:
    """A 2016 replay: the map's productions, every frame and every turn's moves."""

    width: int
    height: int
    player_names: tuple[str, ...]
    productions: Grid
    frames: tuple[Frame, ...]
    moves: tuple[Grid, ...]
    seed: int | None = None

    @property
    def num_players(self) -> int:
        return len(self.player_names)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "version": VERSION,
            "width": self.width,
            "height": self.height,
            "num_players": self.num_players,
            "num_frames": len(self.frames),
            "player_names": list(self.player_names),
            "productions": [list(row) for row in self.productions],
            "frames": [frame.to_json() for frame in self.frames],
            "moves": [[list(row) for row in grid] for grid in self.moves],
        }
        if self.seed is not None:
            data["seed"] = self.seed
        return data

    def dumps(self) -> str:
        """The file's text: compact JSON, keys in alphabetical order (the 2016 writer's)."""
        return json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_json(cls, data: Any) -> Hlt:
        return parse(data)


def _grid(rows: Any) -> Grid:
    return tuple(tuple(row) for row in rows)


# ---------------------------------------------------------------- export


def export(record: Any, names: Sequence[str] | None = None) -> Hlt:
    """Our replay record of a Halite match as a 2016 replay.

    Every turn is resolved again from the initial state (the frames are the states
    after each turn); a turn whose events differ from the recording raises
    ReplayMismatch, as `python -m engine replay` does. `names` are the players'
    names (default: the record's `players` or `bots`, else "Seat N").
    """
    if not isinstance(record, dict) or not isinstance(record.get("turns"), list):
        raise HltError("A replay is an object with 'initial', 'turns' and 'final'.")
    state: Any = record.get("initial")
    ruleset = state.get("ruleset") if isinstance(state, dict) else None
    if ruleset != RULESET:
        raise HltError(
            f"Only a Halite replay can be written in the 2016 format; this one is of"
            f" {str(ruleset)[:40]!r}."
        )
    first = engine.view(state, None)  # validates the initial state
    seats = int(first["seats"])
    width, height = int(first["width"]), int(first["height"])
    frames = [Frame.of_state(first)]
    moves: list[Grid] = []
    for n, turn in enumerate(record["turns"]):
        if not isinstance(turn, dict) or "orders" not in turn:
            raise HltError(f"Replay turn {n} has no 'orders'.")
        applied = engine.apply(state, turn["orders"])
        if not same_events(state, applied.events, turn.get("events")):
            raise ReplayMismatch(n, "the events differ from the recording")
        moves.append(_moves_grid(turn["orders"], width, height))
        state = applied.state
        frames.append(Frame.of_state(state))
    if "final" in record and state != record["final"]:
        raise ReplayMismatch(len(moves), "the final state differs from the recording")
    return Hlt(
        width=width,
        height=height,
        player_names=_names(names, record, seats),
        productions=_grid(first["production"]),
        frames=tuple(frames),
        moves=tuple(moves),
        seed=first["seed"] if type(first.get("seed")) is int else None,
    )


def _moves_grid(orders: Any, width: int, height: int) -> Grid:
    """The direction each cell's piece was given (the engine has accepted the orders)."""
    grid = [[0] * width for _ in range(height)]
    for given in orders if isinstance(orders, list) else [orders]:
        for x, y, direction in given.get("moves", []):
            grid[y][x] = direction
    return _grid(grid)


def _names(names: Sequence[str] | None, record: dict[str, Any], seats: int) -> tuple[str, ...]:
    for candidate in (names, record.get("players"), record.get("bots")):
        if candidate is None:
            continue
        if not isinstance(candidate, list | tuple) or len(candidate) != seats:
            if candidate is names:
                raise HltError(f"Give {seats} names, one per seat, separated by commas.")
            continue
        if all(isinstance(name, str) for name in candidate):
            return tuple(_clean_name(name) for name in candidate)
    return tuple(f"Seat {seat}" for seat in range(1, seats + 1))


def _clean_name(name: str) -> str:
    # A name is one line of the 2016 protocol; the environment kept its first 30 characters.
    return " ".join(name.split())[:NAME_LENGTH]


# ---------------------------------------------------------------- parse


def loads(text: str | bytes) -> Hlt:
    """A 2016 replay from the file's bytes (gzip-compressed too, as replays were
    often kept); HltError if it is not one we read."""
    if isinstance(text, bytes) and text.startswith(GZIP_MAGIC):
        try:
            text = gzip.decompress(text)
        except (OSError, EOFError, zlib.error) as exc:
            raise HltError(f"The file is not a 2016 replay: a broken gzip file ({exc}).") from None
    if isinstance(text, bytes) and text.startswith(b"HLT "):
        raise HltError(
            "This is a binary replay of the first 2016 format (HLT 10 or before);"
            " only version 11, the JSON one, is read."
        )
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise HltError(
            f"The file is not a 2016 replay: not valid JSON ({exc}).", "bad_json"
        ) from None
    return parse(data)


def parse(data: Any) -> Hlt:
    """Check a decoded file's shape: every size consistent, every value in range."""
    if not isinstance(data, dict):
        raise HltError("A 2016 replay is a JSON object.")
    missing = [key for key in KEYS if key not in data]
    if missing:
        raise HltError(f"The replay has no {missing[0]!r}; a 2016 replay has {', '.join(KEYS)}.")
    version = data["version"]
    if version != VERSION or type(version) is not int:
        raise HltError(
            f"This replay is version {str(version)[:20]}; only version {VERSION} is read."
        )
    options = {o.name: o for o in engine.options(RULESET)}
    width = _number(data, "width", options["width"].minimum, options["width"].maximum)
    height = _number(data, "height", options["height"].minimum, options["height"].maximum)
    seat_counts = engine.ruleset(RULESET).seats
    players = _number(data, "num_players", min(seat_counts), max(seat_counts))
    num_frames = _number(data, "num_frames", 1, None)
    names = data["player_names"]
    if (
        not isinstance(names, list)
        or len(names) != players
        or not all(isinstance(n, str) for n in names)
    ):
        raise HltError(f"'player_names' must be a list of {players} names (num_players).")
    productions = _int_grid(data["productions"], "productions", width, height, 0, 255)
    frames = data["frames"]
    if not isinstance(frames, list) or len(frames) != num_frames:
        raise HltError(f"'frames' must be a list of {num_frames} frames (num_frames).")
    moves = data["moves"]
    if not isinstance(moves, list) or len(moves) != num_frames - 1:
        raise HltError(f"'moves' must be a list of {num_frames - 1} grids, one fewer than frames.")
    seed = data.get("seed")
    return Hlt(
        width=width,
        height=height,
        player_names=tuple(names),
        productions=productions,
        frames=tuple(_frame(frame, f, width, height, players) for f, frame in enumerate(frames)),
        moves=tuple(
            _int_grid(grid, f"moves[{t}]", width, height, 0, 4) for t, grid in enumerate(moves)
        ),
        seed=seed if type(seed) is int and 0 <= seed < 2**63 else None,
    )


def _number(data: dict[str, Any], key: str, lo: int | None, hi: int | None) -> int:
    value = data[key]
    if type(value) is not int or (lo is not None and value < lo) or (hi is not None and value > hi):
        span = f"{lo} to {hi}" if hi is not None else f"at least {lo}"
        raise HltError(f"'{key}' must be a whole number from {span}, not {str(value)[:20]}.")
    return value


def _int_grid(rows: Any, what: str, width: int, height: int, lo: int, hi: int) -> Grid:
    if not isinstance(rows, list) or len(rows) != height:
        raise HltError(f"'{what}' must have {height} rows (height).")
    for y, row in enumerate(rows):
        if not isinstance(row, list) or len(row) != width:
            raise HltError(f"Row {y} of '{what}' must have {width} cells (width).")
        for x, value in enumerate(row):
            if type(value) is not int or not lo <= value <= hi:
                raise HltError(f"'{what}' at ({x}, {y}) must be a whole number from {lo} to {hi}.")
    return _grid(rows)


def _frame(rows: Any, f: int, width: int, height: int, players: int) -> Frame:
    if not isinstance(rows, list) or len(rows) != height:
        raise HltError(f"Frame {f} must have {height} rows (height).")
    owner: list[tuple[int, ...]] = []
    strength: list[tuple[int, ...]] = []
    for y, row in enumerate(rows):
        if not isinstance(row, list) or len(row) != width:
            raise HltError(f"Row {y} of frame {f} must have {width} cells (width).")
        owners, strengths = [], []
        for x, cell in enumerate(row):
            if (
                not isinstance(cell, list)
                or len(cell) != 2
                or type(cell[0]) is not int
                or type(cell[1]) is not int
                or not 0 <= cell[0] <= players
                or not 0 <= cell[1] <= 255
            ):
                raise HltError(
                    f"Frame {f} at ({x}, {y}) must be [owner 0 to {players}, strength 0 to 255]."
                )
            owners.append(cell[0])
            strengths.append(cell[1])
        owner.append(tuple(owners))
        strength.append(tuple(strengths))
    return Frame(tuple(owner), tuple(strength))


# ---------------------------------------------------------------- import


def chosen_seed(hlt: Hlt) -> int:
    """The seed of an imported match: the file's own `seed` if it has one (ours do),
    else a number fixed by the map (CRC-32 of its productions and frame 0), so the
    same file always imports to the same replay and the bots play it alike."""
    if hlt.seed is not None:
        return hlt.seed
    text = json.dumps([hlt.productions, hlt.frames[0].to_json()], separators=(",", ":"))
    return zlib.crc32(text.encode())


def initial_state(hlt: Hlt) -> dict[str, Any]:
    """The state before the first turn: frame 0 and the productions, every other
    field as a new match has it (halite.md, "State (protocol JSON)")."""
    first = hlt.frames[0]
    seats = list(range(1, hlt.num_players + 1))
    territory = {str(s): sum(row.count(s) for row in first.owner) for s in seats}
    alive = [s for s in seats if territory[str(s)] > 0]
    if len(alive) < len(seats):
        empty = next(s for s in seats if s not in alive)
        raise HltError(f"Seat {empty} owns no cell in frame 0; every seat starts with a cell.")
    state = {
        "ruleset": RULESET,
        "seed": chosen_seed(hlt),
        "width": hlt.width,
        "height": hlt.height,
        "turn": 0,
        "max_turns": isqrt(100 * hlt.width * hlt.height),  # floor(10 * sqrt(w * h))
        "owner": [list(row) for row in first.owner],
        "strength": [list(row) for row in first.strength],
        "production": [list(row) for row in hlt.productions],
        "seats": hlt.num_players,
        "alive": alive,
        "eliminated": [],
        "territory_total": {str(s): 1 for s in seats},
        "awaiting": alive,
        "scores": territory,
        "over": False,
        "winners": [],
        "ranking": [],
    }
    try:
        engine.view(state, None)  # the engine's own consistency checks
    except StateError as error:
        raise HltError(
            f"Frame 0 and the productions are not a Halite map: {error.message}"
        ) from None
    return state


def _orders(state: dict[str, Any], grid: Grid, t: int) -> list[dict[str, Any]]:
    """Each awaited seat's orders from turn t's moves grid, cells in row order."""
    owner = state["owner"]
    moves: dict[int, list[list[int]]] = {seat: [] for seat in state["awaiting"]}
    for y, row in enumerate(grid):
        for x, direction in enumerate(row):
            if direction == 0:
                continue
            seat = owner[y][x]
            if seat not in moves:
                raise HltError(
                    f"moves[{t}] gives direction {direction} at ({x}, {y}), a cell no seat in"
                    f" play owns in frame {t}."
                )
            moves[seat].append([x, y, direction])
    return [{"seat": seat, "turn": t, "moves": moves[seat]} for seat in state["awaiting"]]


def to_record(hlt: Hlt) -> dict[str, Any]:
    """Our replay of a 2016 replay, each turn resolved by the engine and checked
    against the file's next frame (ReplayMismatch, code bad_state, if it differs)."""
    state = initial_state(hlt)
    initial = state
    turns: list[dict[str, Any]] = []
    for t, grid in enumerate(hlt.moves):
        if not engine.awaiting(state):
            raise ReplayMismatch(
                t, f"the match is over after frame {t} by the rules, yet the file goes on"
            )
        orders = _orders(state, grid, t)
        try:
            applied = engine.apply(state, orders)
        except EngineError as error:
            raise HltError(f"Turn {t}'s moves are not legal: {error.message}") from None
        expected = hlt.frames[t + 1]
        got = Frame.of_state(applied.state)
        if got != expected:
            raise ReplayMismatch(t, _difference(expected, got, t + 1))
        turns.append(
            {
                "orders": orders,
                "events": applied.events,
                "expect": {
                    "owner": [list(row) for row in expected.owner],
                    "strength": [list(row) for row in expected.strength],
                },
            }
        )
        state = applied.state
    return {
        "ruleset": RULESET,
        "players": list(hlt.player_names),
        "source": {"format": "hlt", "version": VERSION},
        "initial": initial,
        "turns": turns,
        "final": state,
    }


def _difference(expected: Frame, got: Frame, f: int) -> str:
    for y, (erow, grow) in enumerate(zip(expected.owner, got.owner, strict=True)):
        for x, (eo, go) in enumerate(zip(erow, grow, strict=True)):
            es, gs = expected.strength[y][x], got.strength[y][x]
            if (eo, es) != (go, gs):
                return f"frame {f} has [{eo}, {es}] at ({x}, {y}) where the rules give [{go}, {gs}]"
    return f"frame {f} differs"  # pragma: no cover - Frame equality is cell by cell
