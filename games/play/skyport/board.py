"""Skyport's board as inline SVG, built in Python from one viewer's view.

The map is a rhombus of hexagonal tiles in `(j, k)` coordinates. Flat-topped hexes
are laid out so that the rules' directions point where their names say:
`up` (-1, -1) straight up, `down` (1, 1) straight down, `right-up` (-1, 0),
`right-down` (0, 1), `left-up` (0, -1) and `left-down` (1, 0). Tile (j, k) has its
centre at x = X0 + 1.5 R (k - j), y = Y0 + H (j + k), with R the hex's radius and
H = R * sqrt(3) / 2; the rhombus therefore stands as a diamond, (0, 0) at the top.

What each tile shows: its type by a fill colour AND a mark (grass tufts, explosium
stripes, rubidium dots, scrap cross-hatching, rock peaks, the void's sparse stars,
a spawn's ring with its seat's number), so the types read without colour; a
resource tile carries the count it has left. A living player is its seat's colour
and shape (Helium 3's circle, square, triangle, diamond for seats 1 to 4, Halite's
cross and star for 5 and 6, a pentagon and an hourglass for 7 and 8) with a health
bar under it; a dead player's body is the shape's outline crossed out.

The markup is the board script's model (games/static/games/skyport.js), by the
contract it codes against: the root `<svg class="board skyport-board">` carries
`data-size`; every tile is one `<polygon class="sp-tile t-X">` (X its letter) with
`data-j`, `data-k`, `data-cx`, `data-cy` (its centre in viewBox units); every
living player one `<g class="sp-player seat-S">` with `data-seat`, `data-j`,
`data-k` and `data-health`, drawn around 0 0 and moved by its `transform`. Layers,
bottom to top: tiles, counts, spawn marks, bodies, players, coordinates, then
`sp-fx` (empty: the script's animations).

Cost: drawn in Python, not a template loop, as the board is the most viewed page;
one string join of a few short pieces a tile; the largest map
is measured in tests/games/play/skyport/test_skyport_board.py.
"""

from __future__ import annotations

from math import cos, pi, sin, sqrt
from typing import Any

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

R = 12.0
H = R * sqrt(3) / 2
# Room outside the diamond for the coordinates along its two upper edges.
MARGIN = 2 * R
HEALTH_MAX = 100

TILE_NAMES = {
    "G": "grass",
    "E": "explosium",
    "R": "rubidium",
    "C": "scrap",
    "V": "void",
    "S": "spawn",
    "O": "rock",
}
RESOURCE_TILES = ("E", "R", "C")
# Each type: the fill, then the mark's colour (the pattern drawn over the fill).
TILE_COLOURS = {
    "G": ("#3f6b35", "#5f9150"),
    "E": ("#a83a26", "#e0785a"),
    "R": ("#2f5f9e", "#9cc3f0"),
    "C": ("#8c6d24", "#d8b867"),
    "V": ("#06070a", "#59606e"),
    "S": ("#263a4d", "#6f8fae"),
    "O": ("#5d6066", "#a9adb5"),
}
# The mark each type's pattern draws, in a cell of PATTERN units.
PATTERN = 8
TILE_MARKS = {
    "G": "M2 6l1-3l1 3M5 3l1-2l1 2",  # grass tufts
    "E": "M0 8L8 0M-2 2L2-2M6 10L10 6",  # diagonal stripes
    "R": "M2 2h.01M6 6h.01",  # dots (round caps)
    "C": "M0 0L8 8M8 0L0 8",  # cross-hatching
    "V": "M1.5 2h.01",  # sparse stars
    "S": "M0 4h8",  # a faint band
    "O": "M1 7l3-5l3 5",  # peaks
}
TILE_MARK_WIDTH = {"G": 0.9, "E": 1.6, "R": 2.2, "C": 0.8, "V": 0.9, "S": 0.6, "O": 1.1}

SEAT_SHAPES = {
    1: "circle",
    2: "square",
    3: "triangle",
    4: "diamond",
    5: "cross",
    6: "star",
    7: "pentagon",
    8: "hourglass",
}
SEAT_COLOURS = {
    1: "#2e8fd6",
    2: "#e69f00",
    3: "#00a67a",
    4: "#d884b4",
    5: "#f0603a",
    6: "#f0e442",
    7: "#a98ee8",
    8: "#f4f4f4",
}
SEAT_NAMES = {
    1: "blue",
    2: "orange",
    3: "green",
    4: "pink",
    5: "red",
    6: "yellow",
    7: "violet",
    8: "white",
}


