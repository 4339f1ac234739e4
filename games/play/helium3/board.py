"""The board as inline SVG, built in Python from one viewer's view of a state.

It is the most viewed fragment of the site: one join over a few hundred small
strings costs a fraction of a millisecond, where a template loop over 400 cells
costs about 12 ms. Only what the view holds is drawn: a shield and
its deflect appear only on robots whose view carries them (the viewer's own, or
every robot once the match is over), so nothing secret is ever filtered here.

The markup is also the board script's model: the root carries the helium of every
cell (`data-helium`, row-major) and each robot group its state in data attributes,
so the script animates events from exactly what the server drew. Every robot group
holds all of its decorations (vehicle, seat badge, shield ring, deflect arrow,
armed badges) and its classes say which show, so the script toggles classes and
never draws a robot. The layers, bottom to top: ground and craters, wrecks, helium,
grid and coordinates, `plan` (planned orders), `hl` (cells a click may choose),
`robots`, `fx` (an animation's shots and blasts); the script draws only in the
wrecks, plan, hl and fx layers.
"""

from __future__ import annotations

from typing import Any

from django.utils.safestring import SafeString, mark_safe

from games.html_text import escape

CELL = 32
MARGIN = 22
# Room on the right and at the bottom, so the board's frame is even around the moon.
PAD = 8
# Helium shading: a cell's class is h1..h4 by the first threshold it is below.
LEVELS = (350, 750, 1200)
# Coordinates are labelled every AXIS_STEP cells (with a brighter grid line there):
# twenty labels a side crowd a phone's screen, four are read at a glance.
AXIS_STEP = 5
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

# Everything drawn more than once is defined once and referenced (<use>, url()), so
# a robot costs a few hundred bytes and the moon's texture a few dozen elements.
# - g-s1..g-s4: the seats' shapes (also the legend's and the panel's keys); on a
#   robot, a white badge with its number, so seats differ by shape as well as colour.
# - g-nose: the X-TRACT vehicle facing north (treads, a body in the seat's colour
#   inherited from the <use>, a mining scoop at the front), rotated to its facing.
# - g-wreck: what a destroyed robot leaves, a scorch and some debris (under helium).
# - g-ring / g-dfl: a shield and its deflect arrow; g-bm / g-bl: the armed badges.
# - g-moon / g-crt: the ground's light and its craters; g-h1..g-h4: helium's glow,
#   wider and brighter for more helium; g-fire: an explosion's fireball.
_CRATERS = (
    (38, 46, 2.1),
    (150, 30, 0.9),
    (196, 118, 1.5),
    (92, 140, 0.7),
    (20, 170, 1.1),
    (128, 88, 0.45),
    (178, 180, 0.55),
    (62, 100, 0.35),
)
_SPECKS = "M12 20h1M70 14h1M110 60h1M160 74h1M30 120h1M206 44h1M84 182h1M140 156h1M214 160h1M6 88h1"
_DEFS = (
    "<defs>"
    '<circle id="g-s1" r="11"/>'
    '<rect id="g-s2" x="-10" y="-10" width="20" height="20"/>'
    '<path id="g-s3" d="M0 -12L11 9H-11Z"/>'
    '<path id="g-s4" d="M0 -13L13 0L0 13L-13 0Z"/>'
    '<g id="g-nose">'
    '<circle r="16" fill="url(#g-shd)" stroke="none"/>'
    '<path class="trk" d="M-9.5 -10V11M9.5 -10V11"/>'
    '<path class="trs" d="M-9.5 -9.5V10.5M9.5 -9.5V10.5"/>'
    '<path class="arm" d="M-4.5 -9L-6.5 -15.5H6.5L4.5 -9Z"/>'
    '<path class="tth" d="M-4 -15.5v2M0 -15.5v2M4 -15.5v2"/>'
    '<rect class="chs" x="-7" y="-10.5" width="14" height="20" rx="3.5"/>'
    '<path class="vent" d="M-4 7.5h8"/>'
    "</g>"
    '<g id="g-wreck"><circle r="14" fill="url(#g-scorch)"/>'
    '<path d="M-7 -3l5 2M3 -7l2 6M-3 5l7 -1M6 3l3 3" stroke="#9aa0a8" stroke-width="1.8" '
    'stroke-linecap="round"/></g>'
    '<circle id="g-ring" r="15.5"/>'
    '<path id="g-dfl" d="M-2 -7.5V-12H-5.5L0 -18L5.5 -12H2V-7.5Z"/>'
    '<g id="g-bm"><circle cx="11" cy="-11" r="6"/><text x="11" y="-8.2">M</text></g>'
    '<g id="g-bl"><circle cx="11" cy="-11" r="6"/><text x="11" y="-8.2">L</text></g>'
    '<radialGradient id="g-shd"><stop offset=".6" stop-color="#000" stop-opacity=".6"/>'
    '<stop offset="1" stop-color="#000" stop-opacity="0"/></radialGradient>'
    '<radialGradient id="g-scorch"><stop offset=".3" stop-color="#0b0c0e" stop-opacity=".7"/>'
    '<stop offset="1" stop-color="#0b0c0e" stop-opacity="0"/></radialGradient>'
    '<radialGradient id="g-moon" cx=".3" cy=".25" r=".95">'
    '<stop offset="0" stop-color="#60666f"/><stop offset=".6" stop-color="#42464e"/>'
    '<stop offset="1" stop-color="#272a30"/></radialGradient>'
    '<radialGradient id="g-cr" cx=".42" cy=".4" r=".6">'
    '<stop offset=".6" stop-color="#000" stop-opacity=".22"/>'
    '<stop offset=".85" stop-color="#000" stop-opacity=".08"/>'
    '<stop offset="1" stop-color="#fff" stop-opacity=".12"/></radialGradient>'
    '<pattern id="g-crt" width="224" height="192" patternUnits="userSpaceOnUse">'
    + "".join(
        f'<circle cx="{x}" cy="{y}" r="{round(14 * s, 1)}" fill="url(#g-cr)"/>'
        for x, y, s in _CRATERS
    )
    + f'<path d="{_SPECKS}" stroke="#fff" stroke-opacity=".18" stroke-linecap="round"/>'
    "</pattern>"
    + "".join(
        f'<radialGradient id="g-h{i}" r="{r}"><stop offset="0" stop-color="{core}"/>'
        f'<stop offset=".45" stop-color="#ffc21a" stop-opacity="{mid}"/>'
        f'<stop offset="1" stop-color="#ff9d00" stop-opacity="0"/></radialGradient>'
        for i, r, core, mid in (
            (1, ".34", "#ffe27a", ".45"),
            (2, ".46", "#ffe98f", ".6"),
            (3, ".6", "#fff1b0", ".75"),
            (4, ".74", "#fffbe6", ".9"),
        )
    )
    + '<radialGradient id="g-fire"><stop offset="0" stop-color="#fff7d1"/>'
    '<stop offset=".35" stop-color="#ffd046"/><stop offset=".7" stop-color="#ff6a00" '
    'stop-opacity=".85"/><stop offset="1" stop-color="#b30000" stop-opacity="0"/>'
    "</radialGradient>"
    "</defs>"
)


