"""Scale: N concurrent matches with bots, driven through the real web for a while.

    python bench/scale.py --matches 1000 --minutes 10
    python bench/scale.py --matches 10 100 1000 --minutes 1     # how the figures grow

The whole production stack on this machine: gunicorn (`--gunicorn-workers`), a
Celery worker (`--worker-concurrency`, prefork) and one celery beat, PostgreSQL
and Redis, with production settings (DEBUG off). Each match has four seats: a
person in seat 1 and built-in bots (`--bot`) in the others, whose turns the worker
resolves at once. A load script plays the people over HTTP as their browsers do:
load the match page, then ask its poll (the page's `hx-get` on `#poll`) every
`--poll` seconds (+-50% jitter); when the poll says something changed, look at
the new content, loading the page if the orders form is not in it; when the form
is there, POST a pass and follow the redirect to the page. A page without a poll
is loaded again every `--refresh` seconds. A match moves as fast as its person
looks. `--clients` threads share the people; when the site falls behind, looks
start late and the schedule lag shows it. A match that ends is replaced.

It reports turns resolved per second (resolutions written in the window), board
page views, polls and POSTs per second, their latency (median, p90, p99), the time from a turn
accepted to the worker's claim, errors (any answer but 200/302, any exception,
any ERROR in the worker's log), and, for several --matches, how each grows. The
database is its own (`helium3_bench_scale_<pid>`) and is dropped at the end.
"""

from __future__ import annotations

import argparse
import heapq
import http.client
import os
import random
import re
import sys
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import _support  # noqa: E402

TURN_RE = re.compile(rb'name="turn"[^>]*value="(\d+)"|value="(\d+)"[^>]*name="turn"')
CSRF_RE = re.compile(rb'name="csrfmiddlewaretoken" value="([^"]+)"')
# The match page's poll (htmx): the URL it asks every few seconds.
POLL_RE = re.compile(rb'id="poll"[^>]*hx-get="([^"]+)"')


@dataclass
class Player:
    match_id: int
    session: str
    csrf_cookie: str = ""
    poll: str = ""


@dataclass
class Stats:
    views: list[float] = field(default_factory=list)
    polls: list[float] = field(default_factory=list)
    changed_polls: int = 0
    posts: list[float] = field(default_factory=list)
    lag: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    error_count: int = 0
    finished: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def error(self, what: str) -> None:
        with self.lock:
            self.error_count += 1
            if len(self.errors) < 10:
                self.errors.append(what)


def make_players(count: int, bot: str, tag: str) -> list[Player]:
    """`count` people, each with a session and a running match against three bots."""
    from importlib import import_module

    from django.conf import settings
    from django.contrib.auth.hashers import make_password
    from django.contrib.auth.models import User

    store = import_module(settings.SESSION_ENGINE).SessionStore
    # No email address while the matches are made: the setup's match-started and
    # first your-turn emails would queue thousands of tasks ahead of the first turn.
    users = User.objects.bulk_create(
        User(
            username=f"scale-{tag}-{i}",
            email="",
            password=make_password(None),
        )
        for i in range(count)
    )
    players: list[Player] = []
    for user in users:
        session = store()
        session["_auth_user_id"] = str(user.pk)
        session["_auth_user_backend"] = "django.contrib.auth.backends.ModelBackend"
        session["_auth_user_hash"] = user.get_session_auth_hash()
        session.create()
        players.append(Player(match_id=new_match(user, bot), session=session.session_key or ""))
    # From now on each turn of a person's brings them the your-turn email, as in use.
    for user in users:
        user.email = f"{user.username}@example.org"
    User.objects.bulk_update(users, ["email"])
    return players


def new_match(user: Any, bot: str) -> int:
    from games import services

    match = services.match_create(
        creator=user, seat_count=4, turn_seconds=24 * 3600, length_ms=3_600_000, bots=[bot] * 3
    )
    return int(match.pk)


def request(
    port: int, method: str, path: str, player: Player, body: bytes | None = None
) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    cookie = f"sessionid={player.session}"
    if player.csrf_cookie:
        cookie += f"; csrftoken={player.csrf_cookie}"
    headers = {"Cookie": cookie, "Host": "127.0.0.1"}
    if body is not None:
        headers["Content-Type"] = "application/x-www-form-urlencoded"
        headers["Referer"] = f"http://127.0.0.1:{port}{path}"
    try:
        conn.request(method, path, body=body, headers=headers)
        response = conn.getresponse()
        data = response.read()
        for name, value in response.getheaders():
            if name.lower() == "set-cookie" and value.startswith("csrftoken="):
                player.csrf_cookie = value.split(";", 1)[0].split("=", 1)[1]
        return response.status, dict(response.getheaders()), data
    finally:
        conn.close()