def _unit_shape(seat: int) -> list[tuple[float, float]] | None:
    """The seat's shape as a polygon around 0 0 with radius about 1 (None: a circle)."""
    shape = SEAT_SHAPES.get(seat, "circle")
    if shape == "square":
        return [(-0.8, -0.8), (0.8, -0.8), (0.8, 0.8), (-0.8, 0.8)]
    if shape == "triangle":
        return [(0, -1.0), (0.95, 0.75), (-0.95, 0.75)]
    if shape == "diamond":
        return [(0, -1.05), (1.05, 0), (0, 1.05), (-1.05, 0)]
    if shape == "cross":
        a, b = 0.34, 0.95
        return [
            (-a, -b),
            (a, -b),
            (a, -a),
            (b, -a),
            (b, a),
            (a, a),
            (a, b),
            (-a, b),
            (-a, a),
            (-b, a),
            (-b, -a),
            (-a, -a),
        ]
    if shape == "star":
        return [
            (
                (1.05 if i % 2 == 0 else 0.45) * cos(-pi / 2 + i * pi / 5),
                (1.05 if i % 2 == 0 else 0.45) * sin(-pi / 2 + i * pi / 5) + 0.08,
            )
            for i in range(10)
        ]
    if shape == "pentagon":
        return [
            (cos(-pi / 2 + i * 2 * pi / 5), sin(-pi / 2 + i * 2 * pi / 5) + 0.1) for i in range(5)
        ]
    if shape == "hourglass":
        return [(-0.85, -0.9), (0.85, -0.9), (0.12, 0), (0.85, 0.9), (-0.85, 0.9), (-0.12, 0)]
    return None


def _num(value: float) -> str:
    text = f"{value:.1f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def shape_path(seat: int, radius: float, cx: float = 0, cy: float = 0) -> str:
    """The `d` of seat's shape with this radius around (cx, cy)."""
    polygon = _unit_shape(seat)
    if polygon is None:
        r = _num(radius)
        return (
            f"M{_num(cx - radius)} {_num(cy)}a{r} {r} 0 1 0 {_num(2 * radius)} 0"
            f"a{r} {r} 0 1 0 -{_num(2 * radius)} 0Z"
        )
    first, *rest = polygon
    d = f"M{_num(cx + first[0] * radius)} {_num(cy + first[1] * radius)}"
    d += "".join(f"L{_num(cx + x * radius)} {_num(cy + y * radius)}" for x, y in rest)
    return d + "Z"


def origin(size: int) -> tuple[float, float]:
    """The centre of tile (0, 0) in viewBox units for a map of `size`."""
    return MARGIN + R + 1.5 * R * (size - 1), MARGIN + H


def extent(size: int) -> tuple[float, float]:
    """The viewBox's width and height for a map of `size`."""
    return 2 * MARGIN + 2 * R + 3 * R * (size - 1), MARGIN + 2 * H * size + R


def centre(j: int, k: int, size: int) -> tuple[float, float]:
    x0, y0 = origin(size)
    return x0 + 1.5 * R * (k - j), y0 + H * (j + k)


def crop(tiles: list[str], size: int) -> tuple[float, float, float, float]:
    """The part of the viewBox the map's ground takes (every tile but the void around
    it), with a small margin: the board shows that, so a map ringed by void fills its
    frame. The coordinates along the edges are outside it (shown on request: the board
    script then sets the whole viewBox)."""
    x0, y0 = origin(size)
    xs: list[float] = []
    ys: list[float] = []
    for j in range(size):
        row = tiles[j] if j < len(tiles) else ""
        for k in range(size):
            if k < len(row) and row[k] in TILE_COLOURS and row[k] != "V":
                xs.append(x0 + 1.5 * R * (k - j))
                ys.append(y0 + H * (j + k))
    return _ground_box(xs, ys, size)


def _ground_box(xs: list[float], ys: list[float], size: int) -> tuple[float, float, float, float]:
    """The box around tiles centred at xs, ys, within the whole viewBox."""
    width, height = extent(size)
    if not xs:
        return 0.0, 0.0, width, height
    pad = R / 6
    left, top = max(0.0, min(xs) - R - pad), max(0.0, min(ys) - H - pad)
    right, bottom = min(width, max(xs) + R + pad), min(height, max(ys) + H + pad)
    return left, top, right - left, bottom - top


def _box(box: tuple[float, float, float, float]) -> str:
    return " ".join(_num(v) for v in box)


