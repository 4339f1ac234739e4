"""Skyport's rules page: every number read from engine/skyport when the page is built
(never copied), with a small map drawn by the match page's own board code."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils.safestring import SafeString

import engine
from engine.skyport import api as sk_api
from engine.skyport import mapgen
from engine.skyport import orders as sk_orders
from engine.skyport import resolve as sk
from engine.skyport import state as sk_state
from engine.skyport.hexgrid import DIRECTIONS
from games.models import TURN_SECONDS_MAX, TURN_SECONDS_MIN
from games.play.skyport import diagrams
from games.play.skyport.board import (
    SEAT_COLOURS,
    SEAT_NAMES,
    SEAT_SHAPES,
    TILE_COLOURS,
    TILE_NAMES,
    board,
    shape_path,
)

NAME = "skyport"
TILE_MARKS = {
    "G": "plain green",
    "E": "red, striped",
    "R": "blue, dotted",
    "C": "brown, cross-hatched",
    "V": "black",
    "S": "grey, ringed",
    "O": "grey, peaked",
}
# The seed's example: a level-3 mortar fired with two actions left unused.
EXAMPLE_LEVEL, EXAMPLE_UNUSED = 3, 2


def _levels(table: dict[int, int]) -> str:
    return " / ".join(str(table[level]) for level in sorted(table))


def weapon_table() -> list[dict[str, Any]]:
    """Each weapon's resource, range, damage and blast, by level, from the engine."""
    return [
        {
            "name": "laser",
            "resource": sk_state.RESOURCE_OF_WEAPON["laser"],
            "ranges": f"{_levels(sk.LASER_RANGE)} tiles in a line",
            "damages": _levels(sk.LASER_DAMAGE),
            "area": None,
        },
        {
            "name": "mortar",
            "resource": sk_state.RESOURCE_OF_WEAPON["mortar"],
            "ranges": f"any tile within {_levels(sk.MORTAR_RANGE)}",
            "damages": _levels(sk.MORTAR_DAMAGE),
            "area": sk.MORTAR_AREA,
        },
        {
            "name": "droid",
            "resource": sk_state.RESOURCE_OF_WEAPON["droid"],
            "ranges": f"a walk of {_levels(sk.DROID_RANGE)} steps",
            "damages": _levels(sk.DROID_DAMAGE),
            "area": sk.DROID_AREA,
        },
    ]


def seat_keys() -> list[dict[str, Any]]:
    """Each seat's colour, shape and a small SVG of it, for the page and the legend."""
    return [
        {
            "seat": seat,
            "colour": SEAT_NAMES[seat],
            "shape": SEAT_SHAPES[seat],
            "path": shape_path(seat, 9),
            "fill": SEAT_COLOURS[seat],
        }
        for seat in SEAT_SHAPES
    ]


def example_board() -> SafeString:
    """A 5 x 5 map with two players, drawn as a match page draws one."""
    tiles = ["SGGRV", "GGEGG", "GOGCG", "VGGGG", "GRGGS"]
    resources = {
        f"{j},{k}": 2 for j, row in enumerate(tiles) for k, t in enumerate(row) if t in "ERC"
    }
    resources["2,3"] = 1

    def player(seat: int, at: tuple[int, int], spawn: tuple[int, int], health: int) -> dict:
        return {
            "seat": seat,
            "j": at[0],
            "k": at[1],
            "spawn": list(spawn),
            "health": health,
            "score": 0,
            "dead": False,
            "respawn_next": False,
            "weapons": {"laser": 1, "mortar": 1},
            "resources": {r: 0 for r in sk_state.RESOURCES},
        }

    view = {
        "ruleset": NAME,
        "size": 5,
        "phase": "play",
        "tiles": tiles,
        "resources": resources,
        "players": [player(1, (1, 1), (0, 0), 100), player(2, (2, 2), (4, 4), 45)],
        "round": 1,
        "rounds": 30,
        "turn": 1,
        "viewer": None,
    }
    return board(view, caption="A small Skyport map with two players", ident="rules-example")


def rules_context() -> dict[str, Any]:
    """Everything Skyport's rules page says with a number, read from the engine now."""
    ruleset = engine.ruleset(NAME)
    rounds = ruleset.option("rounds")
    main = sk.damage(sk.MORTAR_DAMAGE[EXAMPLE_LEVEL], 0, EXAMPLE_UNUSED)
    area = sk.damage(0, sk.MORTAR_AREA, EXAMPLE_UNUSED)
    levels = sorted(sk.UPGRADE_COST)
    return {
        "title": ruleset.title,
        "seats_min": min(ruleset.seats),
        "seats_max": max(ruleset.seats),
        "rounds_default": rounds.default,
        "rounds_min": rounds.minimum,
        "rounds_max": rounds.maximum,
        "shipped": [
            {"name": name, "players": mapgen.shipped(name).players} for name in mapgen.SHIPPED
        ],
        "directions": [{"name": d, "dj": dj, "dk": dk} for d, (dj, dk) in DIRECTIONS.items()],
        "tiles": [
            {"name": TILE_NAMES[t].capitalize(), "mark": TILE_MARKS[t], "fill": TILE_COLOURS[t][0]}
            for t in TILE_NAMES
        ],
        "per_tile": sk_state.PER_TILE,
        "start_health": sk_state.START_HEALTH,
        "max_actions": sk_orders.ACTIONS_PER_TURN,
        "upgrades": [{"level": level + 1, "cost": sk.UPGRADE_COST[level]} for level in levels],
        "weapons": weapon_table(),
        # The damage formula's bonus per unused action, as the engine computes it.
        "unused_bonus": f"{(sk.damage(100, 0, 1) - 100) / 100:g}",
        "example": {"unused": EXAMPLE_UNUSED, "main": main, "area": area},
        "kill_points": sk.KILL_BOUNTY,
        "death_penalty": abs(sk.DEATH_PENALTY),
        "no_action_penalty": abs(sk.NO_ACTION_PENALTY),
        "on_spawn_penalty": abs(sk.ON_SPAWN_PENALTY),
        "default_loadout": " and ".join(sk_api.DEFAULT_LOADOUT),
        "keys": seat_keys(),
        "turn_minutes_min": TURN_SECONDS_MIN // 60,
        "turn_days_max": TURN_SECONDS_MAX // 86_400,
        "missed_before_bot": settings.MISSED_TURNS_BEFORE_BOT,
        "diagrams": {"example": example_board(), "compass": diagrams.compass()},
        "worked": diagrams.worked_example(),
    }
