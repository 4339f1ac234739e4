"""Scale: N concurrent matches with bots, driven through the real web for a while.

    python bench/scale.py --matches 1000 --minutes 10
    python bench/scale.py --matches 10 100 1000 --minutes 1     # how the figures grow

The whole production stack on this machine: gunicorn (`--gunicorn-workers`), a
Celery worker (`--worker-concurrency`, prefork), one celery beat, and the push
channel (`--streams` uvicorn processes serving helium3_site.asgi, with a redis-server
of the run's own as its doorbell), PostgreSQL and Redis, with production settings
(DEBUG off). Each match has four seats: a person in seat 1 and built-in bots
(`--bot`) in the others, whose turns the worker resolves at once. A load script
plays the people over HTTP as their browsers do, a page with its script:

- By default the page has the push channel (site.js, page.js): before the timed
  window each person loads the match page and opens its SSE connection to /push/
  (told from the page's version on, as the page's EventSource is). When the form
  is there the person sends a pass by script (Accept: application/json: a JSON
  answer, no redirect, no page load) and the page's first look after Send asks
  the poll for its parts anew (`v=sent`); then the page waits: on each `turn`
  event it asks its poll, again every 0.2 s for up to 20 s until the poll shows the
  version told or a later turn, and the person passes again when the form comes.
  No poll timer while the channel is open; a dropped channel opens again after a
  second, and the page polls every 3 s while it is down.
- `--poll [S]`: the page without the channel (as before it): load the match page,
  then ask its poll (the page's `hx-get` on `#poll`) every S seconds (3 without a
  value, +-50% jitter); when the poll says something changed, look at the new
  content, loading the page if the orders form is not in it; when the form is
  there, POST a pass and follow the redirect to the page. A page without a poll is
  loaded again every `--refresh` seconds.

A match moves as fast as its person looks. `--clients` threads share the people;
when the site falls behind, looks start late and the schedule lag shows it. A match
that ends is replaced.

By default the people pass the moment their form appears: a closed loop, so the
site is always saturated and a page answer's latency is about `--clients` / the
requests answered a second, the load script's queue more than the site. `--think S`
(the push channel's pace only) gives an offered load at a pace, as people who think
between turns: each person passes S seconds after their form appeared on the page
(the first ones spread over one think); their next look is scheduled at that due
time, and no client thread waits meanwhile. A person's cycle is S plus the site's
response (from their pass to the next turn's form on their page), so N people offer
N / (S + response) passes a second, and each pass brings four turns (Resolutions:
the person's and each bot's; `turns_per_pass` as measured): 1,000 matches with
`--think 26` offer about 1000 / 26.5 * 4 ~ 150 turns/s. The run reports the pace
offered (`offered_passes_per_s`, `offered_turns_per_s`, from the response's
median), the response (`response_ms`), and how late each pass started against its
due time (`late_ms`: near 0, the site kept the pace; growing, the site or the
script's threads fell behind), and `passes_early` (none, or the script is wrong).

It reports turns resolved per second (resolutions written in the window), board
page views, polls and POSTs per second, their latency (median, p90, p99), the time from a turn
accepted to the worker's claim, errors (any answer but 200/302/304, any exception,
any ERROR in the worker's log, a person's channel dropped), and, for several
--matches, how each grows; with the channel, each `turn` event's fan-out time from
the match's ring (below) to the person's page. The
database is its own (`helium3_bench_scale_<pid>`) and is dropped at the end;
`--database NAME --keep` keeps it, and `--reuse` then plays the matches still
running there instead of making them anew (making 1,000 takes about two minutes).
Once the matches are made, the database is vacuumed and analyzed (`vacuum_analyze_s`),
as autovacuum keeps a running site's tables: the plans are those of a site, not of
tables PostgreSQL still takes for empty.

Correspondence pace and the push channel:

    python bench/scale.py --matches 10000 --visit 60 --push-pages 2000 --minutes 5

`--visit S`: each person comes back every S seconds (+-50%) instead of a page open:
loads the match page, POSTs a pass when the form is there and follows the
redirect, and leaves. A pass brings four turns (the person's and three bots'), so
60 s is a round a minute for each match and 240 s a turn a minute (10,000 matches:
666.7 and 166.7 turns a second). `--push-pages N`: N open
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

Several paces on one started stack (stack start-up is most of a short run's CPU):

    python bench/scale.py --matches 100 --phases poll,seconds=60 push,seconds=60 think=26

`--phases`: each phase is a comma-separated list of its pace (`push`, `poll[=S]`,
`think=S`, `visit=S`, `push-pages=N`: the pace options come from the phase only) and
of `seconds=S`, `minutes=M`, `refresh=S` (the command line's otherwise). The phases
are played in turn, each a run with people and matches of its own (`--reuse`: the
running ones), each once the matches of the phase before have no accepted turn and
the queues are empty (`settle_s`, at most 60 s), for each of --matches, --workers
and --webs. The stack has the push channel when any phase needs it: a phase without
it then runs with the doorbell rung on each commit (for a pace alone, run it alone).

For every run: the CPU time of each kind of process (web, worker, beat, push, the
bell's Redis, the PostgreSQL backends of the benchmark's database, the server's
shared PostgreSQL processes, this load script) per resolved turn and as a share of
the machine, from /proc/<pid>/stat (utime + stime, and the children a process
reaped), sampled each second; and PostgreSQL's backends of the benchmark's
database from pg_stat_activity each second: how many were active, waiting on a
lock (heavyweight: rows, tables), on an LWLock, on I/O; and the machine's share
left idle and taken by other work (/proc/stat): a run that leaves CPU idle is bound
by something else than CPU, one that shares it with other work gets fewer turns.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import contextlib
import heapq
import http.client
import json
import os
import random
import re
import shutil
import socket
import statistics
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
# The page's poll timer (hx-trigger="every 3s"), which asks only while the push
# channel is down.
POLL_SECONDS = 3.0
KINDS = ("web", "worker", "beat", "push", "bell_redis", "postgres", "postgres_shared", "load")


@dataclass
class Player:
    match_id: int
    session: str
    csrf_cookie: str = ""
    poll: str = ""
    port: int = 0
    # A person whose page has the push channel (the default pace):
    form_turn: int | None = None  # the turn of the orders form the page shows
    form_csrf: str = ""
    sent_turn: int = -1  # the turn the person last sent orders for
    wanted: str | None = None  # a version the channel told, until the poll shows it
    wanted_at: float = 0.0
    up: bool = False  # the page's channel is open
    queued: bool = False  # a look of this person is in the schedule
    busy: bool = False  # a client thread is looking for this person
    stream_port: int = 0
    index: int = 0  # the person's place in the driver's list
    # `--think`: when the form of a turn not sent yet appeared on the page, and when
    # the person's last pass was sent (monotonic; 0: none since).
    form_seen_at: float = 0.0
    sent_at: float = 0.0


@dataclass
class Stats:
    views: list[float] = field(default_factory=list)
    polls: list[float] = field(default_factory=list)
    changed_polls: int = 0
    looks_after_send: int = 0
    posts: list[float] = field(default_factory=list)
    lag: list[float] = field(default_factory=list)
    # `--think`: each pass's start against its due time (the form seen + think; < 0:
    # early), the time from the form seen to the pass, and from a pass sent to the
    # next turn's form on the page (the site's response as the person sees it).
    late: list[float] = field(default_factory=list)
    waited: list[float] = field(default_factory=list)
    response: list[float] = field(default_factory=list)
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


def reuse_players(count: int) -> list[Player]:
    """Up to `count` people of an earlier run kept in this database (`--keep`), each
    with a new session and the match they play that is still running."""
    from importlib import import_module

    from django.conf import settings

    from games.models import Match, Seat

    store = import_module(settings.SESSION_ENGINE).SessionStore
    seats = (
        Seat.objects.filter(
            number=1, match__status=Match.Status.RUNNING, user__username__startswith="scale-"
        )
        .select_related("user")
        .order_by("match_id")[:count]
    )
    players: list[Player] = []
    for seat in seats:
        user = seat.user
        assert user is not None
        session = store()
        session["_auth_user_id"] = str(user.pk)
        session["_auth_user_backend"] = "django.contrib.auth.backends.ModelBackend"
        session["_auth_user_hash"] = user.get_session_auth_hash()
        session.create()
        players.append(Player(match_id=seat.match_id, session=session.session_key or ""))
    return players


def new_match(user: Any, bot: str) -> int:
    from games import services

    match = services.match_create(
        creator=user, seat_count=4, turn_seconds=24 * 3600, length_ms=3_600_000, bots=[bot] * 3
    )
    return int(match.pk)


def request(
    port: int,
    method: str,
    path: str,
    player: Player,
    body: bytes | None = None,
    accept: str | None = None,
) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    cookie = f"sessionid={player.session}"
    if player.csrf_cookie:
        cookie += f"; csrftoken={player.csrf_cookie}"
    headers = {"Cookie": cookie, "Host": "127.0.0.1"}
    if accept:
        headers["Accept"] = accept
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


def version_of(poll: str) -> str | None:
    """The public version a poll URL's token starts with (status.turn.turn status),
    as site.js reads it to know whether the page shows what the channel told."""
    found = re.search(r"[?&]v=([^&]*)", poll)
    if found is None:
        return None
    return ".".join(urllib.parse.unquote(found.group(1)).split(".")[:3])


def reached(version: str | None, wanted: str | None) -> bool:
    """site.js: the page shows the version told, or a later turn."""
    if version is None or wanted is None:
        return False
    try:
        return version == wanted or int(version.split(".")[1]) > int(wanted.split(".")[1])
    except (IndexError, ValueError):
        return version == wanted


class Driver:
    """The people: a schedule of looks shared by `clients` threads.

    Three paces: a page with the push channel (the default: a look when the channel
    tells a turn, and the poll every `POLL_SECONDS` only while the channel is down),
    a page polling every `--poll` seconds, or a person back every `--visit` seconds.
    """

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
        # The page's own pace: told by the push channel (PushPages opens it).
        self.pushed = args.visit is None and args.poll is None
        self.poll_seconds: float = args.poll if args.poll is not None else POLL_SECONDS
        # Pushed pace: seconds a person thinks, from the form appearing to the pass.
        self.think: float = args.think
        self.push: PushPages | None = None

    def _next(self) -> tuple[float, int] | None:
        with self.cond:
            while True:
                now = time.monotonic()
                if now >= self.until or self.requests >= self.max_requests:
                    return None
                if not self.heap:
                    self.cond.wait(self.until - now)
                    continue
                when, i = self.heap[0]
                if when <= now:
                    heapq.heappop(self.heap)
                    self.requests += 1
                    player = self.players[i]
                    player.queued, player.busy = False, True
                    return when, i
                self.cond.wait(min(when, self.until) - now)

    def _schedule(self, i: int, delay: float) -> None:
        """A look of person i in `delay` seconds (one at a time: none while one is
        scheduled or under way)."""
        with self.cond:
            player = self.players[i]
            if player.queued or player.busy:
                return
            player.queued = True
            heapq.heappush(self.heap, (time.monotonic() + delay, i))
            self.cond.notify()

    def _done(self, i: int, delay: float | None) -> None:
        """A look ended: the next one in `delay` seconds, or when the channel tells
        (None); a version told meanwhile that the page does not show yet is asked
        for again after 0.2 s, for up to 20 s (site.js)."""
        with self.cond:
            player = self.players[i]
            player.busy = False
            if player.wanted is not None:
                if time.monotonic() - player.wanted_at > 20:
                    player.wanted = None
                elif delay is None or delay > 0.2:
                    delay = 0.2
        if delay is not None:
            self._schedule(i, delay)

    def told(self, i: int, version: str) -> None:
        """The channel told person i's page a turn (from PushPages' loop)."""
        with self.cond:
            player = self.players[i]
            if player.wanted is None and reached(version_of(player.poll), version):
                return  # the page shows it already (site.js asks nothing)
            fresh = player.wanted is None
            player.wanted, player.wanted_at = version, time.monotonic()
            if not fresh or player.queued or player.busy:
                return
        self._schedule(i, 0.0)

    def channel(self, i: int, up: bool) -> None:
        """Person i's channel opened, or dropped: the page's poll timer asks nothing
        while it is open and every few seconds while it is not."""
        self.players[i].up = up
        if not up and time.monotonic() < self.until:
            self._schedule(i, self.poll_seconds * self.rng.uniform(0.5, 1.5))

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
        if self.pushed:
            self._shows(player, body)
            if self.push is not None and player.poll:
                self.push.open(player.index)
        return body

    def _shows(self, player: Player, body: bytes) -> None:
        """What the page now shows: the orders form of a turn, or none."""
        found = TURN_RE.search(body)
        turn = int(found.group(1) or found.group(2)) if found else None
        if turn is not None and turn != player.form_turn and turn != player.sent_turn:
            # The form of a turn the person has not sent: their turn is visible now.
            player.form_seen_at = time.monotonic()
            if player.sent_at:
                self.stats.response.append(player.form_seen_at - player.sent_at)
                player.sent_at = 0.0
        player.form_turn = turn
        csrf = CSRF_RE.search(body)
        player.form_csrf = csrf.group(1).decode() if csrf else ""

    def _poll(self, player: Player, url: str) -> bytes | None:
        """Ask the page's poll: the new content, or None when nothing changed."""
        start = time.perf_counter()
        status, _, body = request(player.port, "GET", url, player)
        self.stats.polls.append(time.perf_counter() - start)
        if status == 304:
            return None
        if status != 200:
            self.stats.error(f"GET {url}: {status}")
            player.poll = ""
            return None
        self.stats.changed_polls += 1
        found = POLL_RE.search(body)
        player.poll = found.group(1).decode().replace("&amp;", "&") if found else ""
        return body

    def _look(self, player: Player) -> bytes | None:
        """What the person's browser does next: ask the page's poll whether anything
        changed (304: nothing), or load the page when it has no poll. Returns the
        new content, or None when nothing changed."""
        if not player.poll:
            return self._view(player)
        body = self._poll(player, player.poll)
        if body is not None and TURN_RE.search(body) is None:
            # The fragments may not carry the form: load the page to see it.
            return self._view(player)
        return body

    def _delay(self, player: Player) -> float:
        if self.visit is not None:
            return self.visit * self.rng.uniform(0.5, 1.5)
        period = self.poll_seconds if player.poll else self.args.refresh
        return period * self.rng.uniform(0.5, 1.5)

    def _visit(self, i: int) -> float | None:
        """One look (and orders when it is the person's turn); returns the delay until
        the next look."""
        if self.pushed:
            return self._pushed_visit(i)
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

    def _pushed_visit(self, i: int) -> float | None:
        """A page with the push channel, as page.js and site.js drive it: told a turn,
        it asks its poll; when the form is there, the person sends a pass by script
        (Accept: application/json, no redirect, no page load) and the page's first
        look after Send asks the poll for its parts anew (v=sent); then it waits to
        be told. While the channel is down the poll's timer asks every few seconds."""
        player = self.players[i]
        with self.cond:
            if reached(version_of(player.poll), player.wanted):
                player.wanted = None  # the page shows the version told already
        if not player.poll:
            self._view(player)  # a page not loaded yet, or a match just ended
        elif player.wanted is not None or player.form_turn is None or not player.up:
            body = self._poll(player, player.poll)
            if body is not None:
                self._shows(player, body)
        if not player.poll:
            if self._over(player):
                self._replace(player)
                return self.rng.uniform(0, 1)
            return self._delay(player)
        with self.cond:
            if reached(version_of(player.poll), player.wanted):
                player.wanted = None
        for _ in range(4):  # the next turn's form may come with the first look
            turn = player.form_turn
            if turn is None or turn == player.sent_turn:
                break
            if self.think:
                # The person thinks `think` seconds from the form appearing: their
                # next look is scheduled at the due time, no client thread waits.
                now = time.monotonic()
                due = player.form_seen_at + self.think
                if now < due:
                    return due - now
                self.stats.late.append(now - due)
                self.stats.waited.append(now - player.form_seen_at)
                player.sent_at = now
            form = {"turn": str(turn), "actions_json": "[]"}
            if player.form_csrf:
                form["csrfmiddlewaretoken"] = player.form_csrf
            start = time.perf_counter()
            status, _, answer = request(
                player.port,
                "POST",
                f"/matches/{player.match_id}/orders/",
                player,
                urllib.parse.urlencode(form).encode(),
                accept="application/json",
            )
            self.stats.posts.append(time.perf_counter() - start)
            player.sent_turn = turn
            if status != 200 or b'"accepted": true' not in answer:
                self.stats.error(f"POST orders match {player.match_id} turn {turn}: {status}")
                player.form_turn = None
                break
            first = re.sub(r"([?&]v=)[^&]*", r"\1sent", player.poll)
            body = self._poll(player, first)
            with self.stats.lock:
                self.stats.looks_after_send += 1
            if body is None or not player.poll:
                break
            self._shows(player, body)
            with self.cond:
                if reached(version_of(player.poll), player.wanted):
                    player.wanted = None
        if player.form_turn is not None and player.form_turn != player.sent_turn:
            # The page shows the form of a turn not sent yet (each look after Send
            # brought the next turn's form): the person sends it in their next look.
            # No event will tell this page of it (it shows that version already).
            return 0.0
        return None if player.up else self._delay(player)

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
        player.form_turn, player.sent_turn, player.wanted, player.poll = None, -1, None, ""
        player.sent_at = 0.0
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
            delay: float | None
            try:
                delay = self._visit(i)
            except Exception as error:  # noqa: BLE001 - every failure is counted and shown
                self.stats.error(f"{type(error).__name__}: {error}")
                delay = self._delay(self.players[i])
            self._done(i, delay)

    def warm_up(self) -> float:
        """Pushed pace: each person's page loaded and its channel open before the
        window (the window then times play, not a thousand first loads)."""
        start = time.monotonic()
        with concurrent.futures.ThreadPoolExecutor(self.args.clients) as pool:
            for error in pool.map(self._warm, range(len(self.players))):
                if error:
                    self.stats.error(error)
        assert self.push is not None
        self.push.wait_people(len(self.players), 300)
        self.stats.views.clear()
        return time.monotonic() - start

    def _warm(self, i: int) -> str | None:
        try:
            self._view(self.players[i])
        except Exception as error:  # noqa: BLE001 - counted
            return f"{type(error).__name__}: {error}"
        return None

    def run(self) -> float:
        threads = [
            threading.Thread(target=self._loop, daemon=True) for _ in range(self.args.clients)
        ]
        start = time.monotonic()
        if self.visit is not None:
            spread = self.visit
        elif self.pushed and self.think:
            spread = self.think  # the people saw their forms at any time of a think
        elif self.pushed:
            spread = POLL_SECONDS  # the pages are open: their people act within a moment
        else:
            spread = self.args.refresh
        self.until = start + self.args.seconds
        for i in range(len(self.players)):
            # Spread the first looks over one period.
            first = self.rng.uniform(0, spread)
            if self.think:
                # The page loaded before the window: its form is due at the first look.
                self.players[i].form_seen_at = start + first - self.think
            self._schedule(i, first)
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
    Redis on another thread, which notes when each match's ring is heard. With
    `people` (the pushed pace), each person's own page too: its channel, opened
    once the page is loaded (`open`), tells the driver each `turn`."""

    def __init__(
        self,
        players: list[Player],
        stream_ports: list[int],
        pages: int,
        bell_url: str,
        people: Driver | None = None,
    ) -> None:
        self.players, self.stream_ports, self.pages = players, stream_ports, pages
        self.bell_url = bell_url
        self.stats = PushStats(pages=pages * len(stream_ports))
        self.people = people
        self.people_stats = PushStats(pages=len(players) if people is not None else 0)
        self.channels: dict[int, tuple[int, asyncio.Task[None]]] = {}
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

        from games.push import bell

        client = redis.Redis.from_url(self.bell_url)
        pubsub = client.pubsub(ignore_subscribe_messages=True)
        pubsub.subscribe(bell.channel(self.bell_url))
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
        channels = [task for _, task in self.channels.values()]
        for task in [*tasks, *self.follows, *channels]:
            task.cancel()
        await asyncio.gather(*tasks, *self.follows, *channels, return_exceptions=True)

    async def _connect(
        self, port: int, path: str, player: Player
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        """An SSE connection to `path`, its headers read."""
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            writer.write(
                f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                f"Cookie: sessionid={player.session}\r\nAccept: text/event-stream\r\n\r\n".encode()
            )
            status = await asyncio.wait_for(reader.readline(), 60)
            if b" 200 " not in status:
                raise RuntimeError(f"push answered {status!r}")
            while (await reader.readline()) not in (b"\r\n", b""):
                pass
        except BaseException:
            writer.close()
            raise
        return reader, writer

    def _timed(self, stats: PushStats, match_id: int, at: float, answered: float) -> float:
        """Times an event from the newest ring of its match heard before it, unless
        that ring was timed on this page already (the sweep's read came first);
        returns the ring timed from."""
        rung = self.rings.get(match_id)
        if rung is not None and answered < rung <= at:
            stats.fanout.append(at - rung)
            return rung
        stats.unrung += 1
        return answered

    def open(self, i: int) -> None:
        """Person i's page is loaded (from a client thread): open its channel, unless
        one is open for the match it shows."""
        self.loop.call_soon_threadsafe(self._open, i)

    def _open(self, i: int) -> None:
        player = self.players[i]
        found = self.channels.get(i)
        if found is not None and found[0] == player.match_id and not found[1].done():
            return
        if found is not None:
            found[1].cancel()
        task = self.loop.create_task(self._person(i, player.match_id))
        self.channels[i] = (player.match_id, task)

    def wait_people(self, count: int, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while sum(p.up for p in self.players) < count:
            if time.monotonic() > deadline:
                raise RuntimeError(f"the people's channels did not open within {timeout} s")
            time.sleep(0.1)
        self.people_stats.connect_s = round(timeout - (deadline - time.monotonic()), 2)

    async def _person(self, i: int, match_id: int) -> None:
        """Person i's page's channel, open again a second after a drop (the browser's
        `retry`) with what it was last told, as an EventSource does."""
        assert self.people is not None
        player, stats = self.players[i], self.people_stats
        last = f"{version_of(player.poll) or '-'}|-"
        while not self.stop.is_set():
            path = f"/push/?match={match_id}&last={urllib.parse.quote(last)}"
            try:
                reader, writer = await self._connect(player.stream_port, path, player)
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - counted
                stats.connect_failures += 1
                await asyncio.sleep(1.0)
                continue
            stats.connected += 1
            self.people.channel(i, True)
            answered = 0.0
            try:
                async for event, data, at, told in _sse_events(reader):
                    if told:
                        last = told
                    if event != "turn":
                        continue
                    stats.events += 1
                    if stats.measuring:
                        answered = self._timed(stats, match_id, at, answered)
                    self.people.told(i, json.loads(data)["version"])
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - counted
                if not self.stop.is_set():
                    stats.dropped += 1
            finally:
                writer.close()
                self.people.channel(i, False)
            await asyncio.sleep(1.0)

    async def _page(self, port: int, player: Player, gate: asyncio.Semaphore) -> None:
        match_id = player.match_id
        async with gate:
            try:
                reader, writer = await self._connect(port, f"/push/?match={match_id}", player)
            except Exception:  # noqa: BLE001 - counted
                self.stats.connect_failures += 1
                return
        self.stats.connected += 1
        told = False  # the first event tells the version the page connects to
        turn = -1
        answered = 0.0  # the last ring this page's events were timed from
        try:
            async for event, data, at, _ in _sse_events(reader):
                if event != "turn":
                    continue
                self.stats.events += 1
                if told and self.stats.measuring:
                    answered = self._timed(self.stats, match_id, at, answered)
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
        said: dict[str, Any] = {
            "push_processes": len(self.stream_ports),
            "pages_per_process": self.pages,
            "pages_connected": s.connected,
            "connect_failures": s.connect_failures,
            "connect_s": s.connect_s,
            "pages_dropped": s.dropped,
            "rings_heard": self.stats.rings,
            "turn_events": s.events,
            "turn_events_timed": len(s.fanout),
            "turn_events_without_ring": s.unrung,
            "fanout_ms": _support.percentiles(s.fanout),
            "follow_polls_per_s": round(len(s.follow_polls) / elapsed, 1),
            "follow_poll_ms": _support.percentiles(s.follow_polls),
            "follow_errors": s.follow_errors,
        }
        if self.people is not None:
            p = self.people_stats
            said["people"] = {
                "channels_opened": p.connected,
                "connect_failures": p.connect_failures,
                "dropped": p.dropped,
                "open_s": p.connect_s,
                "turn_events": p.events,
                "turn_events_timed": len(p.fanout),
                "turn_events_without_ring": p.unrung,
                "fanout_ms": _support.percentiles(p.fanout),
            }
        return said


async def _sse_events(reader: asyncio.StreamReader) -> Any:
    """(event, data, time received, the id given with it or "") of a chunked
    text/event-stream."""
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
            event, data, told = "message", "", ""
            for line in block.decode().split("\n"):
                if line.startswith("event:"):
                    if data:
                        yield event, data, at, told
                    event, data = line[6:].strip(), ""
                elif line.startswith("data:"):
                    data = line[5:].strip()
                elif line.startswith("id:"):
                    told = line[3:].strip()
            if data:
                yield event, data, at, told


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


def _machine_ticks() -> tuple[int, int, int]:
    """The machine's CPU time since boot, in ticks summed over its CPUs (/proc/stat):
    (all, idle with I/O wait, stolen by the host)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    return sum(fields), fields[3] + fields[4], fields[7]


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
        self.ticks_first = self.ticks_last = (0, 0, 0)

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
            self.ticks_first = _machine_ticks()
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
            self.ticks_last = _machine_ticks()

    def __enter__(self) -> Sampler:
        self.thread.start()
        while not self.first and self.thread.is_alive():
            time.sleep(0.05)
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(30)

    def _machine(self, run_cpu_s: float) -> dict[str, float | None]:
        total = self.ticks_last[0] - self.ticks_first[0]
        if total <= 0:
            return {"idle": None, "other_work": None, "stolen": None}
        idle = self.ticks_last[1] - self.ticks_first[1]
        stolen = self.ticks_last[2] - self.ticks_first[2]
        run = run_cpu_s * CLK_TCK
        return {
            "idle": round(100 * idle / total, 1),
            "other_work": round(max(0.0, 100 * (total - idle - stolen - run) / total), 1),
            "stolen": round(100 * stolen / total, 1),
        }

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
            # The rest of the machine: what no process of the run used (idle), and
            # what other work took; a run that leaves CPU idle is not CPU-bound.
            "machine_pct": self._machine(sum(cpu.values())),
        }


