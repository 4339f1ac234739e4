"""The arena's board as inline SVG, built in Python from one viewer's view only.

A seat's view holds its own robot and its `knowledge`: for each cell some scan
covered, `[what, robot_seat, turn, step]` of the latest one. The board draws that
and nothing more: a cell never scanned is grey (`k-unknown`), a remembered cell is
drawn as the scan saw it and fades with the turns since (its age, `data-age`), a
robot seen in a scan stands at the last place it was seen with its age written on
it. A spectator's view while the match runs holds no cell and no robot: every cell
is grey. Everyone's view once the match is over is the full state: every cell as it
is, every robot where it stands.

The markup is the board script's model (games/static/games/arena.js), by the
contract both code against: the root `<svg class="board arena-board">` carries
`data-width`, `data-height`, `data-cell` and `data-margin`; cell (x, y) spans
[M + x C, M + (x + 1) C) on both axes; every cell is one `<rect class="ar-cell
k-K">` with `data-x`, `data-y` and `data-age` (K: unknown, empty, obstacle or robot;
the age "" when unknown); the own robot is `<g class="ar-robot own seat-S">`, a
robot seen in a scan `<g class="ar-robot seen seat-S">` with `data-age`, and a
spectator's robots `<g class="ar-robot seat-S">`, each with `data-x` and `data-y`.

Cost: drawn in Python, not a template loop, as the board is the most viewed page; one
short string per cell, a hundred cells.
"""

from __future__ import annotations

from typing import Any

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

CELL = 32
MARGIN = 20
SEAT_COLOURS = {1: "#2e8fd6", 2: "#e69f00", 3: "#00a67a", 4: "#d884b4"}
SEAT_NAMES = {1: "blue", 2: "orange", 3: "green", 4: "pink"}
SEAT_SHAPES = {1: "circle", 2: "square", 3: "triangle", 4: "diamond"}
KIND_FILLS = {"unknown": "#5a5f68", "empty": "#dfe6ee", "obstacle": "#2d3038", "robot": "#dfe6ee"}
# A remembered cell fades with its age down to this opacity.
OLDEST_OPACITY = 0.35


def _num(value: float) -> str:
    text = f"{value:.1f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def shape_path(seat: int, radius: float, cx: float = 0, cy: float = 0) -> str:
    """The `d` of the seat's shape (circle, square, triangle, diamond) around (cx, cy)."""
    shape = SEAT_SHAPES.get(seat, "circle")
    r = radius
    if shape == "square":
        s = r * 0.82
        return f"M{_num(cx - s)} {_num(cy - s)}h{_num(2 * s)}v{_num(2 * s)}h{_num(-2 * s)}Z"
    if shape == "triangle":
        return (
            f"M{_num(cx)} {_num(cy - r)}L{_num(cx + r * 0.95)} {_num(cy + r * 0.75)}"
            f"L{_num(cx - r * 0.95)} {_num(cy + r * 0.75)}Z"
        )
    if shape == "diamond":
        return (
            f"M{_num(cx)} {_num(cy - r)}L{_num(cx + r)} {_num(cy)}L{_num(cx)} {_num(cy + r)}"
            f"L{_num(cx - r)} {_num(cy)}Z"
        )
    return (
        f"M{_num(cx - r)} {_num(cy)}a{_num(r)} {_num(r)} 0 1 0 {_num(2 * r)} 0"
        f"a{_num(r)} {_num(r)} 0 1 0 {_num(-2 * r)} 0Z"
    )


def _cell_key(key: Any) -> tuple[int, int] | None:
    try:
        x, y = str(key).split(",")
        return int(x), int(y)
    except ValueError:
        return None


def _everything(view: dict[str, Any]) -> bool:
    """Whether the view is the full state: anyone's once over, or a past state of a
    finished match (its record is public; only the full state, never a seat's or a
    spectator's view, holds the obstacles)."""
    return bool(view.get("over")) or "obstacles" in view


