"""The match page (the board): server time, SQL queries, HTML size, and throughput
under wrk against gunicorn as a ratio to the trivial `/healthz` in the same run.

    python bench/board_page.py [--requests 200] [--wrk-seconds 10] [--wrk-connections 16]

Production settings (DEBUG off) on this machine's PostgreSQL, in a database of its
own (`helium3_bench` unless --database). It plays a two-seat and a four-seat match
(a person in seat 1, built-in bots in the others; the worker's part is done
in-process here) to turns 0, 20 and 80, and at each point requests the page as the
player and as a spectator through Django's whole stack in this process (middleware,
session, template; the database round trips included): the median wall time and
this thread's CPU time of `--requests` views of the unchanged page (served by the
page cache) and of a quarter as many first views after a change (the caches emptied
before each), and the queries one request of each kind makes. The query counts must
be the same at every point: the script exits with status 1 if one grows with turns
or robots. Then gunicorn (`--gunicorn-workers`) serves the four-seat match at turn 20
to wrk, alternating with `/healthz`, and the ratio of the medians is the figure.
Goals: median server time under 5 ms, at most 6 queries, at least 0.25x
the trivial view's throughput.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import _support  # noqa: E402

TURNS = (0, 20, 80)
GOAL_MS, GOAL_QUERIES, GOAL_RATIO = 5.0, 6, 0.25


def advance(match: Any, user: Any, target: int) -> None:
    """Play the match on to turn `target`: the person passes, the bots move, and each
    accepted turn is resolved here as the worker would."""
    from games import services
    from games.models import Match, Turn

    while match.turn_number < target and match.status == Match.Status.RUNNING:
        turn = Turn.objects.get(match=match, number=match.turn_number)
        if turn.status == Turn.Status.WAITING:
            services.orders_submit(match_id=match.pk, user=user, turn=turn.number, actions=[])
        services.turn_resolve(match_id=match.pk, number=turn.number)
        match.refresh_from_db()


def _clear(caches: Any) -> None:
    """A first view after a change: neither the page nor anything the page caches
    (the board's own cache is in the default one) is there yet."""
    caches["pages"].clear()
    caches["default"].clear()


def _timed(client: Any, url: str, requests: int, cold: bool) -> tuple[list[float], list[float]]:
    from django.core.cache import caches

    times: list[float] = []
    cpu: list[float] = []
    for _ in range(requests):
        if cold:
            _clear(caches)
        start, start_cpu = time.perf_counter(), time.thread_time()
        client.get(url)
        cpu.append(time.thread_time() - start_cpu)
        times.append(time.perf_counter() - start)
    return times, cpu


def _queries(client: Any, url: str, cold: bool) -> tuple[list[dict[str, Any]], Any]:
    from django.core.cache import caches
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    if cold:
        _clear(caches)
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200, response.status_code
    # captured_queries reads the connection's log when asked, and the next request
    # clears that log: copy it now.
    return list(queries.captured_queries), response


def measure(client: Any, url: str, requests: int) -> dict[str, Any]:
    """A view of an unchanged page (warm: the page cache has it) and a first view
    after a change (cold: the cache emptied before each request)."""
    cold_captured, _ = _queries(client, url, cold=True)
    captured, response = _queries(client, url, cold=False)
    times, cpu = _timed(client, url, requests, cold=False)
    cold_times, cold_cpu = _timed(client, url, max(1, requests // 4), cold=True)
    ms = 1000
    return {
        "server_ms_median": round(statistics.median(times) * ms, 3),
        # This thread's CPU only: what the page costs in Python, whatever else the
        # machine runs (the database's side is not in it).
        "server_cpu_ms_median": round(statistics.median(cpu) * ms, 3),
        "queries": len(captured),
        "cold_server_ms_median": round(statistics.median(cold_times) * ms, 3),
        "cold_server_cpu_ms_median": round(statistics.median(cold_cpu) * ms, 3),
        "cold_queries": len(cold_captured),
        "query_sql": [q["sql"][:120] for q in captured],
        "cold_query_sql": [q["sql"][:120] for q in cold_captured],
        "html_bytes": len(response.content),
        "_times": times,
        "_cold_times": cold_times,
    }


WRK_RPS = re.compile(r"Requests/sec:\s+([\d.]+)")
WRK_BAD = re.compile(r"Non-2xx or 3xx responses:\s+(\d+)")
WRK_ERR = re.compile(r"Socket errors:.*")


def wrk(url: str, cookie: str, seconds: int, connections: int) -> dict[str, Any]:
    out = subprocess.run(
        [
            "wrk",
            "-t2",
            f"-c{connections}",
            f"-d{seconds}s",
            "--timeout",
            "10s",
            "--latency",
            "-H",
            f"Cookie: {cookie}",
            url,
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=seconds + 60,
    ).stdout
    rps = WRK_RPS.search(out)
    bad = WRK_BAD.search(out)
    err = WRK_ERR.search(out)
    p99 = re.search(r"99%\s+([\d.]+)(us|ms|s)\b", out)
    p99_ms = None
    if p99:
        p99_ms = float(p99.group(1)) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[p99.group(2)]
    return {
        "rps": float(rps.group(1)) if rps else 0.0,
        "non_2xx": int(bad.group(1)) if bad else 0,
        "socket_errors": err.group(0) if err else "",
        "p99_ms": p99_ms,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--turns", type=int, nargs="+", default=list(TURNS))
    parser.add_argument("--wrk-seconds", type=int, default=10)
    parser.add_argument("--wrk-rounds", type=int, default=3)
    parser.add_argument("--wrk-connections", type=int, default=16)
    parser.add_argument("--gunicorn-workers", type=int, default=3)
    parser.add_argument("--database", default="helium3_bench")
    parser.add_argument("--drop", action="store_true", help="drop the database at the end")
    args = parser.parse_args(argv)

    missing = _support.services_up()
    if missing:
        print(f"board_page: skipped, {missing}", file=sys.stderr)
        return 2
    queue = f"bench-board-{os.getpid()}"
    env = _support.site_env(args.database, queue)
    _support.prepare_database(env)
    _support.use_env(env)
    try:
        return run(args, env)
    finally:
        _support.purge_queue(env)
        from django.db import connections

        connections.close_all()
        if args.drop:
            _support.drop_database(args.database)


def run(args: argparse.Namespace, env: dict[str, str]) -> int:
    from django.conf import settings
    from django.contrib.auth.models import User
    from django.test import Client

    from games import services

    assert not settings.DEBUG
    tag = f"{os.getpid()}-{time.time_ns()}"
    player = User.objects.create_user(f"bench-player-{tag}", f"p{tag}@example.org")
    watcher = User.objects.create_user(f"bench-watcher-{tag}", f"w{tag}@example.org")
    clients = {"player": Client(), "spectator": Client()}
    clients["player"].force_login(player)
    clients["spectator"].force_login(watcher)

    points: list[dict[str, Any]] = []
    wrk_match: Any = None
    lineups = {2: ["fighter"], 4: ["fighter", "miner", "random"]}
    for seats, bots in lineups.items():
        match = services.match_create(
            creator=player, seat_count=seats, turn_seconds=3600, length_ms=3_600_000, bots=bots
        )
        for target in sorted(args.turns):
            advance(match, player, target)
            for role, client in clients.items():
                url = f"/matches/{match.pk}/"
                point = {"seats": seats, "turn": match.turn_number, "viewer": role}
                point.update(measure(client, url, args.requests))
                points.append(point)
            if seats == 4 and (wrk_match is None or match.turn_number <= 20):
                wrk_match = (match.pk, match.turn_number)

    queries = {p["queries"] for p in points}
    cold_queries = {p["cold_queries"] for p in points}
    # Constant for each kind of viewer over turns and seat counts: a player's first
    # view of a turn also records that they looked (the "Your turn" email waits for
    # players who are away), which a spectator's does not.
    constant = all(
        len({(p["queries"], p["cold_queries"]) for p in points if p["viewer"] == role}) == 1
        for role in {p["viewer"] for p in points}
    )
    server_ms = max(p["server_ms_median"] for p in points)
    server_cpu_ms = max(p["server_cpu_ms_median"] for p in points)
    cold_ms = max(p["cold_server_ms_median"] for p in points)
    cold_cpu_ms = max(p["cold_server_cpu_ms_median"] for p in points)
    figures: dict[str, Any] = {
        "points": [
            {k: v for k, v in p.items() if not k.endswith("query_sql") and k[0] != "_"}
            for p in points
        ],
        # Every request of every point together: the goal's median.
        "server_ms_median": round(
            statistics.median(t for p in points for t in p["_times"]) * 1000, 3
        ),
        "cold_server_ms_median": round(
            statistics.median(t for p in points for t in p["_cold_times"]) * 1000, 3
        ),
        "queries_per_view": max(queries),
        "cold_queries_per_view": max(cold_queries),
        "cold_queries_by_viewer": {
            role: max(p["cold_queries"] for p in points if p["viewer"] == role)
            for role in sorted({p["viewer"] for p in points})
        },
        "queries_constant": constant,
        "query_sql": points[-1]["query_sql"],
        "cold_query_sql": points[-1]["cold_query_sql"],
        "server_ms_median_worst": server_ms,
        "server_cpu_ms_median_worst": server_cpu_ms,
        "cold_server_ms_median_worst": cold_ms,
        "cold_server_cpu_ms_median_worst": cold_cpu_ms,
        "html_bytes_max": max(p["html_bytes"] for p in points),
        "requests_per_point": args.requests,
    }

    throughput: dict[str, Any] = {"wrk": shutil.which("wrk") is not None}
    if throughput["wrk"] and args.wrk_seconds > 0:
        cookie = "; ".join(f"{k}={v.value}" for k, v in clients["player"].cookies.items())
        port = _support.free_port()
        with _support.gunicorn(env, workers=args.gunicorn_workers, port=port) as base:
            match_url = f"{base}/matches/{wrk_match[0]}/"
            health_url = f"{base}/healthz"
            # Warm every gunicorn worker up before counting.
            wrk(match_url, cookie, 1, args.wrk_connections)
            wrk(health_url, cookie, 1, args.wrk_connections)
            rounds: dict[str, list[dict[str, Any]]] = {"healthz": [], "match": []}
            for _ in range(args.wrk_rounds):
                rounds["healthz"].append(
                    wrk(health_url, cookie, args.wrk_seconds, args.wrk_connections)
                )
                rounds["match"].append(
                    wrk(match_url, cookie, args.wrk_seconds, args.wrk_connections)
                )
        health_rps = statistics.median(r["rps"] for r in rounds["healthz"])
        match_rps = statistics.median(r["rps"] for r in rounds["match"])
        throughput.update(
            {
                "match_turn": wrk_match[1],
                "gunicorn_workers": args.gunicorn_workers,
                "connections": args.wrk_connections,
                "seconds": args.wrk_seconds,
                "rounds": args.wrk_rounds,
                "healthz_rps_median": round(health_rps, 1),
                "match_rps_median": round(match_rps, 1),
                "ratio": round(match_rps / health_rps, 3) if health_rps else None,
                "match_p99_ms": [r["p99_ms"] for r in rounds["match"]],
                "non_2xx": sum(r["non_2xx"] for rs in rounds.values() for r in rs),
                "socket_errors": sorted(
                    {r["socket_errors"] for rs in rounds.values() for r in rs} - {""}
                ),
            }
        )
    figures["throughput"] = throughput
    ratio = throughput.get("ratio")
    figures["goals"] = {
        "server_ms_under_5": statistics.median(t for p in points for t in p["_times"]) * 1000
        < GOAL_MS,
        "queries_at_most_6": max(queries | cold_queries) <= GOAL_QUERIES,
        "throughput_ratio_at_least_0.25": None if ratio is None else ratio >= GOAL_RATIO,
    }
    line = (
        f"median server time {figures['server_ms_median']} ms (slowest point's median "
        f"{server_ms} ms; CPU up to {server_cpu_ms} ms), {max(queries)} queries per view; "
        f"first view after a change {figures['cold_server_ms_median']} ms (slowest "
        f"{cold_ms} ms; CPU up to {cold_cpu_ms} ms), {max(cold_queries)} queries "
        f"({'constant for each viewer' if constant else 'GROWS'} over turns {sorted(args.turns)} and 2/4 seats), "
        f"HTML up to {figures['html_bytes_max']} bytes"
    )
    if ratio is not None:
        line += (
            f"; wrk: match page {throughput['match_rps_median']} req/s vs /healthz "
            f"{throughput['healthz_rps_median']} req/s = {ratio}x"
        )
    else:
        line += "; wrk not run (not installed or --wrk-seconds 0)"
    _support.emit("board_page", figures, line)
    return 0 if constant else 1


if __name__ == "__main__":
    sys.exit(main())