class Driver:
    """The people: a schedule of page views shared by `clients` threads."""

    def __init__(self, args: argparse.Namespace, players: list[Player], port: int, bot: str):
        self.args, self.players, self.port, self.bot = args, players, port, bot
        self.stats = Stats()
        self.rng = random.Random(0)
        self.heap: list[tuple[float, int]] = []
        self.cond = threading.Condition()
        self.requests = 0
        self.until = 0.0
        self.match_ids = [p.match_id for p in players]
        self.max_requests = args.max_requests

    def _next(self) -> tuple[float, int] | None:
        with self.cond:
            while True:
                now = time.monotonic()
                if now >= self.until or self.requests >= self.max_requests:
                    return None
                when, i = self.heap[0]
                if when <= now:
                    heapq.heappop(self.heap)
                    self.requests += 1
                    return when, i
                self.cond.wait(min(when, self.until) - now)

    def _schedule(self, i: int, delay: float) -> None:
        with self.cond:
            heapq.heappush(self.heap, (time.monotonic() + delay, i))
            self.cond.notify()

    def _view(self, player: Player) -> bytes | None:
        """The whole match page, as a browser loads it."""
        start = time.perf_counter()
        status, _, body = request(self.port, "GET", f"/matches/{player.match_id}/", player)
        self.stats.views.append(time.perf_counter() - start)
        if status != 200:
            self.stats.error(f"GET match {player.match_id}: {status}")
            return None
        found = POLL_RE.search(body)
        player.poll = found.group(1).decode().replace("&amp;", "&") if found else ""
        return body

    def _look(self, player: Player) -> bytes | None:
        """What the person's browser does next: ask the page's poll whether anything
        changed (304: nothing), or load the page when it has no poll. Returns the
        new content, or None when nothing changed."""
        if not player.poll:
            return self._view(player)
        start = time.perf_counter()
        status, _, body = request(self.port, "GET", player.poll, player)
        self.stats.polls.append(time.perf_counter() - start)
        if status == 304:
            return None
        if status != 200:
            self.stats.error(f"GET {player.poll}: {status}")
            player.poll = ""
            return None
        self.stats.changed_polls += 1
        found = POLL_RE.search(body)
        player.poll = found.group(1).decode().replace("&amp;", "&") if found else ""
        if TURN_RE.search(body) is None:
            # The fragments may not carry the form: load the page to see it.
            return self._view(player)
        return body

    def _delay(self, player: Player) -> float:
        period = self.args.poll if player.poll else self.args.refresh
        return period * self.rng.uniform(0.5, 1.5)

    def _visit(self, i: int) -> float:
        """One look (and orders when it is the person's turn); returns the delay until
        the next look."""
        player = self.players[i]
        body = self._look(player)
        if body is None:
            return self._delay(player)
        found = TURN_RE.search(body)
        if found is None:
            if not player.poll and self._over(player):
                self._replace(player)
                return self.rng.uniform(0, 1)
            return self._delay(player)
        turn = (found.group(1) or found.group(2)).decode()
        csrf = CSRF_RE.search(body)
        form = {"turn": turn, "actions_json": "[]"}
        if csrf:
            form["csrfmiddlewaretoken"] = csrf.group(1).decode()
        start = time.perf_counter()
        status, _, _ = request(
            self.port,
            "POST",
            f"/matches/{player.match_id}/orders/",
            player,
            urllib.parse.urlencode(form).encode(),
        )
        self.stats.posts.append(time.perf_counter() - start)
        if status != 302:
            self.stats.error(f"POST orders match {player.match_id} turn {turn}: {status}")
            return self._delay(player)
        # A browser follows the redirect to the page.
        self._view(player)
        return self._delay(player)

    def _over(self, player: Player) -> bool:
        from django.db import connection

        from games.models import Match

        over = Match.objects.filter(pk=player.match_id, status=Match.Status.FINISHED).exists()
        connection.close()
        return over

    def _replace(self, player: Player) -> None:
        from django.contrib.auth.models import User
        from django.db import connection

        from games.models import Seat

        user = User.objects.get(pk=Seat.objects.get(match_id=player.match_id, number=1).user_id)
        player.match_id = new_match(user, self.bot)
        self.match_ids.append(player.match_id)
        connection.close()
        with self.stats.lock:
            self.stats.finished += 1

    def _loop(self) -> None:
        while True:
            job = self._next()
            if job is None:
                return
            when, i = job
            self.stats.lag.append(max(0.0, time.monotonic() - when))
            try:
                delay = self._visit(i)
            except Exception as error:  # noqa: BLE001 - every failure is counted and shown
                self.stats.error(f"{type(error).__name__}: {error}")
                delay = self._delay(self.players[i])
            self._schedule(i, delay)

    def run(self) -> float:
        threads = [
            threading.Thread(target=self._loop, daemon=True) for _ in range(self.args.clients)
        ]
        start = time.monotonic()
        for i in range(len(self.players)):
            # Spread the first looks over one refresh period.
            heapq.heappush(self.heap, (start + self.rng.uniform(0, self.args.refresh), i))
        self.until = start + self.args.seconds
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(self.args.seconds + 120)
        return time.monotonic() - start


