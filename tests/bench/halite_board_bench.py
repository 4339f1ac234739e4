"""How long Halite's board takes to draw server-side on the biggest map: the median
of many renders of a 50 x 50 six-seat map at its start and with every cell held.

    .venv/bin/python tests/bench/halite_board_bench.py [--runs N]

Prints the medians and the sizes (raw and gzipped); exits 1 when a median is over
the budget (10 ms), so a script can hold the board to it.
"""

from __future__ import annotations

import argparse
import gzip
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

BUDGET_MS = 10.0


def _setup() -> None:
    root = Path(__file__).resolve().parents[2]
    sys.path.insert(0, str(root))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "helium3_site.settings")
    import django

    django.setup()


def _views() -> dict[str, dict[str, Any]]:
    import engine

    state = engine.new_game(seed=3, seats=6, ruleset="halite", options={"width": 50, "height": 50})
    width, height = state["width"], state["height"]
    full = {
        **state,
        "owner": [[1 + (x * 6) // width for x in range(width)] for _ in range(height)],
        "strength": [[(x * 7 + y * 13) % 256 for x in range(width)] for y in range(height)],
    }
    return {"start": engine.view(state, 1), "every cell held": {**full, "viewer": 1}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    _setup()
    from games.play.halite.board import board

    worst = 0.0
    for name, view in _views().items():
        for _ in range(10):  # warm up
            board(view)
        times = []
        for _ in range(args.runs):
            start = time.perf_counter()
            svg = str(board(view, caption="The map"))
            times.append((time.perf_counter() - start) * 1000)
        median = statistics.median(times)
        worst = max(worst, median)
        size = f"{view['width']} x {view['height']}"
        print(
            f"{size}, {name}: median {median:.2f} ms over {args.runs} renders; "
            f"{len(svg):,} bytes, {len(gzip.compress(svg.encode())):,} gzipped"
        )
    print(f"budget {BUDGET_MS:.0f} ms: {'ok' if worst <= BUDGET_MS else 'OVER'}")
    return 0 if worst <= BUDGET_MS else 1


if __name__ == "__main__":
    sys.exit(main())
