"""Each seat's territory, total strength and total production, now and over the turns,
as the 2016 visualiser's graphs showed them: a table for the panel and three small
line charts, drawn in Python as SVG (no script, no library).

What the figures are read from: the states after each turn (the Resolution rows) and
the initial state, as the spectator sees them (engine.view(state, None)). Halite hides
nothing but the orders of a turn not yet resolved, which no stored state holds, so
every viewer may see them, and one series per match serves every viewer.

Cost: the series of a match are kept in the cache, keyed by the match (its id and
seed), with the last turn they reach; a page asks only for the rows after it, so a
view costs one cache read and at most two queries (the initial state the first time,
the new rows), whatever the turn. The charts are at most CHART_POINTS points a line,
and the panel drawn for a turn is kept too (every viewer sees the same one).
"""

from __future__ import annotations

import json
from typing import Any

from django.core.cache import cache
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

import engine
from games.play.halite.board import SEAT_COLOURS, SEAT_NAMES, SEAT_SHAPES, shape_path

# A seat's figures after one turn: (territory, strength, production).
Figures = tuple[int, int, int]
KINDS = ("territory", "strength", "production")
TITLES = {"territory": "Territory", "strength": "Strength", "production": "Production"}
UNITS = {"territory": "cells", "strength": "strength", "production": "production a turn"}
CACHE_SECONDS = 24 * 3600
CHART_POINTS = 120
# The chart's frame in viewBox units: the plot and the band for the axis labels.
WIDTH, HEIGHT = 240, 96
LEFT, RIGHT, TOP, BOTTOM = 34, 8, 8, 16
# A dash per seat besides its colour, so lines are told apart without colour.
DASHES = {1: "", 2: "6 3", 3: "2 2", 4: "8 2 2 2", 5: "4 4", 6: "1 3"}


def figures(state: dict[str, Any]) -> dict[int, Figures]:
    """Each seat's territory, strength and production on one view of the map."""
    seats = int(state.get("seats", 0))
    cells = [0] * (seats + 1)
    strength = [0] * (seats + 1)
    production = [0] * (seats + 1)
    for orow, srow, prow in zip(
        state["owner"], state["strength"], state["production"], strict=True
    ):
        for o, s, p in zip(orow, srow, prow, strict=True):
            if o:
                cells[o] += 1
                strength[o] += s
                production[o] += p
    return {seat: (cells[seat], strength[seat], production[seat]) for seat in range(1, seats + 1)}


def _key(match: Any) -> str:
    # The seed tells this match from an earlier one that had the same id (a reset database).
    return f"hl:series:{match.pk}:{match.seed}"


def series(match: Any, upto: int) -> list[dict[int, Figures]]:
    """The figures before the first turn and after each turn up to turn `upto` (so
    `upto + 1` entries at most: fewer while rows are missing)."""
    from games.models import Match, Resolution

    key = _key(match)
    kept: list[dict[int, Figures]] | None = cache.get(key)
    if kept is not None and len(kept) > upto:
        return kept[: upto + 1]
    if not kept:
        initial = Match.objects.filter(pk=match.pk).values_list("initial_state", flat=True).first()
        if initial is None:
            return []
        kept = [figures(engine.view(initial, None))]
    rows = (
        Resolution.objects.filter(match_id=match.pk, turn_number__gte=len(kept) - 1)
        .filter(turn_number__lt=upto)
        .order_by("turn_number", "step")
        .values_list("turn_number", "state")
    )
    for number, state in rows:
        # A turn's state is the one after it: turn n's is entry n + 1.
        if number + 1 == len(kept):
            kept.append(figures(engine.view(state, None)))
        elif number + 1 < len(kept):
            kept[number + 1] = figures(engine.view(state, None))
    cache.set(key, kept, CACHE_SECONDS)
    return kept[: upto + 1]


def _num(value: float) -> str:
    text = f"{value:.1f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _nice_top(value: int) -> int:
    """The axis' top: the value rounded up to 1, 2 or 5 times a power of ten."""
    if value <= 0:
        return 1
    power = 1
    while power * 10 <= value:
        power *= 10
    for step in (1, 2, 5, 10):
        if step * power >= value:
            return step * power
    return 10 * power


