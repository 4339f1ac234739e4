"""The rules page's pictures of Skyport: the six directions on a hex compass, and a
worked example of the three weapons on a small map.

The example is played by the real engine from a small fixed state (engine.apply, the
same call a match's turn makes), drawn by the match page's board code with each shot's
tiles shaded, and told by the history's sentences: when a rule or a number changes in
the engine, the page changes with it."""

from __future__ import annotations

import json
from math import sqrt
from typing import Any

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

import engine
from engine.skyport.hexgrid import DIRECTIONS
from engine.skyport.state import PER_TILE, RESOURCE_OF_TILE, RESOURCES, START_HEALTH
from games.play.skyport import sentences
from games.play.skyport.board import R, _num, board, shape_path

# A small map: rock here and there, a few resources, the three spawns in corners, each
# near its seat (seat 1 on the left, 2 on the right, 3 at the bottom).
EXAMPLE_TILES = ["SGGGGGS", "GGRGGOG", "GGGGEGG", "GGGGGGG", "GOGGGGG", "GGCGGGG", "VGGGGGS"]
# Each seat: where it stands, its spawn, its loadout (level 1).
EXAMPLE_SEATS = {
    1: ((3, 1), (0, 0), ("laser", "mortar")),
    2: ((3, 5), (0, 6), ("mortar", "droid")),
    3: ((5, 5), (6, 6), ("droid", "laser")),
}
# The three turns, one weapon each, every one fired as the turn's only action.
EXAMPLE_TURNS: list[tuple[int, str, dict[str, Any]]] = [
    (1, "laser", {"type": "laser", "direction": "right-down"}),
    (2, "mortar", {"type": "mortar", "target": [2, 0]}),
    (3, "droid", {"type": "droid", "sequence": ["left-up", "up", "up"]}),
]


def example_state() -> dict[str, Any]:
    """The example's state before its first shot: round 1, seat 1 to move."""
    size = len(EXAMPLE_TILES)
    players = [
        {
            "seat": seat,
            "j": at[0],
            "k": at[1],
            "spawn": list(spawn),
            "health": START_HEALTH,
            "score": 0,
            "dead": False,
            "respawn_next": False,
            "weapons": dict.fromkeys(loadout, 1),
            "resources": dict.fromkeys(RESOURCES, 0),
        }
        for seat, (at, spawn, loadout) in EXAMPLE_SEATS.items()
    ]
    order = list(EXAMPLE_SEATS)
    return {
        "ruleset": "skyport",
        "seed": 1,
        "map": "generated",
        "size": size,
        "phase": "play",
        "tiles": list(EXAMPLE_TILES),
        "resources": {
            f"{j},{k}": PER_TILE
            for j, row in enumerate(EXAMPLE_TILES)
            for k, letter in enumerate(row)
            if letter in RESOURCE_OF_TILE
        },
        "players": players,
        "round": 1,
        "rounds": 5,
        "order": order,
        "turn": 1,
        "awaiting": order[:1],
        "scores": {str(s): 0 for s in order},
        "over": False,
        "winners": [],
    }


def _shot_marks(event: dict[str, Any]) -> dict[tuple[int, int], str]:
    """The tiles a shot touched, as the board's marks."""
    marks: dict[tuple[int, int], str] = {}

    def blast(at: list[int]) -> None:
        j, k = int(at[0]), int(at[1])
        for dj, dk in DIRECTIONS.values():
            marks.setdefault((j + dj, k + dk), "area")
        marks[(j, k)] = "main"

    if event["type"] == "laser":
        for j, k in event.get("tiles") or []:
            marks[(int(j), int(k))] = "lit"
    elif event["type"] == "mortar":
        if event.get("landed", True):
            blast(event["target"])
        else:
            marks[(int(event["target"][0]), int(event["target"][1]))] = "main"
    elif event["type"] == "droid":
        for j, k in event.get("path") or []:
            marks[(int(j), int(k))] = "path"
        blast(event.get("at") or event["path"][-1])
    return marks


