"""The match page (the board): server time, SQL queries, HTML size, and throughput
under wrk against gunicorn as a ratio to the trivial `/healthz` in the same run.

    python bench/board_page.py [--ruleset helium3 helium3-remake] [--requests 200]
        [--wrk-seconds 10] [--wrk-connections 16]

Production settings (DEBUG off) on this machine's PostgreSQL, in a database of its
own (`helium3_bench` unless --database). For each game of `--ruleset` (Helium 3
unless told; several are measured in one run) it plays a two-seat and a four-seat
match (a person in seat 1, built-in bots in the others, but for the remake's two-seat
match: see LINEUPS; the worker's part is done in-process here) to turns 0, 20 and 80,
and at each point requests the page as the
player and as a spectator through Django's whole stack in this process (middleware,
session, template; the database round trips included): the median wall time and
this thread's CPU time of `--requests` views of the unchanged page (served by the
page cache) and of a quarter as many first views after a change (what a resolved
turn makes stale emptied before each: the pages, the boards, the "seen" memo; the
viewer's session stays remembered, as it does over a turn), and the queries one
request of each kind makes, and those of a first view whose session is not
remembered either (`cold_session_queries`); from turn 1 on, the same for the poll
that brings a turn (a page of the turn before asking, as a first view after a
change). The page's query counts must
be the same at every point of a game: the script exits with status 1 if one grows
with turns or robots. Then gunicorn (`--gunicorn-workers`) serves each game's
four-seat match, at the last turn measured (80 unless --turns), to wrk, in rounds of `/healthz`
and each game's page (each round in another order), and the ratio of the medians
is each game's figure; the CPU time the gunicorn processes spend per request gives
the same ratio (`cpu_ratio`) with much less of the noise of other work on the machine.
Goals: a view of an unchanged page in at most 1 ms, a first view after a change in at
most 5 ms and 4 queries, at least 0.6x the trivial view's throughput.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import _support  # noqa: E402

TURNS = (0, 20, 80)
GOAL_MS, GOAL_COLD_MS, GOAL_QUERIES, GOAL_RATIO = 1.0, 5.0, 4, 0.6
# Each game's built-in bots for the seats after the person's, by seat count ("" is a
# second person, who passes too), and its options. The remake ends after its rounds
# (one turn per seat each), so it is given the most it allows; its bots eliminate a
# person who only passes long before turn 80 at two seats, so there the person
# faces another person.
LINEUPS: dict[str, dict[int, list[str]]] = {
    "helium3": {2: ["fighter"], 4: ["fighter", "miner", "random"]},
    "helium3-remake": {2: [""], 4: ["prospector", "random", "prospector"]},
}
OPTIONS: dict[str, dict[str, Any]] = {"helium3": {}, "helium3-remake": {"rounds": 100}}
# A match that ends before the last turn measured (its seed is the site's, drawn at
# random) is played again from a new one, this many times at most.
ATTEMPTS = 5


def advance(match: Any, target: int) -> None:
    """Play the match on to turn `target`: the people pass, the bots move, and each
    accepted turn is resolved here as the worker would."""
    import engine
    from games import services
    from games.models import Match, Seat, Turn

    while match.turn_number < target and match.status == Match.Status.RUNNING:
        turn = Turn.objects.get(match=match, number=match.turn_number)
        if turn.status == Turn.Status.WAITING:
            awaited = engine.awaiting(match.state)
            people = Seat.objects.filter(match=match, number__in=awaited, user__isnull=False)
            for seat in people.select_related("user"):
                assert seat.user is not None
                services.orders_submit(
                    match_id=match.pk, user=seat.user, turn=turn.number, actions=[]
                )
        services.turn_resolve(match_id=match.pk, number=turn.number)
        match.refresh_from_db()


def _clear(caches: Any, client: Any, *, sessions: bool = False) -> None:
    """A first view after a change (a resolved turn): neither the page nor anything the
    page caches for a turn (the board's own cache is in the default one, the "seen"
    memo in the pages') is there yet, nor the page's version (the turn's ring makes
    the process forget those: games/push/kept.py). The viewer's session stays
    remembered (games/viewers.py), as it does when a turn is resolved, unless
    `sessions`: then this is also the first request of the session for VIEWER_SECONDS."""
    from games import viewers
    from games.push import kept as kept_versions

    kept_versions.forget()

    kept: dict[str, Any] = {}
    cookie = client.cookies.get("sessionid")
    if cookie is not None and not sessions:
        key = viewers._memo_key(cookie.value)
        kept = {key: caches["pages"].get(key)} if caches["pages"].get(key) else {}
    caches["pages"].clear()
    caches["default"].clear()
    if kept:
        caches["pages"].set_many(kept, viewers.VIEWER_SECONDS)


def _timed(client: Any, url: str, requests: int, cold: bool) -> tuple[list[float], list[float]]:
    from django.core.cache import caches

    times: list[float] = []
    cpu: list[float] = []
    for _ in range(requests):
        if cold:
            _clear(caches, client)
        start, start_cpu = time.perf_counter(), time.thread_time()
        client.get(url)
        cpu.append(time.thread_time() - start_cpu)
        times.append(time.perf_counter() - start)
    return times, cpu


def _queries(
    client: Any, url: str, cold: bool, sessions: bool = False
) -> tuple[list[dict[str, Any]], Any]:
    from django.core.cache import caches
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    if cold:
        _clear(caches, client, sessions=sessions)
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200, response.status_code
    # captured_queries reads the connection's log when asked, and the next request
    # clears that log: copy it now.
    return list(queries.captured_queries), response


def measure(client: Any, url: str, requests: int, turn: int = 0) -> dict[str, Any]:
    """A view of an unchanged page (warm: the page cache has it), a first view after a
    change (cold: the cache emptied before each request), and from turn 1 on the
    poll that brings a turn (a page of the turn before asking, as cold)."""
    fresh_captured, _ = _queries(client, url, cold=True, sessions=True)
    cold_captured, _ = _queries(client, url, cold=True)
    captured, response = _queries(client, url, cold=False)
    times, cpu = _timed(client, url, requests, cold=False)
    cold_times, cold_cpu = _timed(client, url, max(1, requests // 4), cold=True)
    ms = 1000
    poll: dict[str, Any] = {}
    if turn > 0:
        # What a page showing turn - 1 asks once the turn is resolved: its token is
        # stale and the answer plays the turn as a movie.
        poll_url = f"{url}poll/?v=stale&since={turn - 1}"
        poll_captured, _ = _queries(client, poll_url, cold=True)
        poll_times, poll_cpu = _timed(client, poll_url, max(1, requests // 4), cold=True)
        poll = {
            "poll_server_ms_median": round(statistics.median(poll_times) * ms, 3),
            "poll_server_cpu_ms_median": round(statistics.median(poll_cpu) * ms, 3),
            "poll_queries": len(poll_captured),
        }
    return {
        **poll,
        "server_ms_median": round(statistics.median(times) * ms, 3),
        # This thread's CPU only: what the page costs in Python, whatever else the
        # machine runs (the database's side is not in it).
        "server_cpu_ms_median": round(statistics.median(cpu) * ms, 3),
        "queries": len(captured),
        "cold_server_ms_median": round(statistics.median(cold_times) * ms, 3),
        "cold_server_cpu_ms_median": round(statistics.median(cold_cpu) * ms, 3),
        "cold_queries": len(cold_captured),
        # The same with the session not remembered (its first request in
        # VIEWER_SECONDS): the session and the user on top.
        "cold_session_queries": len(fresh_captured),
        "query_sql": [q["sql"][:120] for q in captured],
        "cold_query_sql": [q["sql"][:120] for q in cold_captured],
        "html_bytes": len(response.content),
        "_times": times,
        "_cold_times": cold_times,
    }


WRK_RPS = re.compile(r"Requests/sec:\s+([\d.]+)")
WRK_BAD = re.compile(r"Non-2xx or 3xx responses:\s+(\d+)")
WRK_ERR = re.compile(r"Socket errors:.*")
WRK_REQUESTS = re.compile(r"(\d+) requests in")


def _descendants(pid: int) -> list[int]:
    """The processes started by `pid` and by them (Linux's /proc; none elsewhere)."""
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children") as f:
                children = [int(c) for c in f.read().split()]
        except OSError:
            continue
        for child in children:
            found += [child, *_descendants(child)]
    return found


def _cpu_seconds(pids: list[int]) -> float:
    """User and system CPU time of `pids` (those still running)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / ticks
    return total


def wrk(url: str, cookie: str, seconds: int, connections: int) -> dict[str, Any]:
    """One wrk run, and the CPU time gunicorn (this process's other children) spent per
    request during it: unlike requests per second, that hardly moves with what else
    the machine runs."""
    server = _descendants(os.getpid())
    cpu_before = _cpu_seconds(server)
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
    cpu = _cpu_seconds(server) - cpu_before
    requests = WRK_REQUESTS.search(out)
    count = int(requests.group(1)) if requests else 0
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
        "cpu_ms_per_request": round(cpu * 1000 / count, 3) if server and count else None,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--ruleset", nargs="+", choices=sorted(LINEUPS), default=["helium3"], dest="rulesets"
    )
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


def play_points(
    ruleset: str, args: argparse.Namespace, people: list[Any], clients: dict[str, Any]
) -> tuple[list[dict[str, Any]], tuple[int, int], int]:
    """Every point of one game, its four-seat match (at the last turn measured) for
    wrk, and how many matches ended too early."""
    points: list[dict[str, Any]] = []
    wrk_match: tuple[int, int] | None = None
    ended_early = 0
    for seats, bots in LINEUPS[ruleset].items():
        for _ in range(ATTEMPTS):
            played = play_match(ruleset, seats, bots, args, people, clients)
            if played is not None:
                break
            ended_early += 1
        else:
            raise SystemExit(
                f"board_page: {ATTEMPTS} {ruleset} matches of {seats} seats all ended "
                f"before turn {max(args.turns)}"
            )
        match_id, match_points = played
        points.extend(match_points)
        if seats == 4:
            # The match stays where the last point left it.
            wrk_match = (match_id, match_points[-1]["turn"])
    assert wrk_match is not None
    return points, wrk_match, ended_early


def play_match(
    ruleset: str,
    seats: int,
    bots: list[str],
    args: argparse.Namespace,
    people: list[Any],
    clients: dict[str, Any],
) -> tuple[int, list[dict[str, Any]]] | None:
    """One match played to each turn of `--turns` and measured there; None if it
    ended before the last."""
    from games import services
    from games.models import Match

    match = services.match_create(
        creator=people[0],
        seat_count=seats,
        turn_seconds=3600,
        length_ms=3_600_000,
        bots=bots,
        ruleset=ruleset,
        options=OPTIONS[ruleset],
    )
    if not all(bots):
        services.seat_join(match_id=match.pk, user=people[1])
        match.refresh_from_db()
    points: list[dict[str, Any]] = []
    for target in sorted(args.turns):
        advance(match, target)
        if match.status != Match.Status.RUNNING:
            return None
        for role, client in clients.items():
            url = f"/matches/{match.pk}/"
            point = {"ruleset": ruleset, "seats": seats, "turn": match.turn_number, "viewer": role}
            point.update(measure(client, url, args.requests, match.turn_number))
            points.append(point)
    return match.pk, points


def summary(points: list[dict[str, Any]]) -> dict[str, Any]:
    """One game's figures from its points."""
    queries = {p["queries"] for p in points}
    cold_queries = {p["cold_queries"] for p in points}
    viewers = sorted({p["viewer"] for p in points})
    return {
        # Every request of every point together: the goal's median.
        "server_ms_median": round(
            statistics.median(t for p in points for t in p["_times"]) * 1000, 3
        ),
        "cold_server_ms_median": round(
            statistics.median(t for p in points for t in p["_cold_times"]) * 1000, 3
        ),
        "queries_per_view": max(queries),
        "cold_queries_per_view": max(cold_queries),
        "cold_session_queries_per_view": max(p["cold_session_queries"] for p in points),
        "cold_queries_by_viewer": {
            role: max(p["cold_queries"] for p in points if p["viewer"] == role) for role in viewers
        },
        # Constant for each kind of viewer over turns and seat counts: a player's
        # first view of a turn also records that they looked (the "Your turn" email
        # waits for players who are away), which a spectator's does not.
        "queries_constant": all(
            len({(p["queries"], p["cold_queries"]) for p in points if p["viewer"] == role}) == 1
            for role in viewers
        ),
        "query_sql": points[-1]["query_sql"],
        "cold_query_sql": points[-1]["cold_query_sql"],
        "server_ms_median_worst": max(p["server_ms_median"] for p in points),
        "server_cpu_ms_median_worst": max(p["server_cpu_ms_median"] for p in points),
        "cold_server_ms_median_worst": max(p["cold_server_ms_median"] for p in points),
        "cold_server_cpu_ms_median_worst": max(p["cold_server_cpu_ms_median"] for p in points),
        "html_bytes_max": max(p["html_bytes"] for p in points),
        # The poll that brings a turn (points after turn 0), the worst point's median.
        "poll_server_cpu_ms_median_worst": max(
            (p["poll_server_cpu_ms_median"] for p in points if "poll_queries" in p), default=None
        ),
        "poll_queries_by_viewer": {
            role: max(
                (p["poll_queries"] for p in points if p["viewer"] == role and "poll_queries" in p),
                default=None,
            )
            for role in viewers
        },
    }


def throughput_of(
    args: argparse.Namespace,
    env: dict[str, str],
    cookie: str,
    wrk_matches: dict[str, tuple[int, int]],
) -> dict[str, Any]:
    """wrk against gunicorn: rounds of `/healthz` and each game's page, so that every
    game's ratio comes from the same rounds of the trivial view."""
    throughput: dict[str, Any] = {"wrk": shutil.which("wrk") is not None}
    if not throughput["wrk"] or args.wrk_seconds <= 0:
        return throughput
    port = _support.free_port()
    with _support.gunicorn(env, workers=args.gunicorn_workers, port=port) as base:
        urls = {"healthz": f"{base}/healthz"}
        urls.update({name: f"{base}/matches/{pk}/" for name, (pk, _) in wrk_matches.items()})
        # Warm every gunicorn worker up on every page before counting.
        warm_up(base, [url.removeprefix(base) for url in urls.values()], cookie, args)
        rounds: dict[str, list[dict[str, Any]]] = {name: [] for name in urls}
        names = list(urls)
        for number in range(args.wrk_rounds):
            # Each round starts one further along, so that no page is always measured
            # last, when a load that builds up on this shared machine weighs most.
            shift = number % len(names)
            for name in names[shift:] + names[:shift]:
                rounds[name].append(wrk(urls[name], cookie, args.wrk_seconds, args.wrk_connections))
    health_rps = statistics.median(r["rps"] for r in rounds["healthz"])
    health_cpu = _median_cpu(rounds["healthz"])
    by_ruleset = {}
    for name, (_, turn) in wrk_matches.items():
        match_rps = statistics.median(r["rps"] for r in rounds[name])
        match_cpu = _median_cpu(rounds[name])
        by_ruleset[name] = {
            "match_turn": turn,
            "match_rps_median": round(match_rps, 1),
            "ratio": round(match_rps / health_rps, 3) if health_rps else None,
            "match_rps": [r["rps"] for r in rounds[name]],
            # Each round's page against the same round's /healthz: a load that drifts
            # over the run weighs on both sides alike.
            "ratio_by_round": [
                round(m["rps"] / h["rps"], 3) if h["rps"] else None
                for m, h in zip(rounds[name], rounds["healthz"], strict=True)
            ],
            "match_p99_ms": [r["p99_ms"] for r in rounds[name]],
            "cpu_ms_per_request": [r["cpu_ms_per_request"] for r in rounds[name]],
            "cpu_ms_per_request_median": match_cpu,
            # The throughput ratio if gunicorn's CPU were all a request cost (the
            # database's and Redis's share is not in it).
            "cpu_ratio": round(health_cpu / match_cpu, 3) if health_cpu and match_cpu else None,
        }
    throughput.update(
        {
            "gunicorn_workers": args.gunicorn_workers,
            "connections": args.wrk_connections,
            "seconds": args.wrk_seconds,
            "rounds": args.wrk_rounds,
            "healthz_rps_median": round(health_rps, 1),
            "healthz_rps": [r["rps"] for r in rounds["healthz"]],
            "healthz_cpu_ms_per_request_median": health_cpu,
            "by_ruleset": by_ruleset,
            "non_2xx": sum(r["non_2xx"] for rs in rounds.values() for r in rs),
            "socket_errors": sorted(
                {r["socket_errors"] for rs in rounds.values() for r in rs} - {""}
            ),
        }
    )
    return throughput


def warm_up(base: str, paths: list[str], cookie: str, args: argparse.Namespace) -> None:
    """One wrk second over all the paths in turn (each connection asks them one after
    the other), rather than a second each: every gunicorn worker has served each page
    before the rounds are counted."""
    listed = ", ".join(json.dumps(path) for path in paths)
    script = (
        f"local paths = {{{listed}}}\n"
        "local i = 0\n"
        "request = function()\n"
        "  i = i % #paths + 1\n"
        "  return wrk.format(nil, paths[i])\n"
        "end\n"
    )
    with tempfile.NamedTemporaryFile("w", suffix=".lua") as lua:
        lua.write(script)
        lua.flush()
        subprocess.run(
            ["wrk", "-t2", f"-c{args.wrk_connections}", "-d1s", "--timeout", "10s",
             "-H", f"Cookie: {cookie}", "-s", lua.name, base],
            capture_output=True,
            check=True,
            timeout=60,
        )  # fmt: skip


def _median_cpu(rounds: list[dict[str, Any]]) -> float | None:
    known = [r["cpu_ms_per_request"] for r in rounds if r["cpu_ms_per_request"] is not None]
    return round(statistics.median(known), 3) if known else None


def run(args: argparse.Namespace, env: dict[str, str]) -> int:
    from django.conf import settings
    from django.contrib.auth.models import User
    from django.test import Client

    assert not settings.DEBUG
    # "machine" gives the load at the end; on a shared machine it varies during a run.
    load_at_start = os.getloadavg()[0]
    tag = f"{os.getpid()}-{time.time_ns()}"
    player = User.objects.create_user(f"bench-player-{tag}", f"p{tag}@example.org")
    rival = User.objects.create_user(f"bench-rival-{tag}", f"r{tag}@example.org")
    watcher = User.objects.create_user(f"bench-watcher-{tag}", f"w{tag}@example.org")
    clients = {"player": Client(), "spectator": Client()}
    clients["player"].force_login(player)
    clients["spectator"].force_login(watcher)

    rulesets = list(dict.fromkeys(args.rulesets))
    points: list[dict[str, Any]] = []
    wrk_matches: dict[str, tuple[int, int]] = {}
    ended_early: dict[str, int] = {}
    for ruleset in rulesets:
        played, wrk_matches[ruleset], ended_early[ruleset] = play_points(
            ruleset, args, [player, rival], clients
        )
        points.extend(played)
    games = {name: summary([p for p in points if p["ruleset"] == name]) for name in rulesets}
    cookie = "; ".join(f"{k}={v.value}" for k, v in clients["player"].cookies.items())
    throughput = throughput_of(args, env, cookie, wrk_matches)
    for name, game in games.items():
        ratio = throughput.get("by_ruleset", {}).get(name, {}).get("ratio")
        game["goals"] = {
            "server_ms_at_most_1": game["server_ms_median"] <= GOAL_MS,
            "cold_server_ms_at_most_5": game["cold_server_ms_median"] <= GOAL_COLD_MS,
            "queries_at_most_4": max(game["queries_per_view"], game["cold_queries_per_view"])
            <= GOAL_QUERIES,
            "throughput_ratio_at_least_0.6": None if ratio is None else ratio >= GOAL_RATIO,
        }
    constant = all(game["queries_constant"] for game in games.values())
    figures: dict[str, Any] = {
        "rulesets": rulesets,
        "points": [
            {k: v for k, v in p.items() if not k.endswith("query_sql") and k[0] != "_"}
            for p in points
        ],
        "queries_constant": constant,
        "matches_ended_early": ended_early,
        "by_ruleset": games,
        "throughput": throughput,
        "requests_per_point": args.requests,
        "loadavg_1m_at_start": round(load_at_start, 2),
    }
    parts = []
    for name, game in games.items():
        part = (
            f"{name}: median server time {game['server_ms_median']} ms (slowest point's "
            f"median {game['server_ms_median_worst']} ms; CPU up to "
            f"{game['server_cpu_ms_median_worst']} ms), {game['queries_per_view']} queries "
            f"per view; first view after a change {game['cold_server_ms_median']} ms "
            f"(slowest {game['cold_server_ms_median_worst']} ms; CPU up to "
            f"{game['cold_server_cpu_ms_median_worst']} ms), {game['cold_queries_per_view']} "
            f"queries by viewer {game['cold_queries_by_viewer']} "
            f"({game['cold_session_queries_per_view']} with the session looked up) "
            f"({'constant for each viewer' if game['queries_constant'] else 'GROWS'} "
            f"over turns {sorted(args.turns)} and 2/4 seats), HTML up to "
            f"{game['html_bytes_max']} bytes"
        )
        wrk_game = throughput.get("by_ruleset", {}).get(name)
        if wrk_game is not None:
            part += (
                f"; wrk: match page {wrk_game['match_rps_median']} req/s vs /healthz "
                f"{throughput['healthz_rps_median']} req/s = {wrk_game['ratio']}x; gunicorn "
                f"CPU per request {wrk_game['cpu_ms_per_request_median']} ms vs "
                f"{throughput['healthz_cpu_ms_per_request_median']} ms = {wrk_game['cpu_ratio']}x"
            )
        else:
            part += "; wrk not run (not installed or --wrk-seconds 0)"
        parts.append(part)
    _support.emit("board_page", figures, " | ".join(parts))
    return 0 if constant else 1


if __name__ == "__main__":
    sys.exit(main())
