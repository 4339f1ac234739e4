"""Halite's board as inline SVG, built in Python from one viewer's view.

The map is a torus: every edge joins the opposite one. Around the map a band half a
cell wide shows, shaded, the cells of the opposite edges (their production, neutral
strength, territory and pieces), and arrows in the label band point across each
edge, so a player sees that a piece leaving at the west comes back at the east.

What each cell shows:
- production: the background, a darker or lighter green, drawn as one tiny image
  (a pixel a cell, scaled up with crisp edges) so 2,500 cells cost a few hundred
  bytes and no elements;
- a neutral cell's strength: a grey square, larger for more strength;
- an owned cell: a faint wash of its seat's colour (the territory) and its piece,
  in the seat's colour and the seat's shape (circle, square, triangle, diamond,
  cross, star: colour-blind players tell seats apart by shape), larger for more
  strength; a piece of strength 0 is a small outline of the shape.

The markup is the board script's model (games/static/games/halite.js), by the
contract it codes against: the root `<svg class="board halite-board">` carries
`data-width`, `data-height`, `data-cell` (C) and `data-margin` (M), and every
cell's numbers as hex digits row by row: `data-prod` (production, one a cell) and
`data-str` (strength, two a cell, owned or neutral), and `--hl-cells` (its longer side,
for the page's stylesheet to size it); cell (x, y)
is the square [M + x*C, M + (x+1)*C) x [M + y*C, M + (y+1)*C) of the viewBox (whose
origin is 0 0); every owned cell has exactly one element `class="hl-piece seat-S"`
with `data-x`, `data-y`, `data-owner` and `data-strength` (a `<use>` whose `x` and
`y` are its cell's corner and whose `href` is `#hp{S}-{B}`, B = strength_bucket).
The copies in the wrap band are `hl-ghost`, never `hl-piece`. Layers, bottom to
top: production, `hl-neutral`, `hl-land` (territory), grid, `hl-pieces`, the
wrap shade, labels and arrows, then `hl-fx` (empty: the script's animations).

Cost: drawn in Python, not a template loop, as the board is the most viewed page;
a 50 x 50 board is one string join over at most 2,500 short
pieces; tests/bench/halite_board_bench.py measures it.
"""

from __future__ import annotations

import base64
import struct
import zlib
from math import sqrt
from typing import Any

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

CELL = 20
HALF = CELL // 2
LABEL = 18
# The wrap band (half a cell) and the label band outside it.
MARGIN = LABEL + HALF
AXIS_STEP = 5
MAX_STRENGTH = 255
MAX_PRODUCTION = 15
# Strength as size: bucket 0 is strength 0, buckets 1..BUCKETS share 1..255.
BUCKETS = 8

SEAT_SHAPES = {1: "circle", 2: "square", 3: "triangle", 4: "diamond", 5: "cross", 6: "star"}
# On the board's dark ground; the site's --seat-N tokens are the same hues for text pages.
SEAT_COLOURS = {
    1: "#2e8fd6",
    2: "#e69f00",
    3: "#00a67a",
    4: "#d884b4",
    5: "#f0603a",
    6: "#f0e442",
}
SEAT_NAMES = {1: "blue", 2: "orange", 3: "green", 4: "pink", 5: "red", 6: "yellow"}


def _unit_shape(seat: int) -> list[tuple[float, float]] | None:
    """The seat's shape as a polygon around 0 0 with radius about 1 (None: a circle)."""
    if seat == 1:
        return None
    if seat == 2:
        return [(-0.8, -0.8), (0.8, -0.8), (0.8, 0.8), (-0.8, 0.8)]
    if seat == 3:
        return [(0, -1.0), (0.95, 0.75), (-0.95, 0.75)]
    if seat == 4:
        return [(0, -1.05), (1.05, 0), (0, 1.05), (-1.05, 0)]
    if seat == 5:
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
    # seat 6: a five-pointed star
    from math import cos, pi, sin

    points = []
    for i in range(10):
        radius = 1.05 if i % 2 == 0 else 0.45
        angle = -pi / 2 + i * pi / 5
        points.append((radius * cos(angle), radius * sin(angle) + 0.08))
    return points


