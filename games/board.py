"""The board as inline SVG, built in Python from one viewer's view of a state.

It is the most viewed fragment of the site: one join over a few hundred small
strings costs a fraction of a millisecond, where a template loop over 400 cells
costs about 12 ms (style.md, 12). Only what the view holds is drawn: a shield and
its deflect appear only on robots whose view carries them (the viewer's own, or
every robot once the match is over), so nothing secret is ever filtered here.

The markup is also the board script's model: the root carries the helium of every
cell (`data-helium`, row-major) and each robot group its state in data attributes,
so the script animates events from exactly what the server drew. Every robot group
holds all of its decorations (shield ring, deflect arrow, armed badges) and its
classes say which show, so the script toggles classes and never draws a robot.
"""

from __future__ import annotations

from typing import Any

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

CELL = 32
MARGIN = 18
# Helium shading: a cell's class is h1..h4 by the first threshold it is below.
LEVELS = (350, 750, 1200)
ANGLE = {"N": 0, "NE": 45, "E": 90, "SE": 135, "S": 180, "SW": 225, "W": 270, "NW": 315}
DIRECTION_WORDS = {
    "N": "north",
    "NE": "north-east",
    "E": "east",
    "SE": "south-east",
    "S": "south",
    "SW": "south-west",
    "W": "west",
    "NW": "north-west",
}
SEAT_SHAPES = {1: "circle", 2: "square", 3: "triangle", 4: "diamond"}
WEAPON_WORDS = {"missile": "missile armed", "laser": "laser armed"}

# One definition per shape, referenced by every robot (<use>), so a robot costs a
# few hundred bytes. Seats differ by shape as well as colour (colour-blind safe).
_DEFS = (
    "<defs>"
    '<circle id="g-s1" r="11"/>'
    '<rect id="g-s2" x="-10" y="-10" width="20" height="20"/>'
    '<path id="g-s3" d="M0 -12L11 9H-11Z"/>'
    '<path id="g-s4" d="M0 -13L13 0L0 13L-13 0Z"/>'
    '<path id="g-nose" d="M0 -15.5L4 -11H-4Z"/>'
    '<circle id="g-ring" r="14.5"/>'
    '<path id="g-dfl" d="M0 0V-13M-3.5 -9.5L0 -13L3.5 -9.5"/>'
    '<g id="g-bm"><circle cx="10" cy="-10" r="6"/><text x="10" y="-7.5">M</text></g>'
    '<g id="g-bl"><circle cx="10" cy="-10" r="6"/><text x="10" y="-7.5">L</text></g>'
    "</defs>"
)


# The board's own look travels with it, so it renders the same wherever it is shown
# (the match page, a movie's boards, the admin); board.css styles the page around it.
_STYLE = (
    "<style>"
    "svg.board .ground{fill:#eceff3}"
    "svg.board .grid{stroke:#c4cad3;stroke-width:.6;fill:none}"
    "svg.board .axis text{font:10px system-ui,sans-serif;fill:#333;text-anchor:middle}"
    "svg.board .axis .row{text-anchor:end}"
    "svg.board .h1{fill:#fcefc0}svg.board .h2{fill:#f7d86e}"
    "svg.board .h3{fill:#eab620}svg.board .h4{fill:#b98200}"
    "svg.board .body{stroke:#111;stroke-width:1.5}svg.board .own .body{stroke-width:2.5}"
    "svg.board .s1 .body{fill:#0072b2}svg.board .s2 .body{fill:#e69f00}"
    "svg.board .s3 .body{fill:#009e73}svg.board .s4 .body{fill:#cc79a7}"
    "svg.board .rb text{font:bold 12px system-ui,sans-serif;text-anchor:middle;fill:#111;"
    "pointer-events:none}"
    "svg.board .s1 text{fill:#fff}svg.board .nose{fill:#111}"
    "svg.board .idle .body{stroke-dasharray:3 2;fill-opacity:.45}svg.board .idle.s1 text{fill:#111}"
    "svg.board .ring,svg.board .dfl,svg.board .bm,svg.board .bl{display:none}"
    "svg.board .sd .ring,svg.board .dd .dfl{display:inline;fill:none;stroke:#005a8c;"
    "stroke-width:2.5}"
    "svg.board .am .bm,svg.board .al .bl{display:inline}"
    "#g-bm circle,#g-bl circle{fill:#fff;stroke:#111;stroke-width:1.2}"
    "#g-bm text,#g-bl text{font:bold 8px system-ui,sans-serif;text-anchor:middle;fill:#111}"
    "</style>"
)


def helium_class(amount: int) -> str:
    for i, level in enumerate(LEVELS, start=1):
        if amount < level:
            return f"h{i}"
    return f"h{len(LEVELS) + 1}"


def cell_origin(x: int, y: int) -> tuple[int, int]:
    return MARGIN + x * CELL, MARGIN + y * CELL


def robot_label(robot: dict[str, Any], viewer: int | None) -> str:
    """What a screen reader says about a robot: the view's facts, in words."""
    seat = int(robot["seat"])
    owner = "your robot" if seat == viewer else f"seat {seat}'s robot"
    parts = [
        f"Robot {robot['id']}, {owner} ({SEAT_SHAPES.get(seat, 'shape')})",
        f"at ({robot['x']}, {robot['y']})",
        f"facing {DIRECTION_WORDS.get(robot['facing'], robot['facing'])}",
        "active" if robot.get("active") else "inactive (immune)",
    ]
    if robot.get("armed"):
        parts.append(WEAPON_WORDS.get(robot["armed"], str(robot["armed"])))
    if robot.get("shield"):
        deflect = robot.get("deflect")
        parts.append(
            f"shield {deflect} (deflects {DIRECTION_WORDS.get(deflect, deflect)})"
            if deflect
            else "shield up (no deflect)"
        )
    parts.append(f"mined {robot.get('mined', 0)}")
    return ", ".join(parts)


