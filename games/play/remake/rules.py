"""The remake's rules page: every number read from engine/remake when the page is
built (never copied), its diagrams drawn with Helium 3's small grids."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils.safestring import SafeString

import engine
from engine.helium3.mapgen import HEIGHT, WIDTH
from engine.remake import mapgen, orders, resolve, state, timing
from games.models import TURN_SECONDS_MAX, TURN_SECONDS_MIN
from games.play.helium3.rules import (
    ACTION_NAMES,
    Grid,
    deflect_diagram,
    laser_diagram,
    missile_diagram,
    reach_diagram,
)

NAME = "helium3-remake"


def kamikaze_diagram(radius: int) -> SafeString:
    """The remake's blast takes the launcher's own cell too."""
    grid = Grid(radius)
    cx, cy = grid.centre
    for x, y in grid.cells():
        if max(abs(x - cx), abs(y - cy)) <= 1:
            grid.shade((x, y), "blast")
    grid.robot(grid.centre)
    return grid.svg("Kamikaze: the blast hits the vehicle's own cell and the eight around it.")


def mining_diagram() -> SafeString:
    grid = Grid(1, cell=40)
    for cell in grid.cells():
        grid.shade(cell, "reach")
        grid.label(cell, str(resolve.MINE_PER_CELL))
    return grid.svg(
        f"Mining takes {resolve.MINE_PER_CELL} from each of the nine cells around and under "
        f"the vehicle that holds at least {resolve.MINE_PER_CELL}."
    )


def rules_context() -> dict[str, Any]:
    """Everything the remake's rules page says with a number, read from the engine now."""
    ranges = dict(orders.MOVE_RANGE)
    radius = max([*ranges.values(), orders.MISSILE_RANGE]) + 1
    ruleset = engine.ruleset(NAME)
    first = engine.new_game(seed=0, seats=max(ruleset.seats), ruleset=NAME)
    vehicles_per_seat = sum(1 for r in first["robots"] if r["seat"] == 1)
    actions = [
        {
            "type": a,
            "name": ACTION_NAMES[a],
            "range": ranges[a],
            "diagram": reach_diagram(a, radius, ranges[a]),
        }
        for a in orders.MOVING
    ]
    return {
        "title": ruleset.title,
        "width": WIDTH,
        "height": HEIGHT,
        "seats": list(ruleset.seats),
        "vehicles_per_seat": vehicles_per_seat,
        "max_actions": orders.MAX_ACTIONS,
        "ranges": ranges,
        "actions": actions,
        "missile_range": orders.MISSILE_RANGE,
        "mine_per_cell": resolve.MINE_PER_CELL,
        "hotspots": {
            "min": mapgen.MIN_HOTSPOTS,
            "max": mapgen.MAX_HOTSPOTS,
            "helium": mapgen.GRAINS * mapgen.GRAIN,
            "grain": mapgen.GRAIN,
            "spread": mapgen.SPREAD,
            "spawn_distance": mapgen.MIN_SPAWN_DISTANCE,
        },
        "rounds": {
            "default": state.DEFAULT_ROUNDS,
            "min": state.MIN_ROUNDS,
            "max": state.MAX_ROUNDS,
        },
        "diagrams": {
            "fire_missile": missile_diagram(radius, orders.MISSILE_RANGE),
            "fire_laser": laser_diagram(radius),
            "kamikaze": kamikaze_diagram(radius),
            "mining": mining_diagram(),
            "deflect": deflect_diagram(),
        },
        "timing": {
            "step_s": timing.STEP_MS / 1000,
            "mine_s": timing.MINE_MS / 1000,
            "arm_s": timing.ARM_MS / 1000,
            "min_turn_s": timing.MIN_TURN_MS / 1000,
        },
        "turn_minutes_min": TURN_SECONDS_MIN // 60,
        "turn_days_max": TURN_SECONDS_MAX // 86_400,
        "missed_before_bot": settings.MISSED_TURNS_BEFORE_BOT,
    }