def _picked(count: int) -> list[int]:
    """The turns a line is drawn through: every k-th, and the last (CHART_POINTS at most)."""
    stride = max(1, -(-count // CHART_POINTS))
    picked = list(range(0, count, stride))
    if picked and picked[-1] != count - 1:
        picked.append(count - 1)
    return picked


def _points(values: list[int], top: int, xs: list[tuple[int, str]]) -> str:
    """The line's points in tenths of the viewBox's units (whole numbers: short to write
    and quick to build), drawn in a group scaled by a tenth."""
    base, height = 10 * (HEIGHT - BOTTOM), 10 * (HEIGHT - TOP - BOTTOM) / top
    return " ".join(f"{x},{round(base - values[i] * height)}" for i, x in xs)


def chart(kind: str, turns: list[dict[int, Figures]], seats: list[int], ident: str) -> str:
    """One small line chart of `kind` over the turns: a line a seat, its shape at the end."""
    index = KINDS.index(kind)
    picked = _picked(len(turns))
    # Each seat's values at the turns drawn only (the line's points, its last value).
    lines = {s: [turns[i].get(s, (0, 0, 0))[index] for i in picked] for s in seats}
    top = _nice_top(max((max(v) for v in lines.values() if v), default=0))
    last = len(turns) - 1
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    now = ", ".join(f"seat {s} {lines[s][-1]}" for s in seats) if last >= 0 else "nothing yet"
    title = f"{TITLES[kind]} of each seat over the turns"
    desc = f"From turn 0 to turn {max(last, 0)}, 0 to {top} {UNITS[kind]}. Now: {now}."
    parts = [
        f'<svg class="hl-chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" data-kind="{kind}" '
        f'data-turns="{max(last, 0)}" aria-labelledby="{ident}-t {ident}-d">'
        f'<title id="{ident}-t">{escape(title)}</title><desc id="{ident}-d">{escape(desc)}</desc>'
        f'<rect class="hl-chart-bg" width="{WIDTH}" height="{HEIGHT}" rx="6"/>'
        f'<path class="hl-chart-axis" d="M{LEFT} {TOP}v{plot_h}h{plot_w}"/>'
        f'<path class="hl-chart-grid" d="M{LEFT} {TOP}h{plot_w}M{LEFT} {TOP + plot_h / 2}h{plot_w}"/>'
        f'<text class="hl-chart-label" x="{LEFT - 4}" y="{TOP + 4}" text-anchor="end">{top}</text>'
        f'<text class="hl-chart-label" x="{LEFT - 4}" y="{TOP + plot_h + 3}" text-anchor="end">0</text>'
        f'<text class="hl-chart-name" x="{LEFT + 5}" y="{TOP + 10}">{TITLES[kind]}</text>'
        f'<text class="hl-chart-label" x="{LEFT}" y="{HEIGHT - 3}">turn 0</text>'
        f'<text class="hl-chart-label" x="{WIDTH - RIGHT}" y="{HEIGHT - 3}" '
        f'text-anchor="end">{max(last, 0)}</text>'
    ]
    if last >= 0:
        span = max(1, last)
        xs = [(k, str(round(10 * (LEFT + plot_w * i / span)))) for k, i in enumerate(picked)]
        parts.append('<g transform="scale(.1)">')
        for s in seats:
            dash = f' stroke-dasharray="{DASHES.get(s, "")}"' if DASHES.get(s) else ""
            parts.append(
                f'<polyline class="hl-line" data-seat="{s}" stroke="{SEAT_COLOURS.get(s, "#fff")}"'
                f'{dash} points="{_points(lines[s], top, xs)}"/>'
            )
        parts.append("</g>")
        for s in seats:
            x = LEFT + plot_w * (1 if last else 0)
            y = TOP + plot_h * (1 - lines[s][-1] / top)
            parts.append(
                f'<path class="hl-end" fill="{SEAT_COLOURS.get(s, "#fff")}" '
                f'd="{shape_path(s, 3.2, x, y)}"/>'
            )
    parts.append("</svg>")
    return "".join(parts)


def _table(now: dict[int, Figures], seats: list[int]) -> str:
    rows = "".join(
        f'<tr data-hl-seat="{s}"><th scope="row"><svg viewBox="-11 -11 22 22" class="hl-chip" '
        f'aria-hidden="true"><path fill="{SEAT_COLOURS.get(s, "#fff")}" d="{shape_path(s, 9)}"/>'
        f'</svg> {s}<span class="vh"> ({SEAT_NAMES.get(s, "")} {SEAT_SHAPES.get(s, "")})</span>'
        f'</th><td class="num" data-kind="territory">{now.get(s, (0, 0, 0))[0]}</td>'
        f'<td class="num" data-kind="strength">{now.get(s, (0, 0, 0))[1]}</td>'
        f'<td class="num" data-kind="production">{now.get(s, (0, 0, 0))[2]}</td></tr>'
        for s in seats
    )
    return (
        '<table class="seats hl-stats-table"><caption>Each seat now</caption><thead><tr>'
        '<th scope="col">Seat</th><th scope="col" class="num">Territory</th>'
        '<th scope="col" class="num">Strength</th><th scope="col" class="num">Production</th>'
        f"</tr></thead><tbody>{rows}</tbody></table>"
    )


def panel(match: Any, view: dict[str, Any], *, with_data: bool = False) -> SafeString:
    """The panel's part: each seat's figures on the view's map, and the three charts over
    the turns up to the view's. `with_data` adds every turn's figures (the replay page's
    table follows its scrubber with them)."""
    seats = list(range(1, int(view.get("seats", 0)) + 1))
    turn = int(view.get("turn", 0))
    drawn_key = f"{_key(match)}:panel:{turn}:{int(with_data)}"
    kept: str | None = cache.get(drawn_key)
    if kept is not None:
        return mark_safe(kept)  # noqa: S308 - this function's own escaped output
    turns = series(match, turn)
    now = figures(view)
    if len(turns) == turn + 1:
        turns[-1] = now
    charts = "".join(chart(kind, turns, seats, f"hl-chart-{kind}") for kind in KINDS)
    data = ""
    if with_data:
        packed = [[list(t.get(s, (0, 0, 0))) for s in seats] for t in turns]
        data = f" data-series='{escape(json.dumps(packed, separators=(',', ':')))}'"
    drawn = (
        f'<section class="hl-stats" id="hl-stats" aria-labelledby="hl-stats-h"{data}>'
        f'<h2 id="hl-stats-h">Territory, strength, production</h2>{_table(now, seats)}'
        f'<div class="hl-charts">{charts}</div>'
        f'<p class="hl-chart-key"><small>One line a seat, in its colour and dash, its shape at '
        f"the end; the table has the numbers.</small></p></section>"
    )
    cache.set(drawn_key, drawn, CACHE_SECONDS)
    return mark_safe(drawn)  # noqa: S308 - numbers, fixed words and escaped text
