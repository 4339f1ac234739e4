"""bench/ratings.py in a tiny mode (a few hundred accounts): the script still loads,
asks every page and endpoint, and finds an index for every query it makes (plans
made with sequential scans priced out, as a small table is rightly read whole).
Its figures mean nothing at this size. Needs PostgreSQL and Redis on the loopback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from bench import _support  # noqa: E402

SKIPPED = 2


def test_the_ratings_benchmark_runs_small_and_every_query_has_its_index():
    missing = _support.services_up()
    if missing:
        pytest.skip(missing)
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL")}
    database = f"helium3_bench_ratings_smoke_{os.getpid()}"
    done = subprocess.run(
        [
            sys.executable,
            str(REPO / "bench" / "ratings.py"),
            "--accounts",
            "400",
            "--changes",
            "4000",
            "--requests",
            "2",
            "--database",
            database,
            "--fresh",
            "--drop",
            "--plans-as-if-large",
        ],  # fmt: skip
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    if done.returncode == SKIPPED:
        pytest.skip(done.stderr.strip())
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-4000:]
    figures = json.loads([line for line in done.stdout.splitlines() if line.startswith("{")][-1])
    assert figures["bench"] == "ratings"
    assert figures["load"]["accounts"] == 400 and figures["load"]["changes"] == 4000
    assert figures["seq_scans"] == {}
    pages = figures["pages"]
    assert len(pages) == 10
    # The page and its count both read a leaderboard index (at this size the
    # count's plan may be a bitmap scan; at full size it is an index-only scan).
    board = pages["leaderboard, first page, anonymous"]
    for plan in board["plans"]:
        if "compete_rating" in plan["sql"]:
            assert any(s["index"].startswith("rating_board") for s in plan["scans"]), plan
    for page in pages.values():
        assert page["queries"] >= 1 and page["server_ms_median"] > 0