def cells_known(view: dict[str, Any]) -> dict[tuple[int, int], tuple[str, int | None, str]]:
    """Each cell as the viewer knows it: (kind, robot's seat, age as text)."""
    width, height = int(view.get("width", 10)), int(view.get("height", 10))
    robots = [r for r in view.get("robots") or [] if r.get("alive", True)]
    if _everything(view):
        known: dict[tuple[int, int], tuple[str, int | None, str]] = {
            (x, y): ("empty", None, "0") for x in range(width) for y in range(height)
        }
        for cell in view.get("obstacles") or []:
            known[(int(cell[0]), int(cell[1]))] = ("obstacle", None, "0")
        for robot in robots:
            known[(int(robot["x"]), int(robot["y"]))] = ("robot", int(robot["seat"]), "0")
        return known
    if view.get("viewer") is None:
        return {}  # a spectator of a running match: every cell unknown
    viewer = int(view["viewer"])
    turn = int(view.get("turn") or 0)
    known = {}
    mine = (view.get("knowledge") or {}).get(str(viewer)) or {}
    for key, seen in mine.items():
        at = _cell_key(key)
        if at is None or not isinstance(seen, list) or len(seen) < 3:
            continue
        what = seen[0] if seen[0] in ("empty", "obstacle", "robot") else "empty"
        seat = int(seen[1]) if what == "robot" and seen[1] is not None else None
        known[at] = (what, seat, str(max(0, turn - int(seen[2]))))
    for robot in robots:
        if int(robot["seat"]) == viewer:
            known[(int(robot["x"]), int(robot["y"]))] = ("robot", viewer, "0")
    return known


def last_seen(view: dict[str, Any]) -> dict[int, tuple[int, int, int]]:
    """Each other seat's robot at the latest scan that showed it: seat -> (x, y, age)."""
    if _everything(view) or view.get("viewer") is None:
        return {}
    viewer = int(view["viewer"])
    turn = int(view.get("turn") or 0)
    best: dict[int, tuple[tuple[int, int], int, int]] = {}
    mine = (view.get("knowledge") or {}).get(str(viewer)) or {}
    for key, seen in mine.items():
        at = _cell_key(key)
        if at is None or not isinstance(seen, list) or len(seen) < 4 or seen[0] != "robot":
            continue
        if seen[1] is None or int(seen[1]) == viewer:
            continue
        seat, when = int(seen[1]), (int(seen[2]), int(seen[3]))
        if seat not in best or when > best[seat][0]:
            best[seat] = (when, *at)
    return {seat: (x, y, max(0, turn - when[0])) for seat, (when, x, y) in best.items()}


def _robot(
    robot_class: str,
    seat: int,
    x: int,
    y: int,
    extra: str = "",
    health: tuple[int, int] | None = None,
) -> str:
    cx, cy = MARGIN + x * CELL + CELL / 2, MARGIN + y * CELL + CELL / 2
    parts = [
        f'<g class="{robot_class} seat-{seat}" data-seat="{seat}" data-x="{x}" data-y="{y}"'
        f'{extra} transform="translate({_num(cx)} {_num(cy)})">',
        f'<path d="{shape_path(seat, CELL * 0.3, 0, -2)}"/>',
    ]
    if health is not None:
        now, most = health
        width = CELL * 0.8
        filled = width * max(0, min(now, most)) / max(1, most)
        low = " low" if now * 3 <= most else ""
        parts.append(
            f'<rect class="ar-bar" x="{_num(-width / 2 - 1)}" y="{_num(CELL / 2 - 7)}" '
            f'width="{_num(width + 2)}" height="4.5" rx="1"/>'
            f'<rect class="ar-hp{low}" x="{_num(-width / 2)}" y="{_num(CELL / 2 - 6)}" '
            f'width="{_num(filled)}" height="2.5"/>'
        )
    parts.append("</g>")
    return "".join(parts)


