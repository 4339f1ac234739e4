"""The arena's rules page: every number read from engine/arena when the page is built
(never copied), with a small arena drawn by the match page's own board code."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils.safestring import SafeString

import engine
from engine.arena.mapgen import MAX_OBSTACLES, MIN_OBSTACLES, STARTS
from engine.arena.orders import CAPACITY, DEFAULT_BUILD, WEAPON_RANGE
from engine.arena.resolve import CANNON_RELOAD
from engine.arena.state import BASE_HEALTH, DEFAULT_ROUNDS, DIRECTIONS, HEIGHT, PARTS, WIDTH
from games.models import TURN_SECONDS_MAX, TURN_SECONDS_MIN
from games.play.arena.board import SEAT_COLOURS, SEAT_NAMES, SEAT_SHAPES, board, shape_path

NAME = "arena"
EFFECTS = {
    "engine": "{n} steps a turn",
    "radar": "scans every cell within {n}",
    "shield": "+{n} health",
    "weapon": "hits a cell within {range} for {n}",
}


def parts_table() -> list[dict[str, Any]]:
    """Each part: its kind, the capacity it takes and what it does, from the engine."""
    return [
        {
            "name": name,
            "kind": kind,
            "capacity": cost,
            "effect": EFFECTS[kind].format(n=strength, range=WEAPON_RANGE.get(name, 0)),
        }
        for name, (kind, cost, strength) in PARTS.items()
    ]


def seat_keys() -> list[dict[str, Any]]:
    return [
        {
            "seat": seat,
            "colour": SEAT_NAMES[seat],
            "shape": SEAT_SHAPES[seat],
            "path": shape_path(seat, 9),
            "fill": SEAT_COLOURS[seat],
            "start": STARTS[seat - 1],
        }
        for seat in SEAT_SHAPES
    ]


def example_board() -> SafeString:
    """Seat 1's arena after two scans: a grey fog, what it remembers, and seat 2 seen."""
    known: dict[str, list[Any]] = {}
    for x in range(4):
        for y in range(4):
            known[f"{x},{y}"] = ["empty", None, 1, 0]
    for x in range(2, 7):
        for y in range(2, 7):
            known[f"{x},{y}"] = ["empty", None, 3, 1]
    known["1,2"] = ["obstacle", None, 1, 0]
    known["5,4"] = ["obstacle", None, 3, 1]
    known["6,5"] = ["robot", 2, 3, 1]
    view = {
        "ruleset": NAME,
        "width": WIDTH,
        "height": HEIGHT,
        "phase": "play",
        "robots": [
            {
                "seat": 1,
                "x": 4,
                "y": 4,
                "health": 12,
                "max_health": 14,
                "alive": True,
                "parts": ["engine2", "radar2", "shield1", "gun"],
                "steps_left": 2,
                "shot": False,
                "reload": 0,
            }
        ],  # fmt: skip
        "knowledge": {"1": known},
        "round": 2,
        "rounds": DEFAULT_ROUNDS,
        "turn": 4,
        "step": 2,
        "viewer": 1,
        "over": False,
    }
    return board(view, caption="Seat 1's arena in its second turn", ident="rules-example")


def rules_context() -> dict[str, Any]:
    """Everything the arena's rules page says with a number, read from the engine now."""
    ruleset = engine.ruleset(NAME)
    rounds = ruleset.option("rounds")
    return {
        "title": ruleset.title,
        "seats_min": min(ruleset.seats),
        "seats_max": max(ruleset.seats),
        "width": WIDTH,
        "height": HEIGHT,
        "capacity": CAPACITY,
        "base_health": BASE_HEALTH,
        "parts": parts_table(),
        "gun_range": WEAPON_RANGE["gun"],
        "cannon_range": WEAPON_RANGE["cannon"],
        "gun_damage": PARTS["gun"][2],
        "cannon_damage": PARTS["cannon"][2],
        "cannon_reload": CANNON_RELOAD,
        "obstacles_min": MIN_OBSTACLES,
        "obstacles_max": MAX_OBSTACLES,
        "rounds_default": rounds.default,
        "rounds_min": rounds.minimum,
        "rounds_max": rounds.maximum,
        "default_build": ", ".join(DEFAULT_BUILD),
        "directions": list(DIRECTIONS),
        "keys": seat_keys(),
        "turn_minutes_min": TURN_SECONDS_MIN // 60,
        "turn_days_max": TURN_SECONDS_MAX // 86_400,
        "missed_before_bot": settings.MISSED_TURNS_BEFORE_BOT,
        "diagrams": {"example": example_board()},
    }