def run_one(args: argparse.Namespace, env: dict[str, str], matches: int) -> dict[str, Any]:
    from django.db import connections

    from games.models import Match, Resolution, Turn

    _support.purge_queue(env)
    tag = f"{os.getpid()}-{matches}-{time.time_ns()}"
    setup = time.perf_counter()
    players = make_players(matches, args.bot, tag)
    setup_s = time.perf_counter() - setup
    connections.close_all()
    port = _support.free_port()
    clients = min(args.clients, matches)
    driver = Driver(
        argparse.Namespace(**{**vars(args), "clients": clients}), players, port, args.bot
    )
    with (
        _support.celery_worker(env, concurrency=args.worker_concurrency) as worker_log,
        _support.celery_beat(env),
        _support.gunicorn(env, workers=args.gunicorn_workers, port=port),
    ):
        t0 = datetime.now(UTC)
        elapsed = driver.run()
        t1 = datetime.now(UTC)
    worker_errors = _support.log_errors(worker_log)
    ids = driver.match_ids
    resolved = Resolution.objects.filter(
        match_id__in=ids, created_at__gte=t0, created_at__lt=t1
    ).count()
    waits = [
        (t.resolved_at - t.accepted_at).total_seconds()
        for t in Turn.objects.filter(
            match_id__in=ids, accepted_at__gte=t0, accepted_at__lt=t1, resolved_at__isnull=False
        ).only("accepted_at", "resolved_at")
    ]
    backlog = Turn.objects.filter(match_id__in=ids, status=Turn.Status.ACCEPTED).count()
    running = Match.objects.filter(pk__in=ids, status=Match.Status.RUNNING).count()
    connections.close_all()
    stats = driver.stats
    return {
        "matches": matches,
        "seconds": round(elapsed, 1),
        "setup_s": round(setup_s, 1),
        "clients": clients,
        "refresh_s": args.refresh,
        "turns_resolved_per_s": round(resolved / elapsed, 1),
        "board_views_per_s": round(len(stats.views) / elapsed, 1),
        "posts_per_s": round(len(stats.posts) / elapsed, 1),
        "view_ms": _support.percentiles(stats.views),
        "post_ms": _support.percentiles(stats.posts),
        "schedule_lag_ms": _support.percentiles(stats.lag),
        "accepted_to_claim_ms": _support.percentiles(waits),
        "turns_resolved": resolved,
        "board_views": len(stats.views),
        "polls_per_s": round(len(stats.polls) / elapsed, 1),
        "polls_changed": stats.changed_polls,
        "poll_ms": _support.percentiles(stats.polls),
        "accepted_backlog_at_end": backlog,
        "matches_finished_and_replaced": stats.finished,
        "matches_running_at_end": running,
        "errors": stats.error_count + len(worker_errors),
        "error_samples": stats.errors + worker_errors[:5],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, nargs="+", default=[10, 100])
    parser.add_argument("--minutes", type=float, default=1.0)
    parser.add_argument("--seconds", type=float, help="overrides --minutes")
    parser.add_argument(
        "--refresh", type=float, default=15.0, help="seconds between page loads without a poll"
    )
    parser.add_argument("--poll", type=float, default=3.0, help="seconds between polls")
    parser.add_argument("--clients", type=int, default=32, help="load threads")
    parser.add_argument("--bot", default="random")
    parser.add_argument("--gunicorn-workers", type=int, default=3)
    parser.add_argument("--worker-concurrency", type=int, default=2)
    parser.add_argument("--max-requests", type=int, default=2_000_000)
    parser.add_argument("--database", help="default: helium3_bench_scale_<pid>")
    parser.add_argument("--keep", action="store_true", help="keep the database")
    args = parser.parse_args(argv)
    if args.seconds is None:
        args.seconds = args.minutes * 60

    missing = _support.services_up()
    if missing:
        print(f"scale: skipped, {missing}", file=sys.stderr)
        return 2
    # One database and one queue for this invocation, dropped at the end.
    database = args.database or f"helium3_bench_scale_{os.getpid()}"
    env = _support.site_env(database, f"bench-scale-{os.getpid()}")
    env["CLOCK_SWEEP_SECONDS"] = "15"
    _support.prepare_database(env)
    _support.use_env(env)
    try:
        runs = [run_one(args, env, n) for n in args.matches]
    finally:
        _support.purge_queue(env)
        from django.db import connections

        connections.close_all()
        if not args.keep:
            _support.drop_database(database)
    figures: dict[str, Any] = {"runs": runs}
    if len(runs) > 1:
        base = runs[0]
        figures["growth_vs_first"] = [
            {
                "matches": r["matches"],
                "x_matches": round(r["matches"] / base["matches"], 1),
                "x_turns_per_s": round(r["turns_resolved_per_s"] / base["turns_resolved_per_s"], 2)
                if base["turns_resolved_per_s"]
                else None,
                "x_views_per_s": round(r["board_views_per_s"] / base["board_views_per_s"], 2)
                if base["board_views_per_s"]
                else None,
            }
            for r in runs
        ]
    line = "; ".join(
        f"{r['matches']} matches for {r['seconds']} s: {r['turns_resolved_per_s']} turns/s, "
        f"{r['board_views_per_s']} views/s, view p99 {r['view_ms']['p99']} ms, "
        f"post p99 {r['post_ms']['p99']} ms, {r['errors']} errors"
        for r in runs
    )
    _support.emit("scale", figures, line)
    return 0 if all(r["errors"] == 0 for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
