"""Small Skyport positions built by hand for the rule tests, and ways to play them."""

from __future__ import annotations

from typing import Any

import engine
from engine.core import Applied
from engine.errors import EngineError

State = dict[str, Any]

# 9 x 9 grass with a spawn in each corner of the rhombus
OPEN = [
    "SGGGGGGGS",
    *["GGGGGGGGG"] * 7,
    "SGGGGGGGS",
]
CORNERS = [(0, 0), (0, 8), (8, 0), (8, 8)]


def tiles(base: list[str], **marks: list[tuple[int, int]]) -> list[str]:
    """`base` with tiles changed: tiles(OPEN, O=[(3, 3)], V=[(4, 4)])."""
    rows = [list(r) for r in base]
    for letter, where in marks.items():
        for j, k in where:
            rows[j][k] = letter
    return ["".join(r) for r in rows]


def robot(
    j: int,
    k: int,
    weapons: dict[str, int] | None = None,
    health: int = 100,
    resources: dict[str, int] | None = None,
    **fields: Any,
) -> dict[str, Any]:
    held = {"rubidium": 0, "explosium": 0, "scrap": 0, **(resources or {})}
    return {
        "j": j,
        "k": k,
        "health": health,
        "weapons": weapons if weapons is not None else {"laser": 1, "mortar": 1},
        "resources": held,
        **fields,
    }


def position(
    robots: list[dict[str, Any]],
    grid: list[str] | None = None,
    *,
    rounds: int = 30,
    spawns: list[tuple[int, int]] | None = None,
) -> State:
    """A play-phase state, seat 1 to move, seat s on `robots[s - 1]`, spawns in the corners."""
    grid = grid or OPEN
    spawns = spawns or CORNERS
    players = []
    for seat, given in enumerate(robots, start=1):
        sj, sk = spawns[seat - 1]
        players.append(
            {
                "seat": seat,
                "spawn": [sj, sk],
                "score": 0,
                "dead": given["health"] == 0,
                "respawn_next": False,
                **given,
            }
        )
    resources = {
        f"{j},{k}": 2 for j, row in enumerate(grid) for k, t in enumerate(row) if t in "ERC"
    }
    order = [p["seat"] for p in players]
    return {
        "ruleset": "skyport",
        "size": len(grid),
        "phase": "play",
        "tiles": list(grid),
        "resources": resources,
        "players": players,
        "round": 1,
        "rounds": rounds,
        "order": order,
        "turn": 1,
        "awaiting": [1],
        "scores": {str(s): p["score"] for s, p in zip(order, players, strict=True)},
        "over": False,
        "winners": [],
    }


def orders(state: State, *actions: dict[str, Any]) -> dict[str, Any]:
    return {"seat": state["awaiting"][0], "turn": state["turn"], "actions": list(actions)}


def act(state: State, *actions: dict[str, Any]) -> Applied:
    return engine.apply(state, orders(state, *actions))


def reject(state: State, *actions: dict[str, Any], code: str = "illegal_action") -> dict[str, Any]:
    """The error body of orders the engine must refuse, checked to leave `state` alone."""
    before = repr(state)
    try:
        engine.apply(state, orders(state, *actions))
    except EngineError as error:
        assert error.code == code, error.message
        assert repr(state) == before
        body: dict[str, Any] = error.to_json()["error"]
        return body
    raise AssertionError("the orders were accepted")


def player(state: State, seat: int) -> dict[str, Any]:
    found: dict[str, Any] = state["players"][seat - 1]
    return found


def of_type(applied: Applied, kind: str) -> list[dict[str, Any]]:
    return [e for e in applied.events if e["type"] == kind]


def move(direction: str) -> dict[str, Any]:
    return {"type": "move", "direction": direction}


def laser(direction: str) -> dict[str, Any]:
    return {"type": "laser", "direction": direction}


def mortar(dj: int, dk: int) -> dict[str, Any]:
    return {"type": "mortar", "target": [dj, dk]}


def droid(*sequence: str) -> dict[str, Any]:
    return {"type": "droid", "sequence": list(sequence)}


MINE = {"type": "mine"}


def upgrade(weapon: str) -> dict[str, Any]:
    return {"type": "upgrade", "weapon": weapon}
