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

Correspondence pace and the push channel:

    python bench/scale.py --matches 10000 --visit 60 --push-pages 2000 --minutes 5

`--visit S`: each person comes back every S seconds (+-50%) instead of polling:
loads the match page, POSTs a pass when the form is there and follows the
redirect, and leaves (60 s: each match a turn a minute). `--push-pages N`: N open
pages per push process (`--streams` uvicorn processes serving helium3_site.asgi),
each an SSE connection to /push/ as its person, which never polls: on each `turn`
event it asks its poll once, as site.js does. The doorbell is a redis-server of the
run's own, so no other Redis traffic is timed; this script subscribes to it too,
and each event's fan-out time runs from the ring heard here (the commit's) to the
page receiving the `turn` event.

`--workers 1 2 --webs 1 2`: the runs are repeated with that many Celery worker
instances (each `--worker-concurrency` processes) and gunicorn instances (each
`--gunicorn-workers` processes; the people are spread over them as a proxy would),
as separate hosts would run them.

For every run: the CPU time of each kind of process (web, worker, beat, push, the
bell's Redis, the PostgreSQL backends of the benchmark's database, the server's
shared PostgreSQL processes, this load script) per resolved turn and as a share of
the machine, from /proc/<pid>/stat (utime + stime, and the children a process
reaped), sampled each second; and PostgreSQL's backends of the benchmark's
database from pg_stat_activity each second: how many were active, waiting on a
lock (heavyweight: rows, tables), on an LWLock, on I/O.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import heapq
import http.client
import json
import os
import random
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
from collections.abc import Iterator
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
CLK_TCK = os.sysconf("SC_CLK_TCK")
KINDS = ("web", "worker", "beat", "push", "bell_redis", "postgres", "postgres_shared", "load")


@dataclass
class Player:
    match_id: int
    session: str
    csrf_cookie: str = ""
    poll: str = ""
    port: int = 0


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

    def __init__(self, args: argparse.Namespace, players: list[Player], bot: str):
        self.args, self.players, self.bot = args, players, bot
        self.stats = Stats()
        self.rng = random.Random(0)
        self.heap: list[tuple[float, int]] = []
        self.cond = threading.Condition()
        self.requests = 0
        self.until = 0.0
        self.match_ids = [p.match_id for p in players]
        self.max_requests = args.max_requests
        # Correspondence pace: a visit every `visit` seconds, no poll in between.
        self.visit: float | None = args.visit

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
        status, _, body = request(player.port, "GET", f"/matches/{player.match_id}/", player)
        self.stats.views.append(time.perf_counter() - start)
        if status != 200:
            self.stats.error(f"GET match {player.match_id}: {status}")
            return None
        found = POLL_RE.search(body) if self.visit is None else None
        player.poll = found.group(1).decode().replace("&amp;", "&") if found else ""
        return body

    def _look(self, player: Player) -> bytes | None:
        """What the person's browser does next: ask the page's poll whether anything
        changed (304: nothing), or load the page when it has no poll. Returns the
        new content, or None when nothing changed."""
        if not player.poll:
            return self._view(player)
        start = time.perf_counter()
        status, _, body = request(player.port, "GET", player.poll, player)
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
        if self.visit is not None:
            return self.visit * self.rng.uniform(0.5, 1.5)
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
            player.port,
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
        spread = self.visit if self.visit is not None else self.args.refresh
        for i in range(len(self.players)):
            # Spread the first looks over one period.
            heapq.heappush(self.heap, (start + self.rng.uniform(0, spread), i))
        self.until = start + self.args.seconds
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(self.args.seconds + 120)
        return time.monotonic() - start


# -- The push channel: open pages as SSE connections to /push/ ----------------------


@dataclass
class PushStats:
    pages: int = 0
    connected: int = 0
    connect_failures: int = 0
    dropped: int = 0
    connect_s: float = 0.0
    events: int = 0
    fanout: list[float] = field(default_factory=list)
    unrung: int = 0  # events with no ring heard first (a sweep's, or the ring heard late)
    follow_polls: list[float] = field(default_factory=list)
    follow_errors: list[str] = field(default_factory=list)
    rings: int = 0
    measuring: bool = False