def _num(value: float) -> str:
    text = f"{value:.1f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def shape_path(seat: int, radius: float, cx: float = 0, cy: float = 0) -> str:
    """The `d` of seat's shape with this radius around (cx, cy)."""
    polygon = _unit_shape(seat)
    if polygon is None:
        r = _num(radius)
        return f"M{_num(cx - radius)} {_num(cy)}a{r} {r} 0 1 0 {_num(2 * radius)} 0a{r} {r} 0 1 0 -{_num(2 * radius)} 0Z"
    first, *rest = polygon
    d = f"M{_num(cx + first[0] * radius)} {_num(cy + first[1] * radius)}"
    d += "".join(f"L{_num(cx + x * radius)} {_num(cy + y * radius)}" for x, y in rest)
    return d + "Z"


def strength_bucket(strength: int) -> int:
    """0 for strength 0, else 1..BUCKETS: the size class a piece is drawn at."""
    if strength <= 0:
        return 0
    return 1 + (min(strength, MAX_STRENGTH) - 1) * BUCKETS // MAX_STRENGTH


# strength -> bucket for every strength a cell may have (a list index beats arithmetic).
_BUCKET_OF = [strength_bucket(s) for s in range(MAX_STRENGTH + 1)]


def _bucket_radius(bucket: int) -> float:
    return HALF * (0.32 + 0.62 * sqrt(bucket / BUCKETS))


def _defs() -> str:
    parts = ["<defs>"]
    for seat in SEAT_SHAPES:
        # The unit shapes (the legend's keys), then one per size, drawn in the cell.
        parts.append(f'<path id="hl-s{seat}" d="{shape_path(seat, 9)}"/>')
        for bucket in range(BUCKETS + 1):
            d = shape_path(seat, _bucket_radius(bucket), HALF, HALF)
            extra = ' class="hl-zero"' if bucket == 0 else ""
            parts.append(f'<path id="hp{seat}-{bucket}"{extra} d="{d}"/>')
    parts.append("</defs>")
    return "".join(parts)


_DEFS = _defs()
_STYLE = (
    "<style>"
    "svg.halite-board .hl-frame{fill:#11141a}"
    "svg.halite-board .hl-neutral{fill:#c9ced6;fill-opacity:.26}"
    "svg.halite-board .hl-land path{fill-opacity:.22}"
    "svg.halite-board .hl-grid{stroke:#fff;stroke-opacity:.06;stroke-width:.6;fill:none}"
    "svg.halite-board .hl-grid5{stroke:#fff;stroke-opacity:.18;stroke-width:.8;fill:none}"
    "svg.halite-board .hl-pieces use,svg.halite-board .hl-wrap use{stroke:#0b0d11;"
    "stroke-width:1}"
    "svg.halite-board .hl-zero{fill-opacity:.25;stroke-width:1.4;stroke:currentColor}"
    "svg.halite-board .hl-shade{fill:#11141a;fill-opacity:.55;fill-rule:evenodd}"
    "svg.halite-board .hl-edge{fill:none;stroke:#aab3c0;stroke-opacity:.7;stroke-width:1;"
    "stroke-dasharray:3 3}"
    "svg.halite-board .hl-axis{font:600 10px system-ui,sans-serif;fill:#aab3c0;"
    "text-anchor:middle}"
    "svg.halite-board .hl-axis .row{text-anchor:end}"
    "svg.halite-board .hl-arrows{fill:#aab3c0}"
    "svg.halite-board .hl-prod{image-rendering:pixelated;image-rendering:crisp-edges}"
    + "".join(f"svg.halite-board .seat-{s}{{fill:{c};color:{c}}}" for s, c in SEAT_COLOURS.items())
    + "</style>"
)

# Production 0..15 as the ground's colour: dark slate to a muted green, so pieces
# and neutral squares stay the brightest things on the board.
_LOW = (23, 27, 34)
_HIGH = (58, 92, 62)
_PALETTE = b"".join(
    bytes(
        round(lo + (hi - lo) * (p / MAX_PRODUCTION) ** 0.8)
        for lo, hi in zip(_LOW, _HIGH, strict=True)
    )
    for p in range(MAX_PRODUCTION + 1)
)


def _chunk(kind: bytes, data: bytes) -> bytes:
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))


