"""What Halite's JSON interface alone costs a turn, beside the whole `engine.apply`.

    python bench/halite_floor.py [--runs 7] [--seed 1]

The engine bench's mid-match scenario (30 x 30, four `grower`s from turn 100, fifty
recorded turns; `engine.bench.SCENARIOS`) is resolved through `engine.apply` as the
bench does, then two floors are timed on the same turns, with no rule applied and no
state read or written:
- the orders: every seat's moves unpacked and their three numbers type-checked, as
  any reader of halite.md's `[x, y, direction]` moves must;
- the events: each of the turn's events, as the engine records them (grouped by kind:
  one dict per kind with a list per field), made as a dict of its own with lists of
  its own (`dict.copy` and a copy of each list: the cheapest way CPython makes them);
- the state: the two grids a turn changes (owner and strength) read from their rows
  into one flat list each and written back as rows (production never changes: its
  rows could be passed on as they are).
Their sum bounds from below what any implementation of the rules behind this
interface costs in CPython, whatever it computes with (numpy or compiled code): the
moves come in and the events go out as Python objects. Figures are this process's CPU
(`process_time`) per turn, medians of `--runs` runs; the ceiling is a second over the
floor.

Beside them, what the site spends on a turn's events: the worker resolves the turn and
writes its events into the turn's row as JSON (`worker`: `engine.apply` and
`json.dumps` of its events; `stored_bytes`, the JSON's median size), and a page that
shows the turn reads the row's events and makes the viewer's copy, piece by piece, into
the page's JSON (`page`: `json.loads`, `engine.events_view`, `json.dumps`).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine  # noqa: E402
from bench._support import emit  # noqa: E402
from engine.bench import SCENARIOS, scenario_turns  # noqa: E402


def _per_turn(work: Any, turns: int, runs: int) -> float:
    times = []
    for _ in range(runs):
        began = time.process_time()
        work()
        times.append((time.process_time() - began) / turns)
    return statistics.median(times)


def measure(runs: int, seed: int) -> dict[str, Any]:
    scenario = SCENARIOS["halite"][0]
    start, recorded = scenario_turns("halite", scenario, seed)
    events: list[list[dict[str, Any]]] = []
    state = start
    for orders in recorded:
        applied = engine.apply(state, orders)
        events.append(applied.events)
        state = applied.state
    turns = len(recorded)

    def whole() -> None:
        current = start
        for orders in recorded:
            current = engine.apply(current, orders).state

    def read_moves() -> None:
        for orders in recorded:
            for seat in orders:
                for x, y, direction in seat["moves"]:
                    if type(x) is not int or type(y) is not int or type(direction) is not int:
                        raise ValueError("a move is three whole numbers")

    # Which fields of each kind of event are cells ([x, y] lists), found before timing.
    cells = {
        event["type"]: tuple(k for k, v in event.items() if type(v) is list)
        for told in events
        for event in told
    }

    def copy_events() -> None:
        for told in events:
            for event in told:
                made = event.copy()
                for key in cells[event["type"]]:
                    made[key] = [*event[key]]

    width = start["width"]

    def grids() -> None:
        current = start
        for _ in recorded:
            for name in ("owner", "strength"):
                flat = [cell for row in current[name] for cell in row]
                [flat[i : i + width] for i in range(0, len(flat), width)]

    def worker() -> None:
        current = start
        for orders in recorded:
            applied = engine.apply(current, orders)
            json.dumps(applied.events)
            current = applied.state

    stored = [json.dumps(told) for told in events]

    def page() -> None:
        for row in stored:
            json.dumps(engine.events_view(json.loads(row), None, ruleset="halite"))

    apply_s = _per_turn(whole, turns, runs)
    worker_s = _per_turn(worker, turns, runs)
    page_s = _per_turn(page, turns, runs)
    moves_s = _per_turn(read_moves, turns, runs)
    events_s = _per_turn(copy_events, turns, runs)
    grids_s = _per_turn(grids, turns, runs)
    floor_s = moves_s + events_s + grids_s
    return {
        "scenario": scenario.name,
        "from_turn": start["turn"],
        "turns": turns,
        "moves_per_turn": statistics.median(sum(len(s["moves"]) for s in o) for o in recorded),
        "events_per_turn": statistics.median(len(told) for told in events),
        "events_shown_per_turn": statistics.median(
            len(engine.events_view(told, None, ruleset="halite")) for told in events
        ),
        "worker_us": round(worker_s * 1e6, 1),
        "page_us": round(page_s * 1e6, 1),
        "stored_bytes": statistics.median(len(row) for row in stored),
        "apply_us": round(apply_s * 1e6, 1),
        "apply_turns_per_s": round(1 / apply_s),
        "floor_moves_us": round(moves_s * 1e6, 1),
        "floor_events_us": round(events_s * 1e6, 1),
        "floor_grids_us": round(grids_s * 1e6, 1),
        "floor_us": round(floor_s * 1e6, 1),
        "ceiling_turns_per_s": round(1 / floor_s),
        "runs": runs,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be 1 or more")
    figures = measure(args.runs, args.seed)
    line = (
        f"{figures['moves_per_turn']:.0f} moves and {figures['events_per_turn']:.0f} events"
        f" ({figures['events_shown_per_turn']:.0f} pieces told) a turn; engine.apply"
        f" {figures['apply_us']} us ({figures['apply_turns_per_s']:,} turns/s); the"
        f" interface alone {figures['floor_us']} us (moves {figures['floor_moves_us']},"
        f" events {figures['floor_events_us']}, grids {figures['floor_grids_us']}): at most"
        f" {figures['ceiling_turns_per_s']:,} turns/s; the site: worker"
        f" {figures['worker_us']} us, page {figures['page_us']} us, events stored"
        f" {figures['stored_bytes']:,.0f} bytes"
    )
    emit("halite_floor", figures, line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