# The board's own look travels with it, so it renders the same wherever it is shown
# (the match page, a movie's boards, the admin); board.css styles the page around it
# and the effects the script draws. The moon stays dark in the site's light and dark
# themes alike: it is a picture, not a page.
_STYLE = (
    "<style>"
    "svg.board .frame{fill:#16191e}"
    "svg.board .ground{fill:url(#g-moon)}svg.board .craters{fill:url(#g-crt)}"
    "svg.board .grid{stroke:#fff;stroke-opacity:.07;stroke-width:.7;fill:none}"
    "svg.board .grid5{stroke:#fff;stroke-opacity:.2;stroke-width:.9;fill:none}"
    "svg.board .axis text{font:600 13px system-ui,sans-serif;fill:#aab3c0;text-anchor:middle}"
    "svg.board .axis .row{text-anchor:end}"
    "svg.board .h1{fill:url(#g-h1)}svg.board .h2{fill:url(#g-h2)}"
    "svg.board .h3{fill:url(#g-h3)}svg.board .h4{fill:url(#g-h4)}"
    "svg.board .nose{stroke:#0d0f12;stroke-width:1.2}"
    "#g-nose .trk{stroke:#1b1d21;stroke-width:6.5;stroke-linecap:round}"
    "#g-nose .trs{stroke:#6a707a;stroke-width:4.2;stroke-dasharray:1.3 2}"
    "#g-nose .arm{fill:#c9ced6}#g-nose .tth{stroke-width:1.1}"
    "#g-nose .vent{stroke:#0d0f12;stroke-opacity:.55;stroke-width:1.4}"
    "svg.board .s1 .nose{fill:#2e8fd6}svg.board .s2 .nose{fill:#e69f00}"
    "svg.board .s3 .nose{fill:#00a67a}svg.board .s4 .nose{fill:#d884b4}"
    "svg.board .rb .body{fill:#f7f8fa;stroke:#0d0f12;stroke-width:2;transform:scale(.6)}"
    "svg.board .rb text{font:700 9px system-ui,sans-serif;text-anchor:middle;fill:#111;"
    "pointer-events:none}"
    "svg.board .own .body{stroke-width:3}"
    "svg.board .idle .nose{opacity:.72}"
    "svg.board .idle .body{fill:#c8ccd3;stroke-dasharray:4 2.5}"
    "svg.board .ring,svg.board .dfl,svg.board .bm,svg.board .bl{display:none}"
    "svg.board .sd .ring{display:inline;fill:#5ad1ff;fill-opacity:.14;stroke:#5ad1ff;"
    "stroke-width:2.2}"
    "svg.board .dd .dfl{display:inline;fill:#5ad1ff;stroke:#0d0f12;stroke-width:1;"
    "stroke-linejoin:round}"
    "svg.board .am .bm,svg.board .al .bl{display:inline}"
    "#g-bm circle{fill:#ff7a1a}#g-bl circle{fill:#ff2e6a}"
    "#g-bm circle,#g-bl circle{stroke:#fff;stroke-width:1.3}"
    "#g-bm text,#g-bl text{font:800 8px system-ui,sans-serif;text-anchor:middle;fill:#fff;"
    "stroke:none}"
    "</style>"
)