def png_uri(rows: list[bytes], *, colour_type: int = 3) -> str:
    """A PNG as a data URI, one pixel a cell: rows of production values indexing the
    ground's palette (`colour_type` 3), or rows of RGB bytes (2)."""
    height = len(rows)
    width = len(rows[0]) // (3 if colour_type == 2 else 1)
    raw = b"".join(b"\x00" + row for row in rows)
    png = (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, colour_type, 0, 0, 0))
        + (_chunk(b"PLTE", _PALETTE) if colour_type == 3 else b"")
        + _chunk(b"IDAT", zlib.compress(raw, 6))
        + _chunk(b"IEND", b"")
    )
    return "data:image/png;base64," + base64.b64encode(png).decode()


def _wrapped_rows(grid: list[list[int]], width: int, height: int) -> list[list[int]]:
    """The grid with a ring of the opposite edges' cells: (width + 2) x (height + 2)."""
    rows = [[row[-1], *row, row[0]] for row in grid]
    return [rows[-1], *rows, rows[0]]


def _summary(owner: list[list[int]], strength: list[list[int]], seats: list[int]) -> str:
    cells = dict.fromkeys(seats, 0)
    total = dict.fromkeys(seats, 0)
    for orow, srow in zip(owner, strength, strict=True):
        for o, s in zip(orow, srow, strict=True):
            if o:
                cells[o] = cells.get(o, 0) + 1
                total[o] = total.get(o, 0) + s
    return "; ".join(
        f"seat {s} ({SEAT_NAMES.get(s, '')} {SEAT_SHAPES.get(s, 'shape')}): "
        f"{cells[s]} cell{'s' if cells[s] != 1 else ''}, strength {total[s]}"
        for s in sorted(cells)
    )


# Production 0..15 -> its hex digit, as a bytes.translate table.
_HEX_DIGIT = bytes(b"0123456789abcdef"[v & 15] for v in range(256))


def _hex(grid: list[list[int]], digits: int) -> str:
    """A grid as hex digits, row by row, `digits` a cell: production (0..15) in one,
    strength (0..255) in two. The board script reads every cell's numbers from them."""
    raw = b"".join(bytes(row) for row in grid)
    return raw.translate(_HEX_DIGIT).decode() if digits == 1 else raw.hex()