def _defs(ident: str) -> str:
    parts = ["<defs>"]
    for letter, (ground, mark) in TILE_COLOURS.items():
        caps = ' stroke-linecap="round"' if letter in ("R", "V") else ""
        parts.append(
            f'<pattern id="{ident}-p{letter}" width="{PATTERN}" height="{PATTERN}" '
            f'patternUnits="userSpaceOnUse"><rect width="{PATTERN}" height="{PATTERN}" '
            f'fill="{ground}"/><path d="{TILE_MARKS[letter]}" fill="none" stroke="{mark}" '
            f'stroke-width="{TILE_MARK_WIDTH[letter]}"{caps}/></pattern>'
        )
    parts.append("</defs>")
    return "".join(parts)


_STYLE = (
    "<style>"
    "svg.skyport-board .sp-frame{fill:#11141a}"
    "svg.skyport-board .sp-tile{stroke:#11141a;stroke-width:1}"
    "svg.skyport-board .sp-tile.t-V{stroke:#1c2029}"
    "svg.skyport-board .sp-count{font:700 8px system-ui,sans-serif;fill:#fff;"
    "stroke:#11141a;stroke-width:2;paint-order:stroke;text-anchor:middle}"
    "svg.skyport-board .sp-spawn circle{fill:none;stroke-width:2}"
    "svg.skyport-board .sp-spawn text{font:700 9px system-ui,sans-serif;fill:#fff;"
    "text-anchor:middle}"
    "svg.skyport-board .sp-mark{stroke:#ffd23f;stroke-width:1.2}"
    "svg.skyport-board .sp-mark.m-lit{fill:rgb(255 80 80/.55)}"
    "svg.skyport-board .sp-mark.m-main{fill:rgb(255 120 40/.8)}"
    "svg.skyport-board .sp-mark.m-area{fill:rgb(255 170 60/.45);stroke:none}"
    "svg.skyport-board .sp-mark.m-path{fill:rgb(124 242 255/.4);stroke:#7cf2ff}"
    "svg.skyport-board .sp-player path{stroke:#0b0d11;stroke-width:1.2}"
    "svg.skyport-board .sp-bar{fill:#0b0d11}"
    "svg.skyport-board .sp-hp{fill:#7ddc6a}"
    "svg.skyport-board .sp-hp.low{fill:#f0603a}"
    "svg.skyport-board .sp-body path{fill:none;stroke-width:1.6;stroke-dasharray:2 1.5}"
    "svg.skyport-board .sp-body .x{stroke:#fff;stroke-width:1.6}"
    "svg.skyport-board .sp-axis{font:600 8px system-ui,sans-serif;fill:#aab3c0;"
    "text-anchor:middle}"
    "svg.skyport-board .sp-axis .name{font-style:italic;fill:#dde3ea}"
    # The coordinates are for programmers: shown when the page asks (html.sp-coords).
    "svg.skyport-board .sp-axis{display:none}"
    ".sp-coords svg.skyport-board .sp-axis{display:inline}"
    + "".join(
        f"svg.skyport-board .seat-{s}{{fill:{c};stroke:{c};color:{c}}}"
        f"svg.skyport-board .sp-player.seat-{s} path{{fill:{c};stroke:#0b0d11}}"
        for s, c in SEAT_COLOURS.items()
    )
    + "</style>"
)


def axis_step(size: int) -> int:
    """Every how many tiles a coordinate is written along an edge."""
    return 1 if size <= 16 else 2


def _axis(size: int) -> str:
    """j along the upper-left edge, k along the upper-right one, each just outside
    its tile, with the letter at the top corner: the labels never touch a tile."""
    step = axis_step(size)
    parts = ['<g class="sp-axis" aria-hidden="true">']
    for n in range(0, size, step):
        x, y = centre(n, -1, size)
        parts.append(f'<text x="{_num(x + R * 0.2)}" y="{_num(y + 3)}">{n}</text>')
        x, y = centre(-1, n, size)
        parts.append(f'<text x="{_num(x - R * 0.2)}" y="{_num(y + 3)}">{n}</text>')
    x, y = centre(-1, -1, size)
    parts.append(f'<text class="name" x="{_num(x - R)}" y="{_num(y + 3)}">j</text>')
    parts.append(f'<text class="name" x="{_num(x + R)}" y="{_num(y + 3)}">k</text>')
    parts.append("</g>")
    return "".join(parts)


def player_shape(seat: int, health: int) -> str:
    """A living player drawn around 0 0: its shape and a health bar under it."""
    width = 1.6 * R
    filled = max(0, min(HEALTH_MAX, health)) * width / HEALTH_MAX
    low = " low" if health <= 30 else ""
    return (
        f'<path d="{shape_path(seat, R * 0.55, 0, -2)}"/>'
        f'<rect class="sp-bar" x="{_num(-width / 2 - 0.8)}" y="{_num(H - 5.2)}" '
        f'width="{_num(width + 1.6)}" height="3.6" rx="1"/>'
        f'<rect class="sp-hp{low}" x="{_num(-width / 2)}" y="{_num(H - 4.4)}" '
        f'width="{_num(filled)}" height="2"/>'
    )