def run_one(
    args: argparse.Namespace,
    env: dict[str, str],
    matches: int,
    workers: int,
    webs: int,
    phases: list[argparse.Namespace],
) -> list[dict[str, Any]]:
    """One stack (`workers` Celery workers, `webs` gunicorn instances, beat, and the
    push channel when a phase needs it) and each phase played on it in turn: a
    result each."""
    _support.purge_queue(env)
    ports = [_support.free_port() for _ in range(webs)]
    channels = any(needs_channel(p) for p in phases)
    results: list[dict[str, Any]] = []
    worker_errors_seen = 0
    with contextlib.ExitStack() as stack:
        run_env = dict(env)
        bell = ""
        if channels:
            bell = stack.enter_context(bell_redis())
            run_env["PUSH_REDIS_URL"] = bell
        stream_ports = [_support.free_port() for _ in range(args.streams)] if channels else []
        # The stack's processes start side by side (each is ready before any phase).
        worker_logs = _support.enter_together(
            stack,
            [
                *(
                    _support.celery_worker(run_env, concurrency=args.worker_concurrency)
                    for _ in range(workers)
                ),
                _support.celery_beat(run_env),
                *(
                    _support.gunicorn(run_env, workers=args.gunicorn_workers, port=port)
                    for port in ports
                ),
                *(uvicorn(run_env, port) for port in stream_ports),
            ],
        )[:workers]
        previous: list[int] = []
        for number, phase in enumerate(phases):
            # The tail of the phase before (the turns its last passes brought) is
            # not this one's to time.
            settle_s = _settle(env, previous) if previous else 0.0
            stack_shape = {
                "worker_instances": workers,
                "worker_processes": workers * args.worker_concurrency,
                "web_instances": webs,
                "web_processes": webs * args.gunicorn_workers,
                "settle_s": round(settle_s, 1),
            }
            result, previous = run_phase(
                phase, env, matches, ports, stream_ports, bell, stack_shape, str(number)
            )
            # The workers' ERROR lines written since the phase before's are this one's.
            worker_errors = [line for path in worker_logs for line in _support.log_errors(path)]
            _count_worker_errors(result, worker_errors[worker_errors_seen:])
            worker_errors_seen = len(worker_errors)
            results.append(result)
    # And those the workers wrote while they stopped, with the last phase's.
    worker_errors = [line for path in worker_logs for line in _support.log_errors(path)]
    _count_worker_errors(results[-1], worker_errors[worker_errors_seen:])
    return results


