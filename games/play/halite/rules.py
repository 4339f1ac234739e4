"""Halite's rules page: every number read from engine/halite when the page is built
(never copied), with a few small boards drawn by the match page's own board code."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils.safestring import SafeString

import engine
from engine.halite import mapgen, resolve, state
from games.models import TURN_SECONDS_MAX, TURN_SECONDS_MIN
from games.play.halite import forms
from games.play.halite.board import SEAT_COLOURS, SEAT_NAMES, SEAT_SHAPES, board, shape_path

NAME = "halite"


def _example(
    ident: str,
    owner: list[list[int]],
    strength: list[list[int]],
    caption: str,
    production: int = 2,
) -> SafeString:
    """A little map of the given cells, drawn as a match page draws one."""
    height, width = len(owner), len(owner[0])
    seats = max(max(row) for row in owner)
    view = {
        "width": width,
        "height": height,
        "turn": 0,
        "owner": owner,
        "strength": strength,
        "production": [[production] * width for _ in range(height)],
        "seats": max(seats, 2),
        "viewer": None,
    }
    return board(view, caption=caption, ident=ident)


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


def rules_context() -> dict[str, Any]:
    """Everything Halite's rules page says with a number, read from the engine now."""
    ruleset = engine.ruleset(NAME)
    options = {o.name: o for o in ruleset.options}
    width, height = options["width"], options["height"]
    sizes = [(10, 10), (20, 20), (30, 30), (40, 40), (50, 50)]
    return {
        "title": ruleset.title,
        "seats": list(ruleset.seats),
        "seats_min": min(ruleset.seats),
        "seats_max": max(ruleset.seats),
        "size_min": width.minimum,
        "size_max": width.maximum,
        "size_default": f"{width.default} × {height.default}",
        "max_strength": state.MAX_STRENGTH,
        "max_production": state.MAX_PRODUCTION,
        "start_strength": mapgen.START_STRENGTH,
        "top_production": (mapgen.MIN_TOP_PRODUCTION, mapgen.MAX_TOP_PRODUCTION),
        "top_strength": (mapgen.MIN_TOP_STRENGTH, mapgen.MAX_TOP_STRENGTH),
        "max_turns_examples": [
            {"size": f"{w} × {h}", "turns": state.max_turns_for(w, h)} for w, h in sizes
        ],
        "layouts": {seats: tiles for seats, tiles in mapgen.LAYOUTS.items()},
        "turn_s": resolve.TURN_MS / 1000,
        "keys": seat_keys(),
        "directions": forms.DIRECTION_NAMES,
        "turn_minutes_min": TURN_SECONDS_MIN // 60,
        "turn_days_max": TURN_SECONDS_MAX // 86_400,
        "missed_before_bot": settings.MISSED_TURNS_BEFORE_BOT,
        "diagrams": {
            "wrap": _example(
                "rules-wrap",
                [[0, 0, 0, 0, 1], [0, 0, 0, 0, 0], [0, 0, 0, 0, 0]],
                [[0, 0, 0, 0, 90], [0, 0, 0, 0, 0], [0, 0, 0, 0, 0]],
                "A piece on the east edge: moving east takes it to the west edge, "
                "shown in the shaded band on both sides.",
            ),
            "fight": _example(
                "rules-fight",
                [[0, 0, 0, 0, 0], [0, 1, 0, 2, 0], [0, 0, 0, 0, 0]],
                [[0, 0, 0, 0, 0], [0, 120, 0, 80, 0], [0, 0, 0, 0, 0]],
                "Seat 1 (120) and seat 2 (80) two cells apart: if both step into the cell "
                "between, each hits the other.",
                production=0,
            ),
        },
    }
