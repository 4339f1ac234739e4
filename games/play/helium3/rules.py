"""The rules page's numbers and diagrams, all read from the engine when the page is
built (never copied): change a range or a timing in engine/helium3 and the page
and its drawings follow.

Each diagram is a small SVG grid around one robot, drawn in Python (cheaper than a
template loop over its cells); the cells an action reaches are shaded as on an
empty board, where a path of king steps is as long as the king's distance.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

import engine
from engine.helium3 import api, mapgen, orders, resolve, timing
from games.models import TURN_SECONDS_MAX, TURN_SECONDS_MIN

CELL = 14
PAD = 2
COLOURS = {
    "ground": "#efe9dc",
    "line": "#c9c1ae",
    "reach": "#6f9fd8",
    "target": "#e07a5f",
    "blast": "#e76f51",
    "beam": "#c1121f",
    "robot": "#2b2d42",
    "shield": "#2a9d8f",
    "text": "#1d1d1d",
}
DIRECTIONS = {
    "N": (0, -1),
    "NE": (1, -1),
    "E": (1, 0),
    "SE": (1, 1),
    "S": (0, 1),
    "SW": (-1, 1),
    "W": (-1, 0),
    "NW": (-1, -1),
}
# What each action is called on the page, in the engine's order.
ACTION_NAMES = {
    "move": "Move",
    "mine": "Mine",
    "arm_missile": "Arm missile",
    "arm_laser": "Arm laser",
    "shield": "Shield",
    "fire_missile": "Fire missile",
    "fire_laser": "Fire laser",
    "kamikaze": "Kamikaze",
}


def _cheb(a: tuple[int, int], b: tuple[int, int]) -> int:
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


class Grid:
    """An n x n grid of cells, the robot in the middle."""

    def __init__(self, radius: int, cell: int = CELL) -> None:
        self.radius = radius
        self.cell = cell
        self.n = 2 * radius + 1
        self.centre = (radius, radius)
        self.parts: list[str] = []

    def xy(self, cell: tuple[int, int]) -> tuple[float, float]:
        size = self.cell
        return PAD + cell[0] * size + size / 2, PAD + cell[1] * size + size / 2

    def cells(self) -> list[tuple[int, int]]:
        return [(x, y) for y in range(self.n) for x in range(self.n)]

    def shade(self, cell: tuple[int, int], kind: str) -> None:
        size = self.cell
        x, y = PAD + cell[0] * size, PAD + cell[1] * size
        self.parts.append(
            f'<rect class="{kind}" x="{x + 1}" y="{y + 1}" width="{size - 2}" height="{size - 2}" '
            f'fill="{COLOURS[kind]}" rx="2"/>'
        )

    def label(self, cell: tuple[int, int], text: str) -> None:
        cx, cy = self.xy(cell)
        self.parts.append(
            f'<text x="{cx}" y="{cy + self.cell * 0.11}" font-size="{self.cell * 0.3:.1f}" '
            f'text-anchor="middle" font-weight="bold" '
            f'fill="{COLOURS["text"]}">{escape(text)}</text>'
        )

    def robot(self, cell: tuple[int, int], *, shield: bool = False) -> None:
        cx, cy = self.xy(cell)
        if shield:
            self.parts.append(
                f'<circle cx="{cx}" cy="{cy}" r="{self.cell * 0.62}" fill="none" '
                f'stroke="{COLOURS["shield"]}" stroke-width="2"/>'
            )
        self.parts.append(
            f'<circle class="robot" cx="{cx}" cy="{cy}" r="{self.cell * 0.34}" '
            f'style="fill: var(--text, {COLOURS["robot"]})"/>'
        )

    def beam(self, points: list[tuple[int, int]]) -> None:
        coords = " ".join(f"{x},{y}" for x, y in (self.xy(p) for p in points))
        self.parts.append(
            f'<polyline class="beam" points="{coords}" fill="none" stroke="{COLOURS["beam"]}" '
            f'stroke-width="2.5" stroke-linecap="round" stroke-linejoin="round"/>'
        )

    def svg(self, label: str) -> SafeString:
        step = self.cell
        size = self.n * step + 2 * PAD
        lines = "".join(
            f'<line x1="{PAD + i * step}" y1="{PAD}" x2="{PAD + i * step}" y2="{size - PAD}"/>'
            f'<line x1="{PAD}" y1="{PAD + i * step}" x2="{size - PAD}" y2="{PAD + i * step}"/>'
            for i in range(self.n + 1)
        )
        # Every piece is built here from numbers and fixed words; the label is escaped.
        return mark_safe(  # noqa: S308
            f'<svg class="rules-diagram" viewBox="0 0 {size} {size}" width="{size}" '
            f'height="{size}" role="img" aria-label="{escape(label)}">'
            # The page's theme tokens where the stylesheet has them (light or dark).
            f'<rect width="{size}" height="{size}" rx="4" '
            f'style="fill: var(--surface-2, {COLOURS["ground"]})"/>'
            f'<g style="stroke: var(--border, {COLOURS["line"]})" stroke-width="0.5">{lines}</g>'
            f"{''.join(self.parts)}</svg>"
        )


def reach_diagram(action: str, radius: int, reach: int | None = None) -> SafeString:
    """The cells a moving action may end on, as on an empty board (`reach`: the
    game's range for it, Helium 3's by default)."""
    reach = orders.MOVE_RANGE[action] if reach is None else reach
    low = 1 if action == "move" else 0
    grid = Grid(radius)
    for cell in grid.cells():
        if low <= _cheb(cell, grid.centre) <= reach:
            grid.shade(cell, "reach")
    grid.robot(grid.centre, shield=action == "shield")
    name = ACTION_NAMES[action]
    where = f"up to {reach} steps away" + ("" if low else ", or where it stands")
    return grid.svg(f"{name}: the robot may end on any shaded cell {where}.")


def missile_diagram(radius: int, reach: int = orders.MISSILE_RANGE) -> SafeString:
    grid = Grid(radius)
    for cell in grid.cells():
        if 1 <= _cheb(cell, grid.centre) <= reach:
            grid.shade(cell, "target")
    grid.robot(grid.centre)
    return grid.svg(f"Fire missile: any cell 1 to {reach} steps away.")


def laser_diagram(radius: int) -> SafeString:
    grid = Grid(radius)
    for dx, dy in DIRECTIONS.values():
        grid.beam([grid.centre, (grid.centre[0] + dx * radius, grid.centre[1] + dy * radius)])
    grid.robot(grid.centre)
    return grid.svg("Fire laser: a beam in one of the eight directions, to the edge of the board.")


def kamikaze_diagram(radius: int) -> SafeString:
    grid = Grid(radius)
    for cell in grid.cells():
        if _cheb(cell, grid.centre) == 1:
            grid.shade(cell, "blast")
    grid.robot(grid.centre)
    return grid.svg("Kamikaze: the robot blows up and hits the eight cells around it.")


def mining_diagram() -> SafeString:
    grid = Grid(1, cell=40)
    for cell in grid.cells():
        centre = cell == grid.centre
        grid.shade(cell, "reach")
        grid.label(cell, str(resolve.MINE_CENTRE if centre else resolve.MINE_AROUND))
    return grid.svg(
        f"Mining takes up to {resolve.MINE_CENTRE} from the robot's cell "
        f"and up to {resolve.MINE_AROUND} from each cell around it."
    )


def deflect_diagram() -> SafeString:
    """A beam from the west meets a shield set to deflect north and turns."""
    grid = Grid(3, cell=24)
    firer, shielded = (0, 5), (4, 5)
    grid.beam([firer, shielded, (4, 0)])
    grid.robot(firer)
    grid.robot(shielded, shield=True)
    return grid.svg(
        "A laser meets a shield that deflects north: the shield is spent and the beam turns north."
    )


def rules_context() -> dict[str, Any]:
    """Everything the rules page says with a number, read from the engine now."""
    ranges = dict(orders.MOVE_RANGE)
    # One cell more than the longest reach, so that every reach shows its edge.
    radius = max([*ranges.values(), orders.MISSILE_RANGE]) + 1
    state = engine.new_game(seed=0, seats=4)
    robots_per_seat = sum(1 for r in state["robots"] if r["seat"] == 1)
    moving = [a for a in orders.ACTION_TYPES if ranges[a] > 0]
    actions = [
        {
            "type": a,
            "name": ACTION_NAMES[a],
            "range": ranges[a],
            "diagram": reach_diagram(a, radius),
        }
        for a in moving
    ]
    turn_minutes = TURN_SECONDS_MIN // 60
    return {
        "width": mapgen.WIDTH,
        "height": mapgen.HEIGHT,
        "robots_per_seat": robots_per_seat,
        "max_actions": orders.MAX_ACTIONS,
        "ranges": ranges,
        "actions": actions,
        "missile_range": orders.MISSILE_RANGE,
        "mine_centre": resolve.MINE_CENTRE,
        "mine_around": resolve.MINE_AROUND,
        "deposit": {
            "large": (mapgen.LARGE_CENTRE, mapgen.LARGE_INNER, mapgen.LARGE_OUTER),
            "small": (mapgen.SMALL_CENTRE, mapgen.SMALL_OUTER),
        },
        "diagrams": {
            "fire_missile": missile_diagram(radius),
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
        "battle_minutes": api.DEFAULT_LENGTH_MS / 60_000,
        "turn_minutes_min": turn_minutes,
        "turn_days_max": TURN_SECONDS_MAX // 86_400,
        "missed_before_bot": settings.MISSED_TURNS_BEFORE_BOT,
    }