def board(view: dict[str, Any], *, caption: str = "", ident: str = "board") -> SafeString:
    """The SVG of one view (Halite hides nothing: the full state plus its viewer).
    `ident` names its title and description (`ident`-title, `ident`-desc), so boards
    drawn side by side on one page keep distinct ids."""
    width, height = int(view["width"]), int(view["height"])
    owner: list[list[int]] = view["owner"]
    strength: list[list[int]] = view["strength"]
    production: list[list[int]] = view["production"]
    seats = list(range(1, int(view.get("seats", 0)) + 1))
    viewer = view.get("viewer")
    size_x, size_y = width * CELL + 2 * MARGIN, height * CELL + 2 * MARGIN
    # The map with the ring of wrapped cells: cell (i - 1, j - 1) at ring index (i, j).
    ring_owner = _wrapped_rows(owner, width, height)
    ring_strength = _wrapped_rows(strength, width, height)
    ring_prod = _wrapped_rows(production, width, height)
    xs = [str(MARGIN + (i - 1) * CELL) for i in range(width + 2)]
    ys = [str(MARGIN + (j - 1) * CELL) for j in range(height + 2)]

    neutral: list[list[str]] = [[] for _ in range(BUCKETS + 1)]
    land: dict[int, list[str]] = {}
    pieces: list[str] = []
    ghosts: list[str] = []
    half_sizes = [_num(_bucket_radius(b) * 1.6) for b in range(BUCKETS + 1)]
    offsets = [_num(HALF - _bucket_radius(b) * 0.8) for b in range(BUCKETS + 1)]
    last_x, last_y = width + 1, height + 1
    bucket_of = _BUCKET_OF
    for j in range(height + 2):
        orow, srow = ring_owner[j], ring_strength[j]
        y_text = ys[j]
        edge_row = j == 0 or j == last_y
        for i in range(width + 2):
            o = orow[i]
            s = srow[i]
            if o == 0:
                if s > 0:
                    b = bucket_of[s]
                    off = offsets[b]
                    neutral[b].append(
                        f"M{xs[i]} {y_text}m{off} {off}h{half_sizes[b]}v{half_sizes[b]}"
                        f"h-{half_sizes[b]}z"
                    )
                continue
            land.setdefault(o, []).append(f"M{xs[i]} {y_text}h{CELL}v{CELL}h-{CELL}z")
            b = bucket_of[s]
            if edge_row or i == 0 or i == last_x:
                ghosts.append(f'<use class="seat-{o}" href="#hp{o}-{b}" x="{xs[i]}" y="{y_text}"/>')
            else:
                pieces.append(
                    f'<use class="hl-piece seat-{o}" href="#hp{o}-{b}" x="{xs[i]}" '
                    f'y="{y_text}" data-x="{i - 1}" data-y="{j - 1}" data-owner="{o}" '
                    f'data-strength="{s}"/>'
                )

    title = caption or f"The map at turn {view.get('turn')}"
    desc = (
        f"{width} by {height} cells that wrap at every edge: leaving one edge comes back at "
        f"the opposite one (the shaded band shows the cells across each edge). x runs 0 to "
        f"{width - 1} left to right, y 0 to {height - 1} top to bottom. Greener ground "
        f"produces more; grey squares are neutral strength, larger for more. "
        f"{_summary(owner, strength, seats)}."
    )
    clip = f"hl-clip-{width}x{height}"
    inner_w, inner_h = width * CELL, height * CELL
    band_x, band_y = LABEL, LABEL
    band_w, band_h = inner_w + CELL, inner_h + CELL
    prod_rows = [bytes(row) for row in ring_prod]
    parts = [
        f'<svg class="board halite-board" viewBox="0 0 {size_x} {size_y}" role="img" '
        f'aria-labelledby="{ident}-title {ident}-desc" data-width="{width}" data-height="{height}" '
        f'data-cell="{CELL}" data-margin="{MARGIN}" data-turn="{int(view.get("turn", 0))}" '
        f'data-viewer="{int(viewer) if viewer is not None else ""}" '
        f'data-prod="{_hex(production, 1)}" data-str="{_hex(strength, 2)}" '
        f'style="--hl-cells:{max(width, height)}" '
        f'xmlns="http://www.w3.org/2000/svg">',
        f'<title id="{ident}-title">{escape(title)}</title>',
        f'<desc id="{ident}-desc">{escape(desc)}</desc>',
        _STYLE,
        _DEFS,
        f'<clipPath id="{clip}"><rect x="{band_x}" y="{band_y}" width="{band_w}" '
        f'height="{band_h}"/></clipPath>',
        f'<rect class="hl-frame" width="{size_x}" height="{size_y}" rx="8"/>',
        f'<g clip-path="url(#{clip})">',
        f'<image class="hl-prod" x="{MARGIN - CELL}" y="{MARGIN - CELL}" '
        f'width="{(width + 2) * CELL}" height="{(height + 2) * CELL}" '
        f'preserveAspectRatio="none" href="{png_uri(prod_rows)}"/>',
    ]
    parts.extend(
        f'<path class="hl-neutral n{b}" d="{"".join(cells)}"/>'
        for b, cells in enumerate(neutral)
        if cells
    )
    parts.append('<g class="hl-land">')
    parts.extend(
        f'<path class="seat-{seat}" d="{"".join(cells)}"/>' for seat, cells in sorted(land.items())
    )
    parts.append("</g>")
    parts.append(_grid(width, height))
    parts.append('<g class="hl-wrap" aria-hidden="true">')
    parts.extend(ghosts)
    parts.append("</g>")
    parts.append(
        f'<path class="hl-shade" d="M{band_x} {band_y}h{band_w}v{band_h}h-{band_w}z'
        f'M{MARGIN} {MARGIN}v{inner_h}h{inner_w}v-{inner_h}z"/>'
    )
    parts.append("</g>")
    parts.append(
        f'<rect class="hl-edge" x="{MARGIN}" y="{MARGIN}" width="{inner_w}" height="{inner_h}"/>'
    )
    parts.append('<g class="hl-pieces">')
    parts.extend(pieces)
    parts.append("</g>")
    parts.append(_axis(width, height))
    parts.append(_arrows(width, height))
    parts.append('<g class="hl-fx" aria-hidden="true"></g></svg>')
    return mark_safe("".join(parts))  # noqa: S308 - numbers, fixed words and escaped text