def _summary(view: dict[str, Any]) -> str:
    said = []
    for p in view.get("players", []):
        seat = int(p["seat"])
        who = f"seat {seat} ({SEAT_NAMES.get(seat, '')} {SEAT_SHAPES.get(seat, 'shape')})"
        where = f"({p.get('j')}, {p.get('k')})"
        if p.get("dead"):
            said.append(f"{who}: dead at {where}, {p.get('score', 0)} points")
        else:
            said.append(f"{who}: at {where}, health {p.get('health')}, {p.get('score', 0)} points")
    return "; ".join(said)


MARK_KINDS = ("lit", "main", "area", "path")


def board(
    view: dict[str, Any],
    *,
    caption: str = "",
    ident: str = "board",
    marks: dict[tuple[int, int], str] | None = None,
) -> SafeString:
    """The SVG of one view. `ident` names its title, description and patterns, so
    boards drawn side by side on one page keep distinct ids. `marks` shades tiles
    under the players, each by a kind of MARK_KINDS (a shot drawn on a still board:
    the rules page's example)."""
    tiles: list[str] = view["tiles"]
    size = int(view.get("size") or len(tiles))
    resources: dict[str, int] = view.get("resources") or {}
    players: list[dict[str, Any]] = view.get("players") or []
    viewer = view.get("viewer")
    width, height = extent(size)
    x0, y0 = origin(size)
    spawn_of = {
        (int(p["spawn"][0]), int(p["spawn"][1])): int(p["seat"])
        for p in players
        if isinstance(p.get("spawn"), list | tuple) and len(p["spawn"]) == 2
    }

    polygons: list[str] = []
    marked: list[str] = []
    ground_x: list[float] = []
    ground_y: list[float] = []
    counts: list[str] = []
    spawns: list[str] = []
    for j in range(size):
        row = tiles[j]
        for k in range(size):
            letter = row[k] if k < len(row) else "V"
            if letter not in TILE_COLOURS:
                letter = "V"
            cx, cy = x0 + 1.5 * R * (k - j), y0 + H * (j + k)
            x, y = f"{cx:.1f}", f"{cy:.1f}"
            # The corners, left to right: one decimal is finer than a pixel.
            left, right, top, bottom = cx - R, cx + R, cy - H, cy + H
            half_l, half_r = cx - R / 2, cx + R / 2
            points = (
                f"{right:.1f},{y} {half_r:.1f},{bottom:.1f} {half_l:.1f},{bottom:.1f} "
                f"{left:.1f},{y} {half_l:.1f},{top:.1f} {half_r:.1f},{top:.1f}"
            )
            polygons.append(
                f'<polygon class="sp-tile t-{letter}" fill="url(#{ident}-p{letter})" '
                f'points="{points}" data-j="{j}" data-k="{k}" data-cx="{x}" data-cy="{y}"/>'
            )
            if marks and marks.get((j, k)) in MARK_KINDS:
                marked.append(f'<polygon class="sp-mark m-{marks[(j, k)]}" points="{points}"/>')
            if letter != "V":
                ground_x.append(cx)
                ground_y.append(cy)
            if letter in RESOURCE_TILES:
                remaining = resources.get(f"{j},{k}")
                if remaining is not None:
                    counts.append(f'<text x="{x}" y="{_num(cy + H - 2)}">{int(remaining)}</text>')
            elif letter == "S":
                seat = spawn_of.get((j, k))
                label = str(seat) if seat is not None else ""
                ring = f' class="seat-{seat}"' if seat is not None else ' stroke="#c9ced6"'
                spawns.append(
                    f'<g class="sp-spawn" data-seat="{label}"><circle{ring} cx="{x}" cy="{y}" '
                    f'r="{_num(R * 0.7)}"/><text x="{x}" y="{_num(cy + 3)}">{label}</text></g>'
                )

    bodies: list[str] = []
    living: list[str] = []
    for p in players:
        seat = int(p["seat"])
        j, k = int(p["j"]), int(p["k"])
        cx, cy = centre(j, k, size)
        at = f'transform="translate({_num(cx)} {_num(cy)})"'
        if p.get("dead"):
            bodies.append(
                f'<g class="sp-body seat-{seat}" data-seat="{seat}" data-j="{j}" data-k="{k}" '
                f'{at}><path d="{shape_path(seat, R * 0.55)}"/>'
                f'<path class="x" d="M-4 -4L4 4M4 -4L-4 4"/></g>'
            )
            continue
        health = int(p.get("health", 0))
        living.append(
            f'<g class="sp-player seat-{seat}" data-seat="{seat}" data-j="{j}" data-k="{k}" '
            f'data-health="{health}" {at}>{player_shape(seat, health)}</g>'
        )

    turn = view.get("turn", 0)
    title = caption or f"The map at turn {turn}"
    desc = (
        f"A map of {size} by {size} hexagonal tiles standing as a diamond, tile (0, 0) at "
        f"the top: j grows down to the left, k down to the right. Grass, explosium "
        f"(stripes), rubidium (dots), scrap (cross-hatched), rock (peaks), void (dark) and "
        f"spawn tiles (a ring with the seat's number); a resource tile shows what it has "
        f"left. {_summary(view)}."
    )
    phase = escape(str(view.get("phase", "")))
    shown = _ground_box(ground_x, ground_y, size)
    whole = (0.0, 0.0, width, height)
    parts = [
        f'<svg class="board skyport-board" viewBox="{_box(shown)}" '
        f'data-box="{_box(shown)}" data-whole="{_box(whole)}" '
        f'style="--sp-ratio:{shown[2] / shown[3]:.3f}" '
        f'role="img" aria-labelledby="{ident}-title {ident}-desc" data-size="{size}" '
        f'data-hex="{_num(R)}" data-phase="{phase}" data-turn="{int(turn or 0)}" '
        f'data-viewer="{int(viewer) if viewer is not None else ""}" '
        f'xmlns="http://www.w3.org/2000/svg">',
        f'<title id="{ident}-title">{escape(title)}</title>',
        f'<desc id="{ident}-desc">{escape(desc)}</desc>',
        _STYLE,
        _defs(ident),
        f'<rect class="sp-frame" width="{_num(width)}" height="{_num(height)}" rx="8"/>',
        '<g class="sp-tiles">',
        *polygons,
        '</g><g class="sp-marks" aria-hidden="true">',
        *marked,
        '</g><g class="sp-count" aria-hidden="true">',
        *counts,
        '</g><g class="sp-spawns" aria-hidden="true">',
        *spawns,
        '</g><g class="sp-bodies">',
        *bodies,
        '</g><g class="sp-players">',
        *living,
        "</g>",
        _axis(size),
        '<g class="sp-fx" aria-hidden="true"></g></svg>',
    ]
    return mark_safe("".join(parts))  # noqa: S308 - numbers, fixed words and escaped text