def needs_channel(args: argparse.Namespace) -> bool:
    """Whether a run (or a phase) needs the push channel: pages opened on it
    (--push-pages), or people told their turns by it (neither --visit nor --poll)."""
    return bool(args.push_pages) or (args.visit is None and args.poll is None)


def _count_worker_errors(result: dict[str, Any], lines: list[str]) -> None:
    result["errors"] += len(lines)
    result["error_samples"] += lines[:5]


def _settle(env: dict[str, str], match_ids: list[int], timeout: float = 60.0) -> float:
    """Waits until the last phase's matches have no turn accepted and not resolved
    and the queues are empty (twice, half a second apart), so that a phase's window
    does not time the tail of the one before; returns the seconds waited."""
    import redis
    from django.db import connections

    from games.models import Turn

    start = time.monotonic()
    client = redis.Redis.from_url(env["CELERY_BROKER_URL"])
    quiet = 0
    try:
        while quiet < 2 and time.monotonic() - start < timeout:
            queued = client.llen(env["CELERY_QUEUE"]) + client.llen(env["CELERY_QUEUE"] + "-email")
            accepted = Turn.objects.filter(
                match_id__in=match_ids, status=Turn.Status.ACCEPTED
            ).exists()
            quiet = quiet + 1 if not queued and not accepted else 0
            if quiet < 2:
                time.sleep(0.5)
    finally:
        client.close()
        connections.close_all()
    return time.monotonic() - start