class PushPages:
    """`pages` open pages per push process, each an SSE connection to /push/ as its
    person, on one event loop in a thread of its own; and a subscriber of the bell's
    Redis on another thread, which notes when each match's ring is heard."""

    def __init__(
        self, players: list[Player], stream_ports: list[int], pages: int, bell_url: str
    ) -> None:
        self.players, self.stream_ports, self.pages = players, stream_ports, pages
        self.bell_url = bell_url
        self.stats = PushStats(pages=pages * len(stream_ports))
        self.rings: dict[int, float] = {}  # match id -> the last ring heard (monotonic)
        self.stop = threading.Event()
        self.loop = asyncio.new_event_loop()
        self.ready = threading.Event()
        self.follows: set[asyncio.Task[None]] = set()
        self.threads = [
            threading.Thread(target=self._listen_bell, daemon=True),
            threading.Thread(target=self._run_loop, daemon=True),
        ]

    def __enter__(self) -> PushPages:
        for thread in self.threads:
            thread.start()
        if not self.ready.wait(300):
            raise RuntimeError("push pages did not connect within 300 s")
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.loop.call_soon_threadsafe(lambda: None)
        for thread in self.threads:
            thread.join(30)

    def _listen_bell(self) -> None:
        import redis

        client = redis.Redis.from_url(self.bell_url)
        pubsub = client.pubsub(ignore_subscribe_messages=True)
        pubsub.subscribe("h3:push")  # games/push/bell.py's CHANNEL
        try:
            while not self.stop.is_set():
                message = pubsub.get_message(timeout=0.5)
                if message is not None:
                    self.rings[int(message["data"])] = time.monotonic()
                    self.stats.rings += 1
        finally:
            pubsub.close()
            client.close()

    def _run_loop(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_until_complete(self._main())
        self.loop.close()

    async def _main(self) -> None:
        gate = asyncio.Semaphore(100)  # connections being opened at once
        start = time.monotonic()
        tasks = []
        for s, port in enumerate(self.stream_ports):
            for j in range(self.pages):
                player = self.players[(s * self.pages + j) % len(self.players)]
                tasks.append(asyncio.create_task(self._page(port, player, gate)))
        total = len(tasks)
        while self.stats.connected + self.stats.connect_failures < total:
            await asyncio.sleep(0.05)
        self.stats.connect_s = round(time.monotonic() - start, 2)
        self.ready.set()
        while not self.stop.is_set():
            await asyncio.sleep(0.2)
        for task in [*tasks, *self.follows]:
            task.cancel()
        await asyncio.gather(*tasks, *self.follows, return_exceptions=True)

    async def _page(self, port: int, player: Player, gate: asyncio.Semaphore) -> None:
        match_id = player.match_id
        async with gate:
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
                writer.write(
                    f"GET /push/?match={match_id} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    f"Cookie: sessionid={player.session}\r\nAccept: text/event-stream\r\n\r\n".encode()
                )
                status = await asyncio.wait_for(reader.readline(), 60)
                if b" 200 " not in status:
                    raise RuntimeError(f"push answered {status!r}")
                while (await reader.readline()) not in (b"\r\n", b""):
                    pass
            except Exception:  # noqa: BLE001 - counted
                self.stats.connect_failures += 1
                return
        self.stats.connected += 1
        told = False  # the first event tells the version the page connects to
        turn = -1
        answered = 0.0  # the last ring this page's events were timed from
        try:
            async for event, data, at in _sse_events(reader):
                if event != "turn":
                    continue
                self.stats.events += 1
                if told and self.stats.measuring:
                    # From the newest ring of the match heard before the event; one
                    # already timed on this page (the sweep's read came first) is not.
                    rung = self.rings.get(match_id)
                    if rung is not None and answered < rung <= at:
                        self.stats.fanout.append(at - rung)
                        answered = rung
                    else:
                        self.stats.unrung += 1
                    # The page asks its own view, as site.js does on a pushed turn.
                    follow = asyncio.get_running_loop().create_task(
                        self._follow(player, match_id, turn)
                    )
                    self.follows.add(follow)
                    follow.add_done_callback(self.follows.discard)
                told = True
                turn = int(json.loads(data)["turn"])
        except (asyncio.CancelledError, GeneratorExit):
            pass
        except Exception:  # noqa: BLE001 - counted
            self.stats.dropped += 1
        finally:
            writer.close()

    async def _follow(self, player: Player, match_id: int, since: int) -> None:
        start = time.monotonic()
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", player.port)
            writer.write(
                f"GET /matches/{match_id}/poll/?since={since} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                f"Cookie: sessionid={player.session}\r\nConnection: close\r\n\r\n".encode()
            )
            status = await asyncio.wait_for(reader.readline(), 60)
            await asyncio.wait_for(reader.read(), 60)
            writer.close()
            if b" 200 " not in status and len(self.stats.follow_errors) < 5:
                self.stats.follow_errors.append(f"poll {match_id}: {status!r}")
            self.stats.follow_polls.append(time.monotonic() - start)
        except Exception as error:  # noqa: BLE001 - counted
            if len(self.stats.follow_errors) < 5:
                self.stats.follow_errors.append(f"poll {match_id}: {type(error).__name__}")

    def figures(self, elapsed: float) -> dict[str, Any]:
        s = self.stats
        return {
            "push_processes": len(self.stream_ports),
            "pages_per_process": self.pages,
            "pages_connected": s.connected,
            "connect_failures": s.connect_failures,
            "connect_s": s.connect_s,
            "pages_dropped": s.dropped,
            "rings_heard": s.rings,
            "turn_events": s.events,
            "turn_events_timed": len(s.fanout),
            "turn_events_without_ring": s.unrung,
            "fanout_ms": _support.percentiles(s.fanout),
            "follow_polls_per_s": round(len(s.follow_polls) / elapsed, 1),
            "follow_poll_ms": _support.percentiles(s.follow_polls),
            "follow_errors": s.follow_errors,
        }


async def _sse_events(reader: asyncio.StreamReader) -> Any:
    """(event, data, time received) of a chunked text/event-stream."""
    buffer = b""
    while True:
        size_line = await reader.readline()
        if not size_line:
            raise ConnectionError("push channel closed")
        size = int(size_line.strip().split(b";")[0] or b"0", 16)
        if size == 0:
            raise ConnectionError("push channel ended")
        buffer += (await reader.readexactly(size + 2))[:-2]
        at = time.monotonic()
        while b"\n\n" in buffer:
            block, buffer = buffer.split(b"\n\n", 1)
            event, data = "message", ""
            for line in block.decode().split("\n"):
                if line.startswith("event:"):
                    if data:
                        yield event, data, at
                    event, data = line[6:].strip(), ""
                elif line.startswith("data:"):
                    data = line[5:].strip()
            if data:
                yield event, data, at


@contextlib.contextmanager
def uvicorn(env: dict[str, str], port: int) -> Iterator[None]:
    """The push process (Procfile's `stream`): uvicorn serving helium3_site.asgi."""
    log = open(Path(env["HELIUM3_VAR_DIR"]) / f"uvicorn-{port}.log", "wb")  # noqa: SIM115
    proc = subprocess.Popen(
        [str(_support.BIN / "uvicorn"), "helium3_site.asgi:application", "--host", "127.0.0.1",
         "--port", str(port), "--log-level", "warning", "--timeout-graceful-shutdown", "2"],
        cwd=_support.REPO, env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        _wait_port(port, proc, "uvicorn")
        yield
    finally:
        _support.stop(proc)
        log.close()


@contextlib.contextmanager
def bell_redis() -> Iterator[str]:
    """A redis-server of the run's own for the doorbell: no other Redis traffic heard."""
    port = _support.free_port()
    proc = subprocess.Popen(
        [shutil.which("redis-server") or "redis-server", "--port", str(port),
         "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        _wait_port(port, proc, "redis-server")
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        _support.stop(proc)


def _wait_port(port: int, proc: subprocess.Popen[bytes], what: str) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with {proc.returncode} while starting")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"{what} did not start within 60 s")


# -- CPU time per kind of process, and PostgreSQL's waits ---------------------------


def _stat(pid: int) -> tuple[int, float] | None:
    """(parent pid, CPU seconds: utime + stime + the reaped children's) of a process."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None
    fields = raw[raw.rindex(b")") + 2 :].split()
    ticks = int(fields[11]) + int(fields[12]) + int(fields[13]) + int(fields[14])
    return int(fields[1]), ticks / CLK_TCK


def _cmdline(pid: int) -> str:
    try:
        return (
            Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        )
    except OSError:
        return ""


def _kind_of_child(cmd: str) -> str | None:
    if "gunicorn" in cmd:
        return "web"
    if "celery" in cmd and " worker" in cmd:
        return "worker"
    if "celery" in cmd and " beat" in cmd:
        return "beat"
    if "uvicorn" in cmd:
        return "push"
    if "redis-server" in cmd:
        return "bell_redis"
    return None


class Sampler:
    """Each second: the CPU time of every process of each kind, and what PostgreSQL's
    backends of the benchmark's database are doing."""

    def __init__(self, database: str, pg_url: str) -> None:
        self.database, self.pg_url = database, pg_url
        self.first: dict[int, tuple[str, float]] = {}
        self.last: dict[int, tuple[str, float]] = {}
        self.waits: dict[str, int] = {"samples": 0, "active": 0, "Lock": 0, "LWLock": 0, "IO": 0}
        self.lock_events: dict[str, int] = {}
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.own_backend = 0
        self.load = os.getloadavg()

    def _processes(self) -> dict[int, tuple[str, float]]:
        me = os.getpid()
        table: dict[int, tuple[int, float]] = {}
        cmds: dict[int, str] = {}
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            pid = int(entry)
            found = _stat(pid)
            if found is not None:
                table[pid] = found
        kinds: dict[int, tuple[str, float]] = {}
        for pid, (ppid, cpu) in table.items():
            if pid == me:
                kinds[pid] = ("load", cpu)
                continue
            # The kind of a descendant of this script: that of its child it comes from.
            chain, up = [pid], ppid
            while up not in (me, 0, 1) and up in table and len(chain) < 8:
                chain.append(up)
                up = table[up][0]
            if up == me:
                child = chain[-1]
                cmd = cmds.setdefault(child, _cmdline(child))
                kind = _kind_of_child(cmd)
                if kind is not None:
                    kinds[pid] = (kind, cpu)
                continue
            cmd = _cmdline(pid)
            if cmd.startswith("postgres: "):
                if f" {self.database} " in cmd:
                    if pid != self.own_backend:
                        kinds[pid] = ("postgres", cpu)
                elif not re.search(r"\d+\.\d+\.\d+\.\d+\(\d+\)|\[local\]", cmd):
                    kinds[pid] = ("postgres_shared", cpu)  # checkpointer, WAL writer, ...
        return kinds

    def _run(self) -> None:
        import psycopg

        with psycopg.connect(self.pg_url, autocommit=True) as conn:
            self.own_backend = conn.execute("SELECT pg_backend_pid()").fetchone()[0]  # type: ignore[index]
            self.first = self._processes()
            self.last = dict(self.first)
            while not self.stop.wait(1.0):
                self.last.update(self._processes())
                rows = conn.execute(
                    "SELECT state, wait_event_type, wait_event FROM pg_stat_activity"
                    " WHERE datname = %s AND pid <> pg_backend_pid()",
                    (self.database,),
                ).fetchall()
                self.waits["samples"] += 1
                for state, wait_type, wait_event in rows:
                    if state == "active":
                        self.waits["active"] += 1
                        if wait_type in ("Lock", "LWLock", "IO"):
                            self.waits[wait_type] += 1
                            key = f"{wait_type}:{wait_event}"
                            self.lock_events[key] = self.lock_events.get(key, 0) + 1
            self.last.update(self._processes())

    def __enter__(self) -> Sampler:
        self.thread.start()
        while not self.first and self.thread.is_alive():
            time.sleep(0.05)
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(30)

    def figures(self, elapsed: float, turns: int) -> dict[str, Any]:
        cpu = dict.fromkeys(KINDS, 0.0)
        count = dict.fromkeys(KINDS, 0)
        for pid, (kind, seconds) in self.last.items():
            # A process started within the window counts from 0.
            before = self.first[pid][1] if pid in self.first else 0.0
            cpu[kind] += max(0.0, seconds - before)
            count[kind] += 1
        cpus = os.cpu_count() or 1
        samples = max(1, self.waits["samples"])
        return {
            "cpu_ms_per_turn": {
                k: round(cpu[k] * 1000 / turns, 2) if turns else None for k in KINDS
            },
            "cpu_share_of_machine_pct": {
                k: round(100 * cpu[k] / (elapsed * cpus), 1) for k in KINDS
            },
            "cpu_s": {k: round(cpu[k], 2) for k in KINDS},
            "processes_seen": count,
            "pg_backends_per_sample": {
                "active": round(self.waits["active"] / samples, 2),
                "waiting_lock": round(self.waits["Lock"] / samples, 2),
                "waiting_lwlock": round(self.waits["LWLock"] / samples, 2),
                "waiting_io": round(self.waits["IO"] / samples, 2),
            },
            "pg_wait_events": dict(sorted(self.lock_events.items(), key=lambda kv: -kv[1])[:6]),
            "loadavg_1m_before_after": [round(self.load[0], 2), round(os.getloadavg()[0], 2)],
        }


def run_one(
    args: argparse.Namespace, env: dict[str, str], matches: int, workers: int, webs: int
) -> dict[str, Any]:
    from django.db import connections

    from games.models import Match, Resolution, Turn

    _support.purge_queue(env)
    tag = f"{os.getpid()}-{matches}-{workers}-{webs}-{time.time_ns()}"
    setup = time.perf_counter()
    players = make_players(matches, args.bot, tag)
    setup_s = time.perf_counter() - setup
    connections.close_all()
    ports = [_support.free_port() for _ in range(webs)]
    for i, player in enumerate(players):
        player.port = ports[i % webs]  # the proxy's round robin
    clients = min(args.clients, matches)
    driver = Driver(argparse.Namespace(**{**vars(args), "clients": clients}), players, args.bot)
    database = env["DATABASE_URL"].rsplit("/", 1)[1]
    push: PushPages | None = None
    with contextlib.ExitStack() as stack:
        run_env = dict(env)
        if args.push_pages:
            bell = stack.enter_context(bell_redis())
            run_env["PUSH_REDIS_URL"] = bell
        worker_logs = [
            stack.enter_context(
                _support.celery_worker(run_env, concurrency=args.worker_concurrency)
            )
            for _ in range(workers)
        ]
        stack.enter_context(_support.celery_beat(run_env))
        for port in ports:
            stack.enter_context(
                _support.gunicorn(run_env, workers=args.gunicorn_workers, port=port)
            )
        if args.push_pages:
            stream_ports = [_support.free_port() for _ in range(args.streams)]
            for port in stream_ports:
                stack.enter_context(uvicorn(run_env, port))
            push = stack.enter_context(PushPages(players, stream_ports, args.push_pages, bell))
            push.stats.measuring = True
        sampler = stack.enter_context(Sampler(database, f"{_support.PG}/{database}"))
        t0 = datetime.now(UTC)
        elapsed = driver.run()
        t1 = datetime.now(UTC)
        sampler.__exit__(None, None, None)
    worker_errors = [line for path in worker_logs for line in _support.log_errors(path)]
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
    push_errors = 0
    result: dict[str, Any] = {
        "matches": matches,
        "pace": f"a visit every {args.visit} s" if args.visit else f"poll every {args.poll} s",
        "worker_instances": workers,
        "worker_processes": workers * args.worker_concurrency,
        "web_instances": webs,
        "web_processes": webs * args.gunicorn_workers,
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
    }
    result.update(sampler.figures(elapsed, resolved))
    if push is not None:
        result["push"] = push.figures(elapsed)
        push_errors = (
            push.stats.connect_failures + push.stats.dropped + len(push.stats.follow_errors)
        )
    result["errors"] = stats.error_count + len(worker_errors) + push_errors
    result["error_samples"] = (
        stats.errors + worker_errors[:5] + result.get("push", {}).get("follow_errors", [])
    )
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, nargs="+", default=[10, 100])
    parser.add_argument("--minutes", type=float, default=1.0)
    parser.add_argument("--seconds", type=float, help="overrides --minutes")
    parser.add_argument(
        "--refresh", type=float, default=15.0, help="seconds between page loads without a poll"
    )
    parser.add_argument("--poll", type=float, default=3.0, help="seconds between polls")
    parser.add_argument(
        "--visit", type=float, help="correspondence pace: seconds between a person's visits"
    )
    parser.add_argument(
        "--push-pages", type=int, default=0, help="open pages (SSE on /push/) per push process"
    )
    parser.add_argument("--streams", type=int, default=1, help="push (uvicorn) processes")
    parser.add_argument("--clients", type=int, default=32, help="load threads")
    parser.add_argument("--bot", default="random")
    parser.add_argument("--workers", type=int, nargs="+", default=[1], help="Celery workers")
    parser.add_argument("--webs", type=int, nargs="+", default=[1], help="gunicorn instances")
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
        runs = [
            run_one(args, env, n, w, g)
            for n in args.matches
            for w in args.workers
            for g in args.webs
        ]
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
                "worker_processes": r["worker_processes"],
                "web_processes": r["web_processes"],
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

    def said(r: dict[str, Any]) -> str:
        text = (
            f"{r['matches']} matches, {r['worker_processes']} worker and {r['web_processes']} web"
            f" processes, for {r['seconds']} s: {r['turns_resolved_per_s']} turns/s,"
            f" {r['board_views_per_s']} views/s, view p99 {r['view_ms']['p99']} ms,"
            f" post p99 {r['post_ms']['p99']} ms, CPU ms a turn: "
            + ", ".join(f"{k} {v}" for k, v in r["cpu_ms_per_turn"].items() if v)
        )
        if "push" in r:
            p = r["push"]
            text += (
                f"; {p['pages_connected']} pages on /push/, fan-out median"
                f" {p['fanout_ms']['median']} ms, p99 {p['fanout_ms']['p99']} ms"
            )
        return text + f", {r['errors']} errors"

    _support.emit("scale", figures, "; ".join(said(r) for r in runs))
    return 0 if all(r["errors"] == 0 for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