def picture_of(view: dict[str, Any], *, label: str) -> SafeString:
    """A small picture of a map for a lobby card: the tiles by colour only, the
    players as dots of their seat's colour. No ids and no script hooks, so it can
    sit on a page beside a real board."""
    tiles: list[str] = view["tiles"]
    size = int(view.get("size") or len(tiles))
    width, height = extent(size)
    x0, y0 = origin(size)
    by_letter: dict[str, list[str]] = {}
    for j in range(size):
        for k in range(size):
            letter = tiles[j][k] if k < len(tiles[j]) else "V"
            cx, cy = x0 + 1.5 * R * (k - j), y0 + H * (j + k)
            by_letter.setdefault(letter, []).append(
                f"M{_num(cx + R)} {_num(cy)}l{_num(-R / 2)} {_num(H)}h{_num(-R)}"
                f"l{_num(-R / 2)} {_num(-H)}l{_num(R / 2)} {_num(-H)}h{_num(R)}z"
            )
    paths = "".join(
        f'<path fill="{TILE_COLOURS.get(letter, TILE_COLOURS["V"])[0]}" stroke="#11141a" '
        f'd="{"".join(d)}"/>'
        for letter, d in sorted(by_letter.items())
    )
    dots = "".join(
        f'<path fill="{SEAT_COLOURS.get(int(p["seat"]), "#fff")}" stroke="#0b0d11" '
        f'd="{shape_path(int(p["seat"]), R * 0.7, *centre(int(p["j"]), int(p["k"]), size))}"/>'
        for p in view.get("players", [])
    )
    return mark_safe(  # noqa: S308 - numbers and fixed words; the label is escaped
        f'<svg class="game-picture" viewBox="{_box(crop(tiles, size))}" role="img" '
        f'aria-label="{escape(label)}"><rect width="{_num(width)}" height="{_num(height)}" '
        f'rx="8" fill="#11141a"/>{paths}{dots}</svg>'
    )