def run_phase(
    args: argparse.Namespace,
    env: dict[str, str],
    matches: int,
    ports: list[int],
    stream_ports: list[int],
    bell: str,
    stack_shape: dict[str, Any],
    name: str,
) -> tuple[dict[str, Any], list[int]]:
    """One phase (a pace, for its seconds) on a started stack: its own people and
    matches (or, with --reuse, the running ones kept); its figures without the
    workers' errors (run_one counts them), and the ids of the matches it played."""
    from django.db import connections

    from games.models import Match, Resolution, Turn

    tag = f"{os.getpid()}-{matches}-{name}-{time.time_ns()}"
    setup = time.perf_counter()
    players = reuse_players(matches) if args.reuse else []
    reused = len(players)
    if reused < matches:
        players += make_players(matches - reused, args.bot, tag)
    setup_s = time.perf_counter() - setup
    connections.close_all()
    # The tables just filled get the statistics autovacuum would give them on a running
    # site: without them (autovacuum off, or not yet round) PostgreSQL plans for the
    # tables as they were, and the push process's count of "your move" matches read
    # every seat of 10,000 matches, 37 ms a query against 1.8 with them.
    database = env["DATABASE_URL"].rsplit("/", 1)[1]
    analyze_s = _support.vacuum_analyze(database)
    for i, player in enumerate(players):
        player.port = ports[i % len(ports)]  # the proxy's round robin
        player.index = i
    clients = min(args.clients, matches)
    driver = Driver(argparse.Namespace(**{**vars(args), "clients": clients}), players, args.bot)
    push: PushPages | None = None
    channels = needs_channel(args)
    warm_s = 0.0
    with contextlib.ExitStack() as stack:
        if channels:
            for i, player in enumerate(players):
                player.stream_port = stream_ports[i % len(stream_ports)]
            people = driver if driver.pushed else None
            push = stack.enter_context(
                PushPages(players, stream_ports, args.push_pages, bell, people)
            )
            driver.push = push
            if driver.pushed:
                warm_s = driver.warm_up()
            push.stats.measuring = push.people_stats.measuring = True
        sampler = stack.enter_context(Sampler(database, f"{_support.PG}/{database}"))
        t0 = datetime.now(UTC)
        elapsed = driver.run()
        t1 = datetime.now(UTC)
        sampler.__exit__(None, None, None)
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
        "pace": pace_of(args),
        **stack_shape,
        "seconds": round(elapsed, 1),
        "setup_s": round(setup_s, 1),
        "vacuum_analyze_s": analyze_s,
        "matches_reused": reused,
        "pages_loaded_and_channels_opened_s": round(warm_s, 1),
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
        "looks_after_send": stats.looks_after_send,
        "poll_ms": _support.percentiles(stats.polls),
        "accepted_backlog_at_end": backlog,
        "matches_finished_and_replaced": stats.finished,
        "matches_running_at_end": running,
    }
    if args.think:
        result.update(thinking(stats, matches, args.think, resolved))
    result.update(sampler.figures(elapsed, resolved))
    if push is not None:
        result["push"] = push.figures(elapsed)
        push_errors = (
            push.stats.connect_failures
            + push.stats.dropped
            + len(push.stats.follow_errors)
            + push.people_stats.dropped
        )
    result["errors"] = stats.error_count + push_errors
    result["error_samples"] = stats.errors + result.get("push", {}).get("follow_errors", [])
    return result, ids


