"""Building Halite positions by hand for the rule tests.

`position(...)` gives a state exactly as halite.md documents it (only the documented
fields), with the pieces and neutral strengths a test places and nothing else, so each
test shows the whole position it is about. `turn(state, {seat: moves})` resolves one
turn with every awaited seat's orders (a seat left out passes).
"""

from __future__ import annotations

import math
from typing import Any

import engine
from engine.core import Applied

Json = dict[str, Any]
Cell = tuple[int, int]
STILL, NORTH, EAST, SOUTH, WEST = range(5)


def position(
    pieces: dict[Cell, tuple[int, int]],
    *,
    neutral: dict[Cell, int] | None = None,
    production: dict[Cell, int] | None = None,
    width: int = 7,
    height: int = 7,
    seats: int = 2,
    turn: int = 0,
    territory_total: dict[int, int] | None = None,
    eliminated: list[int] | None = None,
    seed: int = 7,
) -> Json:
    """A running match: `pieces` maps a cell to (seat, strength); `neutral` gives neutral
    cells a strength (0 elsewhere); `production` is 0 except where given."""
    owner = [[0] * width for _ in range(height)]
    strength = [[0] * width for _ in range(height)]
    prod = [[0] * width for _ in range(height)]
    for (x, y), value in (neutral or {}).items():
        strength[y][x] = value
    for (x, y), (seat, value) in pieces.items():
        owner[y][x] = seat
        strength[y][x] = value
    for (x, y), value in (production or {}).items():
        prod[y][x] = value
    counts = {s: sum(row.count(s) for row in owner) for s in range(1, seats + 1)}
    alive = [s for s in range(1, seats + 1) if counts[s]]
    gone = (
        eliminated if eliminated is not None else [s for s in range(1, seats + 1) if not counts[s]]
    )
    totals = territory_total or {s: max(1, counts[s]) for s in range(1, seats + 1)}
    return {
        "ruleset": "halite",
        "seed": seed,
        "width": width,
        "height": height,
        "turn": turn,
        "max_turns": math.isqrt(100 * width * height),
        "owner": owner,
        "strength": strength,
        "production": prod,
        "seats": seats,
        "alive": alive,
        "eliminated": gone,
        "territory_total": {str(s): t for s, t in totals.items()},
        "awaiting": alive,
        "scores": {str(s): counts[s] for s in range(1, seats + 1)},
        "over": False,
        "winners": [],
        "ranking": [],
    }


def orders(state: Json, seat: int, moves: list[list[int]] | None = None) -> Json:
    return {"seat": seat, "turn": state["turn"], "moves": moves or []}


def turn(state: Json, moves: dict[int, list[list[int]]] | None = None) -> Applied:
    """One turn: each awaited seat's `moves` (none: a pass), through `engine.apply`,
    with its events piece by piece, as every viewer reads them (`engine.events_view`;
    the engine records them grouped by kind)."""
    given = moves or {}
    unknown = set(given) - set(state["awaiting"])
    assert not unknown, f"seats not awaited: {unknown}"
    applied = engine.apply(state, [orders(state, s, given.get(s)) for s in state["awaiting"]])
    return Applied(applied.state, shown(applied.events), applied.turn_ms)


def shown(events: list[Json]) -> list[Json]:
    """A turn's events as every viewer reads them: piece by piece."""
    return engine.events_view(events, None, ruleset="halite")


def cell(state: Json, x: int, y: int) -> tuple[int, int]:
    """(owner, strength) of a cell."""
    return state["owner"][y][x], state["strength"][y][x]


def of_type(events: list[Json], kind: str) -> list[Json]:
    return [e for e in events if e["type"] == kind]


def without_timing(event: Json) -> Json:
    return {k: v for k, v in event.items() if k not in ("t_ms", "duration_ms")}


FAR_CORNER = (6, 6)
