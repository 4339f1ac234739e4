"""A rating's history as a small SVG line chart, drawn in Python (no script, no
library): the shown rating after each rated match, oldest on the left."""

from __future__ import annotations

from collections.abc import Sequence

WIDTH, HEIGHT = 360, 130
LEFT, RIGHT, TOP, BOTTOM = 44, 8, 10, 18


def history_svg(ratings: Sequence[int], *, label: str) -> str:
    """The chart of `ratings` (the first is the rating before the first match).
    Numbers and `label` only; the label is escaped by the caller's template rules
    here, so it must be plain text (a game title)."""
    from django.utils.html import escape

    points = list(ratings)
    if len(points) < 2:
        points = points * 2 or [1500, 1500]
    low, high = min(points), max(points)
    pad = max(10, (high - low) // 10)
    low, high = low - pad, high + pad
    inner_w, inner_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(i: int) -> float:
        return LEFT + inner_w * i / (len(points) - 1)

    def y(value: int) -> float:
        return TOP + inner_h * (high - value) / (high - low)

    line = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(points))
    last = points[-1]
    title = escape(f"{label}: rating from {points[0]} to {last} over {len(ratings) - 1} matches")
    grid = "".join(
        f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y(v):.1f}" y2="{y(v):.1f}" class="grid"/>'
        f'<text x="{LEFT - 4}" y="{y(v) + 4:.1f}" text-anchor="end">{v}</text>'
        for v in sorted({high - pad, low + pad})
    )
    dots = "".join(
        f'<circle cx="{x(i):.1f}" cy="{y(v):.1f}" r="2.5"/>' for i, v in enumerate(points)
    )
    return (
        f'<svg class="rating-chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-label="{title}"><title>{title}</title>{grid}'
        f'<polyline points="{line}" fill="none"/>{dots}'
        f'<text x="{WIDTH - RIGHT}" y="{HEIGHT - 4}" text-anchor="end">'
        f"{len(ratings) - 1} rated matches</text></svg>"
    )