def phase_of(args: argparse.Namespace, spec: str) -> argparse.Namespace:
    """A phase of `--phases`: the command line's options, the pace the phase's own
    (`push` alone: told by the push channel, at once)."""
    phase = argparse.Namespace(
        **{**vars(args), "poll": None, "visit": None, "think": 0.0, "push_pages": 0}
    )
    for item in spec.split(","):
        key, has_value, value = item.strip().partition("=")
        if key == "push" and not has_value:
            continue
        if key == "poll" and not has_value:
            phase.poll = POLL_SECONDS
            continue
        if key not in ("poll", "think", "visit", "push-pages", "seconds", "minutes", "refresh"):
            raise ValueError(f"{item!r} in {spec!r}: not a phase's option")
        if not value:
            raise ValueError(f"{item!r} in {spec!r}: a value is missing")
        if key == "push-pages":
            phase.push_pages = int(value)
        elif key == "minutes":
            phase.seconds = float(value) * 60
        else:
            setattr(phase, key, float(value))
    return phase


def pace_of(args: argparse.Namespace) -> str:
    if args.visit is not None:
        return f"a visit every {args.visit} s"
    if args.poll is not None:
        return f"poll every {args.poll} s"
    if args.think:
        return f"told by the push channel, {args.think} s think"
    return "told by the push channel"