def worked_example() -> list[dict[str, Any]]:
    """The map before the shots, then each shot: its board after, shaded where it
    went, with the orders sent and the history's sentences."""
    state = example_state()
    steps: list[dict[str, Any]] = [
        {
            "weapon": None,
            "board": board(
                engine.view(state, None),
                caption="The example's map before the shots",
                ident="sp-example-0",
            ),
            "orders": None,
            "lines": [],
        }
    ]
    for n, (seat, weapon, action) in enumerate(EXAMPLE_TURNS, start=1):
        applied = engine.apply(state, {"seat": seat, "turn": state["turn"], "actions": [action]})
        state = applied.state
        shot = next(e for e in applied.events if e["type"] == weapon)
        steps.append(
            {
                "weapon": weapon,
                "seat": seat,
                "board": board(
                    engine.view(state, None),
                    caption=f"Seat {seat}'s {weapon} on the example's map",
                    ident=f"sp-example-{n}",
                    marks=_shot_marks(shot),
                ),
                "orders": json.dumps({"actions": [action]}),
                "lines": sentences.sentences(applied.events),
            }
        )
    return steps


def compass() -> SafeString:
    """A hex and its six neighbours, each named by its direction and its step (dj, dk),
    laid out as the board lays them (flat-topped hexes, (0, 0) at the top)."""
    h = R * sqrt(3) / 2
    size = 3.2  # the compass's hexes are larger than the board's
    r, hh = R * size, h * size

    def at(dj: int, dk: int) -> tuple[float, float]:
        return 1.5 * r * (dk - dj), hh * (dj + dk)

    def hexagon(cx: float, cy: float) -> str:
        corners = [
            (cx + r, cy),
            (cx + r / 2, cy + hh),
            (cx - r / 2, cy + hh),
            (cx - r, cy),
            (cx - r / 2, cy - hh),
            (cx + r / 2, cy - hh),
        ]
        return " ".join(f"{_num(x)},{_num(y)}" for x, y in corners)

    parts = [f'<polygon class="hub" points="{hexagon(0, 0)}"/>']
    parts.append(f'<path class="you" d="{shape_path(1, r * 0.35)}"/>')
    for name, (dj, dk) in DIRECTIONS.items():
        x, y = at(dj, dk)
        parts.append(f'<polygon class="nb" points="{hexagon(x, y)}"/>')
        # The arrow from the middle hex's edge toward the neighbour's centre.
        parts.append(
            f'<line class="arrow" x1="{_num(x * 0.3)}" y1="{_num(y * 0.3)}" '
            f'x2="{_num(x * 0.62)}" y2="{_num(y * 0.62)}" marker-end="url(#sp-compass-head)"/>'
        )
        parts.append(
            f'<text x="{_num(x)}" y="{_num(y - 2)}" class="name">{escape(name)}</text>'
            f'<text x="{_num(x)}" y="{_num(y + 13)}" class="step">({dj}, {dk})</text>'
        )
    half_w, half_h = 2.5 * r + 4, 3 * hh + 4
    return mark_safe(  # noqa: S308 - numbers and the engine's direction names, escaped
        f'<svg class="sp-compass" viewBox="{_num(-half_w)} {_num(-half_h)} {_num(2 * half_w)} '
        f'{_num(2 * half_h)}" role="img" aria-labelledby="sp-compass-title">'
        '<title id="sp-compass-title">The six directions: from a tile, each neighbour is '
        "one step (dj, dk) away</title>"
        '<defs><marker id="sp-compass-head" viewBox="0 0 10 10" refX="8" refY="5" '
        'markerWidth="5" markerHeight="5" orient="auto-start-reverse">'
        '<path d="M0 0L10 5L0 10Z" fill="currentColor"/></marker></defs>'
        "<style>.sp-compass{color:var(--text,#1b1f2e)}"
        ".sp-compass .hub{fill:#3f6b35;stroke:#11141a;stroke-width:1.5}"
        ".sp-compass .nb{fill:var(--surface-2,#eceae3);stroke:var(--border,#d6d2c6);"
        "stroke-width:1.5}"
        ".sp-compass .you{fill:#2e8fd6;stroke:#0b0d11;stroke-width:1.2}"
        ".sp-compass .arrow{stroke:currentColor;stroke-width:2.2}"
        ".sp-compass text{fill:currentColor;text-anchor:middle;font:600 11px system-ui,"
        "sans-serif}.sp-compass .step{font-weight:400;font-size:10px}</style>"
        + "".join(parts)
        + "</svg>"
    )