def helium_class(amount: int) -> str:
    for i, level in enumerate(LEVELS, start=1):
        if amount < level:
            return f"h{i}"
    return f"h{len(LEVELS) + 1}"


def cell_origin(x: int, y: int) -> tuple[int, int]:
    return MARGIN + x * CELL, MARGIN + y * CELL


def robot_label(
    robot: dict[str, Any], viewer: int | None, *, noun: str = "robot", immunity: bool = True
) -> str:
    """What a screen reader says about a robot: the view's facts, in words.

    `noun` is what the game calls its pieces; `immunity`: the game has inactive
    immunity, so whether a piece is active is worth saying (Helium 3's rule)."""
    seat = int(robot["seat"])
    owner = f"your {noun}" if seat == viewer else f"seat {seat}'s {noun}"
    parts = [
        f"{noun.capitalize()} {robot['id']}, {owner} ({SEAT_SHAPES.get(seat, 'shape')})",
        f"at ({robot['x']}, {robot['y']})",
        f"facing {DIRECTION_WORDS.get(robot['facing'], robot['facing'])}",
    ]
    if immunity:
        parts.append("active" if robot.get("active") else "inactive (immune)")
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


def _robot(robot: dict[str, Any], viewer: int | None, noun: str, immunity: bool) -> str:
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
        f'aria-label="{escape(robot_label(robot, viewer, noun=noun, immunity=immunity))}">'
        f'<use class="ring" href="#g-ring"/>'
        f'<use class="nose" href="#g-nose" transform="rotate({facing})"/>'
        f'<use class="body" href="#g-s{seat}"/>'
        f'<use class="dfl" href="#g-dfl" transform="rotate({ANGLE.get(deflect or "N", 0)})"/>'
        f'<text y="3.2">{number}</text>'
        f'<use class="bm" href="#g-bm"/><use class="bl" href="#g-bl"/></g>'
    )


def _wreck(robot: dict[str, Any]) -> str:
    cx, cy = cell_origin(int(robot["x"]), int(robot["y"]))
    return f'<use href="#g-wreck" transform="translate({cx + CELL // 2} {cy + CELL // 2})"/>'


def axis_labels(size: int) -> range:
    """The rows or columns that get a coordinate label: every AXIS_STEP-th one."""
    return range(0, size, AXIS_STEP)


def _grid(width: int, height: int) -> str:
    """Thin lines between cells, brighter ones every AXIS_STEP cells (the labelled ones)."""
    thin: list[str] = []
    major: list[str] = []
    for i in range(width + 1):
        (major if i % AXIS_STEP == 0 or i == width else thin).append(
            f"M{MARGIN + i * CELL} {MARGIN}v{height * CELL}"
        )
    for j in range(height + 1):
        (major if j % AXIS_STEP == 0 or j == height else thin).append(
            f"M{MARGIN} {MARGIN + j * CELL}h{width * CELL}"
        )
    return f'<path class="grid" d="{"".join(thin)}"/><path class="grid5" d="{"".join(major)}"/>'