def _grid(width: int, height: int) -> str:
    """Thin lines between cells, brighter ones every AXIS_STEP cells (the labelled ones)."""
    thin: list[str] = []
    major: list[str] = []
    for i in range(1, width):
        (major if i % AXIS_STEP == 0 else thin).append(
            f"M{MARGIN + i * CELL} {MARGIN}v{height * CELL}"
        )
    for j in range(1, height):
        (major if j % AXIS_STEP == 0 else thin).append(
            f"M{MARGIN} {MARGIN + j * CELL}h{width * CELL}"
        )
    return (
        f'<path class="hl-grid" d="{"".join(thin)}"/><path class="hl-grid5" d="{"".join(major)}"/>'
    )


def axis_labels(size: int) -> range:
    """The rows or columns that get a coordinate label: every AXIS_STEP-th one."""
    return range(0, size, AXIS_STEP)


def _axis(width: int, height: int) -> str:
    top = "".join(
        f'<text x="{MARGIN + i * CELL + HALF}" y="{LABEL - 5}">{i}</text>'
        for i in axis_labels(width)
    )
    left = "".join(
        f'<text class="row" x="{LABEL - 3}" y="{MARGIN + j * CELL + HALF + 4}">{j}</text>'
        for j in axis_labels(height)
    )
    return f'<g class="hl-axis" aria-hidden="true">{top}{left}</g>'


def _arrows(width: int, height: int) -> str:
    """A small arrow out of each edge, between two labels near its middle: the map wraps
    there."""
    at_x = MARGIN + int(((width // 2) // AXIS_STEP * AXIS_STEP + AXIS_STEP / 2) * CELL)
    at_y = MARGIN + int(((height // 2) // AXIS_STEP * AXIS_STEP + AXIS_STEP / 2) * CELL)
    right = MARGIN + width * CELL + HALF + 3
    bottom = MARGIN + height * CELL + HALF + 3
    top = left = LABEL - 3
    return (
        '<g class="hl-arrows"><title>The map wraps: what leaves one edge enters at the '
        "opposite edge.</title>"
        f'<path d="M{right} {at_y - 6}l5 6l-5 6z"/>'
        f'<path d="M{at_x - 6} {bottom}l6 5l6 -5z"/>'
        f'<path d="M{left} {at_y - 6}l-5 6l5 6z"/>'
        f'<path d="M{at_x - 6} {top}l6 -5l6 5z"/>'
        "</g>"
    )


PICTURE_CELL = 4


def _rgb(colour: str) -> bytes:
    return bytes.fromhex(colour.lstrip("#"))


def picture_of(view: dict[str, Any], *, label: str) -> SafeString:
    """A small picture of a map for a lobby card: one pixel a cell (a tiny image,
    scaled up with crisp edges), each seat's cells in its colour, the neutral land
    its production's ground lightened by its strength. No ids and no script hooks,
    so several can sit on one page beside a real board."""
    width, height = int(view["width"]), int(view["height"])
    seat_rgb = {seat: _rgb(colour) for seat, colour in SEAT_COLOURS.items()}
    rows = []
    for orow, srow, prow in zip(view["owner"], view["strength"], view["production"], strict=True):
        row = bytearray()
        for o, s, p in zip(orow, srow, prow, strict=True):
            if o:
                row += seat_rgb.get(o, b"\xff\xff\xff")
            else:
                lift = 0.45 * s / MAX_STRENGTH
                ground = _PALETTE[3 * p : 3 * p + 3]
                row += bytes(round(c + (201 - c) * lift) for c in ground)
        rows.append(bytes(row))
    size = PICTURE_CELL
    return mark_safe(  # noqa: S308 - numbers and fixed words; the label is escaped
        f'<svg class="game-picture" viewBox="0 0 {width * size} {height * size}" role="img" '
        f'aria-label="{escape(label)}"><image width="{width * size}" height="{height * size}" '
        f'preserveAspectRatio="none" style="image-rendering:pixelated" '
        f'href="{png_uri(rows, colour_type=2)}"/></svg>'
    )