def thinking(stats: Stats, people: int, think: float, resolved: int) -> dict[str, Any]:
    """`--think`: the pace offered and whether it was kept.

    A person's cycle is the think plus the site's response (from their pass sent to
    the next turn's form on their page), so `people` offer people / (think +
    response) passes a second. Each pass brings the match's turn of all four seats:
    the person's and then each bot's (a Resolution each, `turns_per_pass` as
    measured), so 1,000 people thinking 26 s offer 1000 / 26.x * 4 ~ 150 turns/s
    when the response is well under a second. `late_ms`: each pass's start against
    its due time (the form seen + think); a median near 0 says the script kept the
    pace, a growing one that the site (or the script's threads) fell behind.
    """
    response = statistics.median(stats.response) if stats.response else None
    per_pass = resolved / len(stats.posts) if stats.posts else None
    offered = people / (think + response) if response is not None else None
    return {
        "think_s": think,
        "passes": len(stats.posts),
        "turns_per_pass": round(per_pass, 2) if per_pass is not None else None,
        "response_ms": _support.percentiles(stats.response),
        "offered_passes_per_s": round(offered, 1) if offered is not None else None,
        "offered_turns_per_s": round(offered * per_pass, 1)
        if offered is not None and per_pass is not None
        else None,
        "late_ms": _support.percentiles(stats.late),
        "passes_early": sum(1 for late in stats.late if late < 0),
        "waited_ms": _support.percentiles(stats.waited),
        "waited_min_ms": round(min(stats.waited) * 1000, 3) if stats.waited else None,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, nargs="+", default=[10, 100])
    parser.add_argument("--minutes", type=float, default=1.0)
    parser.add_argument("--seconds", type=float, help="overrides --minutes")
    parser.add_argument(
        "--refresh", type=float, default=15.0, help="seconds between page loads without a poll"
    )
    parser.add_argument(
        "--poll",
        type=float,
        nargs="?",
        const=POLL_SECONDS,
        help="people poll every POLL seconds (3 without a value) and have no push channel;"
        " by default a person's page is told of each turn by the push channel, as site.js",
    )
    parser.add_argument(
        "--visit", type=float, help="correspondence pace: seconds between a person's visits"
    )
    parser.add_argument(
        "--push-pages", type=int, default=0, help="open pages (SSE on /push/) per push process"
    )
    parser.add_argument(
        "--think",
        type=float,
        default=0.0,
        help="pushed pace: seconds each person thinks from their form appearing to their"
        " pass (0: at once); the offered pace is people / (think + response)",
    )
    parser.add_argument(
        "--phases",
        nargs="+",
        metavar="PHASE",
        help="several paces played in turn on one started stack, each a comma-separated"
        " list of push, poll[=S], think=S, visit=S, push-pages=N, seconds=S, minutes=M,"
        " refresh=S (e.g. poll=0.5,seconds=30 think=2): the pace options come from the"
        " phase only, the rest from the command line",
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
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="play the running matches an earlier run kept in --database (--keep), making"
        " only those missing (setting up 1,000 matches takes minutes)",
    )
    args = parser.parse_args(argv)
    if args.seconds is None:
        args.seconds = args.minutes * 60
    if args.phases is None:
        phases = [args]
    elif args.poll is not None or args.visit is not None or args.think or args.push_pages:
        parser.error(
            "--phases gives each phase its pace: no --poll, --visit, --think, --push-pages"
        )
    else:
        try:
            phases = [phase_of(args, spec) for spec in args.phases]
        except ValueError as error:
            parser.error(f"--phases: {error}")
    for phase in phases:
        if phase.think < 0:
            parser.error("--think: seconds, 0 or more")
        if phase.think and (phase.poll is not None or phase.visit is not None):
            parser.error("--think is for the push channel's pace (the default), not --poll/--visit")

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
            run
            for n in args.matches
            for w in args.workers
            for g in args.webs
            for run in run_one(args, env, n, w, g, phases)
        ]
    finally:
        _support.purge_queue(env)
        from django.db import connections

        connections.close_all()
        if not args.keep:
            _support.drop_database(database)
    figures: dict[str, Any] = {"runs": runs}
    if len(runs) > len(phases):
        # Each run against the first of its phase (the runs of a stack are its
        # phases, in their order).
        figures["growth_vs_first"] = [
            {
                "pace": r["pace"],
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
            for i, r in enumerate(runs)
            for base in [runs[i % len(phases)]]
        ]

    def said(r: dict[str, Any]) -> str:
        text = f"{r['pace']}: " if len(phases) > 1 else ""
        text += (
            f"{r['matches']} matches, {r['worker_processes']} worker and {r['web_processes']} web"
            f" processes, for {r['seconds']} s: {r['turns_resolved_per_s']} turns/s,"
            f" {r['board_views_per_s']} views/s, view p99 {r['view_ms']['p99']} ms,"
            f" post p99 {r['post_ms']['p99']} ms, CPU ms a turn: "
            + ", ".join(f"{k} {v}" for k, v in r["cpu_ms_per_turn"].items() if v)
        )
        if "push" in r and r["push"]["pages_connected"]:
            p = r["push"]
            text += (
                f"; {p['pages_connected']} pages on /push/, fan-out median"
                f" {p['fanout_ms']['median']} ms, p99 {p['fanout_ms']['p99']} ms"
            )
        if "people" in r.get("push", {}):
            p = r["push"]["people"]
            text += (
                f"; the people's channels: fan-out median {p['fanout_ms']['median']} ms,"
                f" p99 {p['fanout_ms']['p99']} ms"
            )
        if "think_s" in r:
            text += (
                f"; {r['think_s']} s think: offered {r['offered_turns_per_s']} turns/s,"
                f" response median {r['response_ms']['median']} ms, passes started late"
                f" median {r['late_ms']['median']} ms, p99 {r['late_ms']['p99']} ms"
            )
        text += f", accepted to claim median {r['accepted_to_claim_ms']['median']} ms"
        text += f", load {r['loadavg_1m_before_after']}"
        machine = r["machine_pct"]
        text += f", machine idle {machine['idle']} %, other work {machine['other_work']} %"
        return text + f", {r['errors']} errors"

    _support.emit("scale", figures, "; ".join(said(r) for r in runs))
    return 0 if all(r["errors"] == 0 for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