_STYLE = (
    "<style>"
    "svg.arena-board .ar-frame{fill:#1a1d23}"
    "svg.arena-board .ar-cell{stroke:#1a1d23;stroke-width:1}"
    + "".join(f"svg.arena-board .ar-cell.k-{k}{{fill:{c}}}" for k, c in KIND_FILLS.items())
    + "svg.arena-board .ar-robot path{stroke:#0b0d11;stroke-width:1.4}"
    "svg.arena-board .ar-robot.seen path{fill-opacity:.55;stroke-dasharray:3 2}"
    "svg.arena-board .ar-robot.own path{stroke:#fff;stroke-width:2}"
    "svg.arena-board .ar-bar{fill:#0b0d11}"
    "svg.arena-board .ar-hp{fill:#4caf50}svg.arena-board .ar-hp.low{fill:#e53935}"
    "svg.arena-board .ar-age{font:700 9px system-ui,sans-serif;fill:#11141a;"
    "stroke:#fff;stroke-width:2;paint-order:stroke}"
    "svg.arena-board .ar-axis{font:600 10px system-ui,sans-serif;fill:#aab3c0;"
    "text-anchor:middle}"
    + "".join(
        f"svg.arena-board .ar-robot.seat-{s} path{{fill:{c}}}" for s, c in SEAT_COLOURS.items()
    )
    + "</style>"
)


def _axis(width: int, height: int) -> str:
    parts = ['<g class="ar-axis" aria-hidden="true">']
    for x in range(width):
        cx = _num(MARGIN + x * CELL + CELL / 2)
        parts.append(f'<text x="{cx}" y="{_num(MARGIN - 6)}">{x}</text>')
        parts.append(f'<text x="{cx}" y="{_num(MARGIN + height * CELL + 14)}">{x}</text>')
    for y in range(height):
        cy = _num(MARGIN + y * CELL + CELL / 2 + 3.5)
        parts.append(f'<text x="{_num(MARGIN / 2)}" y="{cy}">{y}</text>')
        parts.append(f'<text x="{_num(MARGIN * 1.5 + width * CELL)}" y="{cy}">{y}</text>')
    parts.append("</g>")
    return "".join(parts)


def _summary(view: dict[str, Any]) -> str:
    said = []
    viewer = view.get("viewer")
    for robot in view.get("robots") or []:
        if not robot.get("alive", True):
            continue
        seat = int(robot["seat"])
        who = "your robot" if seat == viewer else f"seat {seat}'s robot"
        said.append(
            f"{who} ({SEAT_NAMES.get(seat, '')} {SEAT_SHAPES.get(seat, '')}) at "
            f"({robot['x']}, {robot['y']}), health {robot.get('health')}"
        )
    for seat, (x, y, age) in sorted(last_seen(view).items()):
        when = "this turn" if age == 0 else f"{age} turn{'s' if age != 1 else ''} ago"
        said.append(f"seat {seat}'s robot seen at ({x}, {y}) {when}")
    return "; ".join(said)