def _robot(robot: dict[str, Any], viewer: int | None) -> str:
    seat = int(robot["seat"])
    x, y = int(robot["x"]), int(robot["y"])
    ox, oy = cell_origin(x, y)
    classes = [f"rb s{seat}"]
    if seat == viewer:
        classes.append("own")
    if not robot.get("active"):
        classes.append("idle")
    if robot.get("armed") == "missile":
        classes.append("am")
    elif robot.get("armed") == "laser":
        classes.append("al")
    deflect = robot.get("deflect") if robot.get("shield") else None
    if robot.get("shield"):
        classes.append("sd")
        if deflect:
            classes.append("dd")
    rid = escape(robot["id"])
    number = rid.rsplit("-", 1)[-1]
    facing = ANGLE.get(robot["facing"], 0)
    return (
        f'<g id="rb-{rid}" class="{" ".join(classes)}" data-id="{rid}" data-seat="{seat}" '
        f'data-x="{x}" data-y="{y}" data-f="{escape(robot["facing"])}" '
        f'data-d="{escape(deflect or "")}" data-mined="{int(robot.get("mined", 0))}" '
        f'transform="translate({ox + CELL // 2} {oy + CELL // 2})" tabindex="0" '
        f'role="{"button" if seat == viewer else "img"}" '
        f'aria-label="{escape(robot_label(robot, viewer))}">'
        f'<use class="ring" href="#g-ring"/>'
        f'<use class="dfl" href="#g-dfl" transform="rotate({ANGLE.get(deflect or "N", 0)})"/>'
        f'<use class="nose" href="#g-nose" transform="rotate({facing})"/>'
        f'<use class="body" href="#g-s{seat}"/>'
        f'<text y="4">{number}</text>'
        f'<use class="bm" href="#g-bm"/><use class="bl" href="#g-bl"/></g>'
    )


def render_board(view: dict[str, Any], *, caption: str = "") -> SafeString:
    """The SVG of one view. `caption` becomes the board's accessible title."""
    width, height = int(view["width"]), int(view["height"])
    size_x, size_y = MARGIN + width * CELL + 2, MARGIN + height * CELL + 2
    viewer = view.get("viewer")
    helium = view["helium"]
    flat = [int(a) for row in helium for a in row]
    alive = [r for r in view["robots"] if r.get("alive")]
    title = caption or f"The moon at turn {view['turn']}"
    desc = (
        f"{width} by {height} cells; x runs 0 to {width - 1} left to right, y 0 to "
        f"{height - 1} top to bottom. Shaded cells hold helium. {len(alive)} robots on the board."
    )
    parts = [
        f'<svg class="board" viewBox="0 0 {size_x} {size_y}" role="group" '
        f'aria-labelledby="board-title" data-w="{width}" data-h="{height}" '
        f'data-cell="{CELL}" data-margin="{MARGIN}" data-levels="{",".join(map(str, LEVELS))}" '
        f'data-turn="{int(view["turn"])}" data-clock="{int(view["clock_ms"])}" '
        f'data-viewer="{viewer if viewer is not None else ""}" '
        f'data-helium="{",".join(map(str, flat))}" xmlns="http://www.w3.org/2000/svg">',
        f'<title id="board-title">{escape(title)}</title><desc>{escape(desc)}</desc>',
        _STYLE,
        _DEFS,
        f'<rect class="ground" x="{MARGIN}" y="{MARGIN}" width="{width * CELL}" '
        f'height="{height * CELL}"/>',
        '<g class="he">',
    ]
    for i, amount in enumerate(flat):
        if amount <= 0:
            continue
        x, y = i % width, i // width
        ox, oy = cell_origin(x, y)
        parts.append(
            f'<rect id="c{i}" class="{helium_class(amount)}" x="{ox}" y="{oy}" '
            f'width="{CELL}" height="{CELL}"><title>({x}, {y}) helium {amount}</title></rect>'
        )
    parts.append("</g>")
    grid = [f"M{MARGIN + i * CELL} {MARGIN}v{height * CELL}" for i in range(width + 1)]
    grid += [f"M{MARGIN} {MARGIN + j * CELL}h{width * CELL}" for j in range(height + 1)]
    parts.append(f'<path class="grid" d="{"".join(grid)}"/>')
    parts.append('<g class="axis" aria-hidden="true">')
    parts.extend(
        f'<text x="{MARGIN + i * CELL + CELL // 2}" y="{MARGIN - 5}">{i}</text>'
        for i in range(width)
    )
    parts.extend(
        f'<text x="{MARGIN - 3}" y="{MARGIN + j * CELL + CELL // 2 + 4}" class="row">{j}</text>'
        for j in range(height)
    )
    parts.append('</g><g class="hl"></g><g class="robots">')
    parts.extend(_robot(r, viewer) for r in alive)
    parts.append('</g><g class="fx" aria-hidden="true"></g></svg>')
    return mark_safe("".join(parts))  # noqa: S308 - every interpolated value is escaped or an int


def destroyed_robots(view: dict[str, Any]) -> list[dict[str, Any]]:
    """The robots no longer on the board, for the list beside it."""
    return [r for r in view["robots"] if not r.get("alive")]