def render_board(
    view: dict[str, Any], *, caption: str = "", noun: str = "robot", immunity: bool = True
) -> SafeString:
    """The SVG of one view. `caption` becomes the board's accessible title; `noun`
    and `immunity` as for robot_label (the remake's vehicles have no immunity)."""
    width, height = int(view["width"]), int(view["height"])
    size_x, size_y = MARGIN + width * CELL + PAD, MARGIN + height * CELL + PAD
    viewer = view.get("viewer")
    helium = view["helium"]
    flat = [int(a) for row in helium for a in row]
    alive = [r for r in view["robots"] if r.get("alive")]
    title = caption or f"The moon at turn {view['turn']}"
    desc = (
        f"{width} by {height} cells; x runs 0 to {width - 1} left to right, y 0 to "
        f"{height - 1} top to bottom. Glowing cells hold helium, brighter for more. {len(alive)} {noun}s on the board."
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
        f'<rect class="frame" width="{size_x}" height="{size_y}" rx="10"/>',
        f'<rect class="ground" x="{MARGIN}" y="{MARGIN}" width="{width * CELL}" '
        f'height="{height * CELL}"/>',
        f'<rect class="craters" x="{MARGIN}" y="{MARGIN}" width="{width * CELL}" '
        f'height="{height * CELL}"/>',
        '<g class="wrecks" aria-hidden="true">',
        *(_wreck(r) for r in view["robots"] if not r.get("alive")),
        '</g><g class="he">',
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
    parts.append(_grid(width, height))
    parts.append('<g class="axis" aria-hidden="true">')
    parts.extend(
        f'<text x="{MARGIN + i * CELL + CELL // 2}" y="{MARGIN - 7}">{i}</text>'
        for i in axis_labels(width)
    )
    parts.extend(
        f'<text x="{MARGIN - 4}" y="{MARGIN + j * CELL + CELL // 2 + 4}" class="row">{j}</text>'
        for j in axis_labels(height)
    )
    # `plan` holds the drawing of planned orders, under the robots; `hl` the cells
    # a click may choose; `fx` an animation's shots and blasts, over everything.
    parts.append('</g><g class="plan" aria-hidden="true"></g><g class="hl"></g><g class="robots">')
    parts.extend(_robot(r, viewer, noun, immunity) for r in alive)
    parts.append('</g><g class="fx" aria-hidden="true"></g></svg>')
    return mark_safe("".join(parts))  # noqa: S308 - every interpolated value is escaped or an int


def destroyed_robots(view: dict[str, Any]) -> list[dict[str, Any]]:
    """The robots no longer on the board, for the list beside it."""
    return [r for r in view["robots"] if not r.get("alive")]


SEAT_COLOURS = {1: "#2e8fd6", 2: "#e69f00", 3: "#00a67a", 4: "#d884b4"}
PICTURE_CELL = 5


def render_picture(view: dict[str, Any], *, label: str) -> SafeString:
    """A small picture of a board for a lobby card: the moon, its helium glowing and
    each robot a dot in its seat's colour. No ids and no script hooks, so several
    can sit on one page beside a real board."""
    width, height = int(view["width"]), int(view["height"])
    size = PICTURE_CELL
    flat = [int(a) for row in view["helium"] for a in row]
    glow = {1: ".3", 2: ".5", 3: ".75", 4: "1"}
    cells = "".join(
        f'<rect x="{(i % width) * size}" y="{(i // width) * size}" width="{size}" '
        f'height="{size}" fill="#ffc21a" fill-opacity="{glow[int(helium_class(a)[1:])]}"/>'
        for i, a in enumerate(flat)
        if a > 0
    )
    robots = "".join(
        f'<circle cx="{int(r["x"]) * size + size / 2}" cy="{int(r["y"]) * size + size / 2}" '
        f'r="{size * 0.42:.1f}" fill="{SEAT_COLOURS.get(int(r["seat"]), "#fff")}" '
        f'stroke="#0d0f12" stroke-width=".6"/>'
        for r in view["robots"]
        if r.get("alive")
    )
    return mark_safe(  # noqa: S308 - numbers and fixed words; the label is escaped
        f'<svg class="game-picture" viewBox="0 0 {width * size} {height * size}" role="img" '
        f'aria-label="{escape(label)}"><rect width="{width * size}" height="{height * size}" '
        f'rx="4" fill="#42464e"/>{cells}{robots}</svg>'
    )