def board(view: dict[str, Any], *, caption: str = "", ident: str = "board") -> SafeString:
    """The SVG of one view; `ident` keeps ids distinct when boards share a page."""
    width, height = int(view.get("width", 10)), int(view.get("height", 10))
    viewer = view.get("viewer")
    known = cells_known(view)
    cells: list[str] = []
    for y in range(height):
        for x in range(width):
            kind, seen_seat, age = known.get((x, y), ("unknown", None, ""))
            # Whose robot a scan showed here: the board script's answer to a click.
            whose = f' data-seat="{seen_seat}"' if seen_seat is not None else ""
            fade = ""
            if age not in ("", "0"):
                opacity = max(OLDEST_OPACITY, 1 - 0.1 * int(age))
                fade = f' fill-opacity="{_num(opacity)}"'
            cells.append(
                f'<rect class="ar-cell k-{kind}" x="{MARGIN + x * CELL}" y="{MARGIN + y * CELL}" '
                f'width="{CELL}" height="{CELL}" data-x="{x}" data-y="{y}" data-age="{age}"{whose}{fade}/>'
            )
    robots: list[str] = []
    everything = _everything(view)
    for robot in view.get("robots") or []:
        if not robot.get("alive", True):
            continue
        seat = int(robot["seat"])
        if not everything and seat != viewer:
            continue
        health = (int(robot.get("health", 0)), int(robot.get("max_health") or 1))
        extra = f' data-health="{health[0]}"'
        if not everything:  # the viewer's own robot: what the board script plans from
            own_parts = escape(" ".join(str(p) for p in robot.get("parts") or []))
            extra += (
                f' data-parts="{own_parts}" data-steps-left="{int(robot.get("steps_left") or 0)}" '
                f'data-shot="{"true" if robot.get("shot") else "false"}" '
                f'data-reload="{int(robot.get("reload") or 0)}"'
            )
        css = "ar-robot" if everything else "ar-robot own"
        robots.append(_robot(css, seat, int(robot["x"]), int(robot["y"]), extra, health))
    for seat, (x, y, turns) in sorted(last_seen(view).items()):
        label = (
            f'<text class="ar-age" x="{_num(MARGIN + x * CELL + 2)}" '
            f'y="{_num(MARGIN + y * CELL + 10)}">{turns}</text>'
        )
        robots.append(_robot("ar-robot seen", seat, x, y, f' data-age="{turns}"') + label)
    full_w, full_h = 2 * MARGIN + width * CELL, 2 * MARGIN + height * CELL
    turn = int(view.get("turn") or 0)
    title = caption or f"The arena at turn {turn}"
    fog = (
        "Every cell and robot as it is."
        if everything
        else "A spectator sees no cell and no robot until the match is over."
        if viewer is None
        else "Grey cells were never scanned; a remembered cell fades with its age, a robot "
        "seen in a scan stands where it was seen, with the turns since."
    )
    desc = f"An arena of {width} by {height} cells, (0, 0) at the top left. {fog} {_summary(view)}."
    phase = escape(str(view.get("phase", "")))
    parts = [
        f'<svg class="board arena-board" viewBox="0 0 {full_w} {full_h}" role="img" '
        f'aria-labelledby="{ident}-title {ident}-desc" data-width="{width}" '
        f'data-height="{height}" data-cell="{CELL}" data-margin="{MARGIN}" '
        f'data-phase="{phase}" data-turn="{turn}" '
        f'data-viewer="{int(viewer) if viewer is not None else ""}" '
        f'xmlns="http://www.w3.org/2000/svg">',
        f'<title id="{ident}-title">{escape(title)}</title>',
        f'<desc id="{ident}-desc">{escape(desc)}</desc>',
        _STYLE,
        f'<rect class="ar-frame" width="{full_w}" height="{full_h}" rx="6"/>',
        '<g class="ar-cells">',
        *cells,
        '</g><g class="ar-robots">',
        *robots,
        "</g>",
        _axis(width, height),
        '<g class="ar-fx" aria-hidden="true"></g></svg>',
    ]
    return mark_safe("".join(parts))  # noqa: S308 - numbers, fixed words and escaped text


def picture_of(view: dict[str, Any], *, label: str) -> SafeString:
    """A small picture for a lobby card: the cells by colour, the robots as shapes;
    no ids and no script hooks, so it can sit on a page beside a real board."""
    width, height = int(view.get("width", 10)), int(view.get("height", 10))
    known = cells_known(view)
    unit = 8
    by_kind: dict[str, list[str]] = {}
    for (x, y), (kind, _seat, _age) in known.items():
        by_kind.setdefault(kind, []).append(f"M{x * unit} {y * unit}h{unit}v{unit}h-{unit}z")
    paths = "".join(
        f'<path fill="{KIND_FILLS.get(kind, "#888")}" stroke="#1a1d23" stroke-width=".5" '
        f'd="{"".join(d)}"/>'
        for kind, d in sorted(by_kind.items())
    )
    robots = "".join(
        f'<path fill="{SEAT_COLOURS.get(int(r["seat"]), "#fff")}" stroke="#0b0d11" '
        f'd="{shape_path(int(r["seat"]), unit * 0.4, r["x"] * unit + unit / 2, r["y"] * unit + unit / 2)}"/>'
        for r in view.get("robots") or []
        if r.get("alive", True)
    )
    return mark_safe(  # noqa: S308 - numbers and fixed words; the label is escaped
        f'<svg class="game-picture" viewBox="0 0 {width * unit} {height * unit}" role="img" '
        f'aria-label="{escape(label)}">{paths}{robots}</svg>'
    )
