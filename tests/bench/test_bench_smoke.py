"""Each benchmark in bench/ runs in a tiny mode (seconds), so none of them can rot.

They need PostgreSQL and Redis on the loopback (as CI has); without them the site
benchmarks are skipped. The figures of these runs mean nothing: only that every
script still runs and prints its JSON.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from bench import _support  # noqa: E402

SKIPPED = 2


def run(script: str, *args: str, timeout: float = 120, migrated: str = "") -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL")}
    env["BENCH_MIGRATED"] = migrated
    done = subprocess.run(
        [sys.executable, str(REPO / "bench" / script), *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if done.returncode == SKIPPED:
        pytest.skip(done.stderr.strip())
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    assert lines, done.stdout
    figures = json.loads(lines[-1])
    assert figures["bench"] == script.removesuffix(".py")
    assert figures["machine"]["cpus"]
    return figures


@pytest.fixture(scope="module")
def database() -> Iterator[str]:
    missing = _support.services_up()
    if missing:
        pytest.skip(missing)
    name = f"helium3_bench_smoke_{os.getpid()}"
    # Migrated once here; the scripts then skip their own migrate.
    _support.prepare_database(_support.site_env(name, "bench-smoke"))
    yield name
    _support.drop_database(name)


def test_the_engine_bench_compares_with_python_chess() -> None:
    figures = run("engine_vs_chess.py", "--runs", "1", "--matches", "1", "--chess-games", "1")
    assert figures["turns_per_s"] > 0
    assert figures["chess_push_pop_per_s"] > 0
    assert figures["turns_per_chess_push_pop"] > 0


def test_the_board_page_bench_counts_a_constant_number_of_queries(database: str) -> None:
    games = ["helium3", "helium3-remake"]
    figures = run(
        "board_page.py", "--ruleset", *games,
        "--requests", "3", "--turns", "0", "5",
        "--wrk-seconds", "1", "--wrk-rounds", "1", "--gunicorn-workers", "1",
        "--database", database, migrated=database,
    )  # fmt: skip
    assert figures["queries_constant"] is True
    assert len(figures["points"]) == 8 * len(games)
    assert all(figures["by_ruleset"][game]["html_bytes_max"] > 0 for game in games)
    if figures["throughput"]["wrk"]:
        for game in games:
            assert figures["throughput"]["by_ruleset"][game]["match_rps_median"] > 0
        assert figures["throughput"]["non_2xx"] == 0


def test_the_turn_latency_bench_sees_turns_through_a_real_worker(database: str) -> None:
    figures = run("turn_latency.py", "--turns", "4", "--database", database, migrated=database)
    assert figures["turns"] == 4
    assert figures["latency_ms"]["median"] > 0
    assert figures["next_player_saw_form"] >= 4


def test_the_scale_bench_plays_each_pace_through_the_whole_stack(database: str) -> None:
    """The four paces as phases of one run: the stack (two web instances, a worker,
    beat, push and the bell's Redis) is started once for them all, not once each."""
    think, think_seconds, matches = 2.0, 10.0, 2
    figures = run(
        "scale.py",
        "--matches", str(matches),
        "--phases", "poll=0.5,seconds=4,refresh=0.5", "push,seconds=8",
        f"think={think},seconds={think_seconds}", "visit=1,push-pages=4,seconds=5",
        "--clients", "2", "--gunicorn-workers", "1", "--worker-concurrency", "1",
        "--workers", "1", "--webs", "2",
        "--database", database, "--keep", migrated=database,
        timeout=300,  # a dozen processes to start on a loaded machine
    )  # fmt: skip
    assert [(r["worker_processes"], r["web_processes"]) for r in figures["runs"]] == [(1, 2)] * 4
    polled, pushed, thought, visited = figures["runs"]
    for each in figures["runs"]:
        assert each["errors"] == 0, each["error_samples"]
        assert each["vacuum_analyze_s"] >= 0
    # Each phase's matches were made, then vacuumed and analyzed as autovacuum would
    # (without statistics PostgreSQL plans the push process's counts for empty tables).
    with psycopg.connect(f"{_support.PG}/{database}") as conn:
        never = conn.execute(
            "SELECT relname FROM pg_stat_user_tables WHERE relname IN"
            " ('games_match', 'games_seat', 'games_turn') AND last_analyze IS NULL"
        ).fetchall()
    assert not never, f"never analyzed: {never}"

    # A page without the channel polls, and loads the page when the form comes.
    assert polled["pace"] == "poll every 0.5 s"
    assert polled["board_views"] > 0
    assert polled["turns_resolved"] > 0

    # People told their turns by the push channel.
    assert pushed["pace"] == "told by the push channel"
    people = pushed["push"]["people"]
    assert people["channels_opened"] >= 2 and people["connect_failures"] == 0
    # Each pass went by script and was answered in JSON: no redirect, no page load
    # but the first of a match begun in place of one that ended (a quiet machine
    # plays a whole match of a person's passes in a few seconds).
    assert pushed["posts_per_s"] > 0
    assert pushed["board_views"] <= pushed["matches_finished_and_replaced"]
    assert pushed["looks_after_send"] > 0
    # Turns after the first pass came only because the channel told them.
    assert people["turn_events"] > 0
    assert pushed["turns_resolved"] > 8  # a second round in some match

    # People who think before each pass.
    assert thought["pace"] == f"told by the push channel, {think} s think"
    # Each person passes at most once a think (and once more at the window's edge):
    # people who did not wait would pass as fast as the site answers.
    assert 0 < thought["passes"] <= matches * (think_seconds / think + 1)
    # No pass before its due time: each came a whole think after its form appeared.
    assert thought["passes_early"] == 0
    assert thought["waited_min_ms"] >= think * 1000
    assert thought["late_ms"]["median"] is not None and thought["late_ms"]["median"] >= 0
    # A second pass of someone's: the site's response was seen, so the pace offered.
    assert thought["response_ms"]["median"] > 0
    assert 0 < thought["offered_passes_per_s"] <= matches / think
    assert thought["offered_turns_per_s"] > 0

    # Correspondence pace, with open pages on the push channel.
    assert visited["pace"] == "a visit every 1.0 s"
    assert visited["polls_per_s"] == 0  # people who come back, not pollers
    assert visited["turns_resolved"] > 0
    push = visited["push"]
    assert push["pages_connected"] == 4 and push["connect_failures"] == 0
    assert push["turn_events_timed"] > 0 and push["fanout_ms"]["median"] > 0
    # Every process kind that does a turn's work is seen spending CPU on it.
    for kind in ("web", "worker", "push", "postgres"):
        assert visited["processes_seen"][kind] > 0, kind
        assert visited["cpu_ms_per_turn"][kind] > 0, kind


def test_the_halite_frames_bench_times_a_turn_playing_in_chromium() -> None:
    chromium = os.environ.get("HELIUM3_CHROMIUM", "/usr/bin/chromium")
    if not Path(chromium).exists():
        pytest.skip(f"no system Chromium at {chromium}")
    figures = run(
        "halite_frames.py", "--size", "10", "--seats", "2", "--turns", "3", "--movies", "1"
    )
    assert figures["frames"] > 0 and figures["median_ms"] > 0
    assert figures["drawing_cpu_ms_per_frame"] > 0
    # A movie shorter than a second has no whole second to count.
    lowest = figures["lowest_fps_1s"]
    assert lowest is None or 0 < lowest <= 1000 / figures["median_ms"] * 2
