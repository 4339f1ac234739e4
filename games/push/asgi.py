"""GET /push/: the pages' push channel, server-sent events served on the event loop.

A page opens one EventSource to /push/?match=<id>&last=<version> (the match it
shows, the version it shows; a page of no match names none and hears only its
viewer's "your move" count; the watch page adds watch=1 for its list). The hub of
the process (one per event loop, the design of games/api/stream_asgi.py) reads,
when the doorbell rings (games/push/bell.py), what the ring can have changed: the
version of the match it names and the counts of its players (a read whose size
follows the rings, not the pages); and every SWEEP_SECONDS it sweeps: the versions
of every match its pages show and every listener's count, SWEEP_CHUNK of each a
query, a ring's read going before the sweep's next part (a ring that names no
match, the file bell's, begins a sweep). It wakes only the pages of what a read
names that were not told it yet.

Events (each `id:` is "<match version>|<your move count>", and "|<watch version>"
after it on a watching page, so a reconnecting EventSource's Last-Event-ID says
what the page was last told, and a turn is told again only if it is not the one
told):
- `turn`: {"match": id, "turn": n, "version": "running.12.waiting"}, public facts
  only; the page then asks its own view through the poll (games/views/board.py).
- `moves`: {"count": n}, the signed-in viewer's own count of matches waiting.
- `watch`: {"version": "<digest>"}, the watch page's list changed (a public match
  began, ended, paused or resumed, or one of them is at another turn); the page
  then asks its list again (games/views/lobby.py watch).
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import os
import weakref
from contextlib import suppress
from dataclasses import dataclass, field
from urllib.parse import parse_qs

from games.api.stream_asgi import DB_THREADS, DbThreads, Receive, Scope, Send
from games.push import bell, reads

log = logging.getLogger(__name__)

PUSH_PATH = "/push/"
# Without a ring the hub still reads every SWEEP_SECONDS: a lost ring, or a change
# made where no bell rings, reaches the pages within it.
SWEEP_SECONDS = float(os.environ.get("PUSH_SWEEP_SECONDS", "2.0"))
# The sweep reads this many matches (and listeners' counts) at a time; a ring waits
# at most for one such part, however many pages the process has.
SWEEP_CHUNK = 250
KEEPALIVE_SECONDS = 15.0
# What a browser waits before reconnecting a dropped channel.
RETRY_MS = 1000
HEADERS = (
    ("content-type", "text/event-stream; charset=utf-8"),
    ("cache-control", "no-store"),
    ("x-accel-buffering", "no"),
)


@dataclass(eq=False)
class Listener:
    match_id: int | None
    user_id: int | None
    watch: bool = False
    told_match: str | None = None
    told_count: int | None = None
    told_watch: str | None = None
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    closed: bool = False

    def close(self) -> None:
        self.closed = True
        self.wake.set()


class Hub:
    """The process's open pages, woken by the doorbell and one database read."""

    _hubs: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Hub] = weakref.WeakKeyDictionary()

    def __init__(self) -> None:
        self.db = DbThreads(DB_THREADS)
        self.listeners: set[Listener] = set()
        # The listeners by the match they show and by their viewer: a read wakes only
        # the pages of what it found changed, and no read walks every page.
        self.by_match: dict[int, set[Listener]] = {}
        self.by_user: dict[int, set[Listener]] = {}
        self.watchers: set[Listener] = set()  # the watch page's
        self.versions: dict[int, tuple[str, int]] = {}
        self.counts: dict[int, int] = {}
        self.watch: str | None = None
        self.rung = asyncio.Event()
        # What the rings since the last read named: the matches (a Redis ring carries
        # its match's id), the users of pages just opened, or everything (a file ring,
        # a ring without an id, the bell's reconnection). A ring's read reads only
        # what these can have changed, and goes before the sweep's next part.
        self.rung_matches: set[int] = set()
        self.new_users: set[int] = set()
        self.rung_all = True
        # The sweep: every SWEEP_SECONDS, every listened match and listener's count,
        # read SWEEP_CHUNK of each at a time, a ring's read between two parts.
        self.sweep_matches: list[int] = []
        self.sweep_users: list[int] = []
        self.sweeping = False
        self.read_all_at = -math.inf  # the loop's time the last sweep began
        self._tasks: list[asyncio.Task[None]] = []

    @classmethod
    def current(cls) -> Hub:
        loop = asyncio.get_running_loop()
        hub = cls._hubs.get(loop)
        if hub is None:
            hub = cls._hubs[loop] = cls()
        return hub

    def subscribe(self, listener: Listener) -> None:
        self.listeners.add(listener)
        # Read at once for the newcomer: its match and its count.
        if listener.match_id is not None:
            self.by_match.setdefault(listener.match_id, set()).add(listener)
            self.rung_matches.add(listener.match_id)
        if listener.user_id is not None:
            self.by_user.setdefault(listener.user_id, set()).add(listener)
            self.new_users.add(listener.user_id)
        if listener.watch:
            self.watchers.add(listener)
        self.rung.set()
        if not self._tasks:
            self.db.holders += 1
            loop = asyncio.get_running_loop()
            self._tasks = [loop.create_task(self._watch()), loop.create_task(self._doorbell())]

    def unsubscribe(self, listener: Listener) -> None:
        if listener not in self.listeners:
            return
        self.listeners.discard(listener)
        if listener.match_id is not None and _drop(self.by_match, listener.match_id, listener):
            self.versions.pop(listener.match_id, None)
        if listener.user_id is not None and _drop(self.by_user, listener.user_id, listener):
            self.counts.pop(listener.user_id, None)
        self.watchers.discard(listener)

    def ring_for(self, match_id: int | None) -> None:
        """A ring for match `match_id` (None: for everything): the next read reads it."""
        if match_id is None:
            self.rung_all = True
        else:
            self.rung_matches.add(match_id)
        self.rung.set()

    async def _doorbell(self) -> None:
        url = bell.redis_url()
        if url:
            await self._redis_bell(url)
        else:
            await self._file_bell()

    async def _file_bell(self) -> None:
        path = bell.bell_file()
        mark = bell.file_mark(path)
        while self.listeners:
            await asyncio.sleep(bell.BELL_CHECK_SECONDS)
            now = bell.file_mark(path)
            if now != mark:
                mark = now
                self.ring_for(None)  # the file says no match

    async def _redis_bell(self, url: str) -> None:
        import redis.asyncio as aioredis

        while self.listeners:
            client = aioredis.Redis.from_url(url)
            try:
                async with client.pubsub() as pubsub:
                    await pubsub.subscribe(bell.channel(url))
                    self.ring_for(None)  # rings missed while away: read now
                    while self.listeners:
                        message = await pubsub.get_message(
                            ignore_subscribe_messages=True, timeout=1.0
                        )
                        if message is not None:
                            self.ring_for(_match_of(message.get("data")))
            except Exception:
                log.warning("push: the Redis doorbell failed; retrying", exc_info=True)
                await asyncio.sleep(1.0)
            finally:
                with suppress(Exception):
                    await client.aclose()

    async def _watch(self) -> None:
        """Reads one at a time (so a later read's answer is never overwritten by an
        earlier one's): what the rings named first, then the sweep's next part."""
        try:
            loop = asyncio.get_running_loop()
            while self.listeners:
                self.rung.clear()
                if self.rung_all or (
                    not self.sweeping and loop.time() - self.read_all_at >= SWEEP_SECONDS
                ):
                    # A sweep under way when everything rang goes on where it is and
                    # then reads again what it read before the ring (each match is
                    # read after the ring, and rings that keep coming starve no part).
                    self.rung_all = False
                    self.sweeping = True
                    self.read_all_at = loop.time()
                    self.sweep_matches = _after_ring(self.sweep_matches, self.by_match)
                    self.sweep_users = _after_ring(self.sweep_users, self.by_user)
                    # What rang is read by the sweep's parts.
                    self.rung_matches.clear()
                    self.new_users.clear()
                try:
                    if self.rung_matches or self.new_users:
                        await self._read_rung()
                    if self.sweeping:
                        await self._sweep_part()
                except Exception:
                    log.exception("push hub: reading the matches failed; retrying")
                    self.rung_all = True
                    await asyncio.sleep(1.0)
                    continue
                if self.sweeping or self.rung_all or self.rung_matches or self.new_users:
                    await asyncio.sleep(0)  # the pages woken write their events first
                    continue
                # The next sweep is due SWEEP_SECONDS after the last began, however
                # often the bell rings meanwhile.
                due = self.read_all_at + SWEEP_SECONDS - loop.time()
                with suppress(TimeoutError):
                    await asyncio.wait_for(self.rung.wait(), max(due, 0.0))
        finally:
            for task in self._tasks:
                if task is not asyncio.current_task():
                    task.cancel()
            self._tasks = []
            self.db.holders -= 1
            self.db.stop_if_idle()

    async def _read_rung(self) -> None:
        rung, new_users = self.rung_matches, self.new_users
        self.rung_matches, self.new_users = set(), set()
        found = await self.db.run(
            reads.read_rung,
            {m for m in rung if m in self.by_match},
            rung,
            {u for u in new_users if u in self.by_user},
            bool(self.watchers),
        )
        self._take(found)

    async def _sweep_part(self) -> None:
        matches = self.sweep_matches[:SWEEP_CHUNK]
        users = self.sweep_users[:SWEEP_CHUNK]
        del self.sweep_matches[:SWEEP_CHUNK], self.sweep_users[:SWEEP_CHUNK]
        self.sweeping = bool(self.sweep_matches or self.sweep_users)
        found = await self.db.run(
            reads.read,
            {m for m in matches if m in self.by_match},
            {u for u in users if u in self.by_user},
            bool(self.watchers) and not self.sweeping,  # the list once a sweep
        )
        self._take(found)

    def _take(self, found: reads.Read) -> None:
        """Keeps what `found` says of the pages still open and wakes those of them
        not told it yet (only the pages of the matches and viewers it names)."""
        woken: list[Listener] = []
        for match_id, version in found.versions.items():
            pages = self.by_match.get(match_id)
            if pages is not None:
                self.versions[match_id] = version
                woken += (x for x in pages if x.told_match != version[0])
        for user_id, count in found.counts.items():
            pages = self.by_user.get(user_id)
            if pages is not None:
                self.counts[user_id] = count
                woken += (x for x in pages if x.told_count != count)
        if found.watch is not None:
            self.watch = found.watch
            woken += (x for x in self.watchers if x.told_watch != found.watch)
        for listener in woken:
            listener.wake.set()

    def events(self, listener: Listener) -> bytes:
        """What `listener` has not been told yet, as SSE lines; marks it told."""
        out: list[str] = []
        if listener.match_id is not None:
            found = self.versions.get(listener.match_id)
            if found is not None and found[0] != listener.told_match:
                listener.told_match = found[0]
                data = {"match": listener.match_id, "turn": found[1], "version": found[0]}
                out.append(f"event: turn\ndata: {json.dumps(data)}\n")
        if listener.user_id is not None:
            count = self.counts.get(listener.user_id)
            if count is not None and count != listener.told_count:
                listener.told_count = count
                out.append(f"event: moves\ndata: {json.dumps({'count': count})}\n")
        if listener.watch and self.watch is not None and self.watch != listener.told_watch:
            listener.told_watch = self.watch
            out.append(f"event: watch\ndata: {json.dumps({'version': self.watch})}\n")
        if not out:
            return b""
        told = f"{listener.told_match or '-'}|{'-' if listener.told_count is None else listener.told_count}"
        if listener.watch:
            told += f"|{listener.told_watch or '-'}"
        # One id for the lot, given with the last event (it is what the browser keeps).
        out[-1] = f"id: {told}\n{out[-1]}"
        return "\n".join(out).encode() + b"\n"


def _after_ring(left: list[int], index: dict[int, set[Listener]]) -> list[int]:
    """A sweep's keys to read after a ring for everything: what the sweep under way
    has `left`, then every other key of `index` (all of them when none is left)."""
    keys = [k for k in left if k in index]
    seen = set(keys)
    return keys + [k for k in sorted(index) if k not in seen]


def _drop(index: dict[int, set[Listener]], key: int, listener: Listener) -> bool:
    """Takes `listener` out of `index`; True when it was the last under `key`."""
    pages = index.get(key)
    if pages is None:
        return False
    pages.discard(listener)
    if pages:
        return False
    del index[key]
    return True


def _match_of(data: object) -> int | None:
    """The match id a Redis ring carries (bell.ring), or None (read everything)."""
    if isinstance(data, bytes | str):
        try:
            return int(data)
        except ValueError:
            return None
    return None


def parse_told(value: str | None) -> tuple[str | None, int | None, str | None]:
    """A Last-Event-ID (or `last`): "<match version>|<count>", and "|<watch version>"
    on a watching page; any part "-" (not told)."""
    if not value:
        return None, None, None
    version, _, rest = value.partition("|")
    count, _, watch = rest.partition("|")
    told_count = int(count) if count.isdigit() else None
    told_watch = watch if watch and watch != "-" else None
    return (version if version and version != "-" else None), told_count, told_watch


async def _refuse(send: Send, refused: reads.Refused) -> None:
    body = json.dumps({"error": {"code": refused.code, "message": refused.message}}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": refused.status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"cache-control", b"no-store"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


async def _until_disconnect(receive: Receive, listener: Listener) -> None:
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            listener.close()
            return


async def push_app(scope: Scope, receive: Receive, send: Send) -> None:
    """GET /push/ as an ASGI application."""
    if scope["method"] not in ("GET", "HEAD"):
        await _refuse(send, reads.Refused(405, "method_not_allowed", "Use GET."))
        return
    hub = Hub.current()
    headers = {k.decode("latin1").lower(): v.decode("latin1") for k, v in scope["headers"]}
    query = parse_qs(scope.get("query_string", b"").decode("latin1"))
    match_param = query.get("match", [None])[0]
    watch_param = query.get("watch", [None])[0]
    hub.db.holders += 1
    try:
        try:
            found = await hub.db.run(
                reads.check, headers.get("cookie", ""), match_param, watch_param
            )
        except Exception:
            log.exception("push: checking a request failed")
            found = reads.Refused(503, "unavailable", "The push channel is unavailable; poll.")
    finally:
        hub.db.holders -= 1
        hub.db.stop_if_idle()
    if isinstance(found, reads.Refused):
        await _refuse(send, found)
        return
    told_match, told_count, told_watch = parse_told(
        headers.get("last-event-id") or query.get("last", [None])[0]
    )
    listener = Listener(
        match_id=found.match_id,
        user_id=found.user_id,
        watch=found.watch,
        told_match=told_match,
        told_count=told_count,
        told_watch=told_watch,
    )
    hub.subscribe(listener)
    disconnect = asyncio.get_running_loop().create_task(_until_disconnect(receive, listener))
    try:
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(k.encode(), v.encode()) for k, v in HEADERS],
            }
        )
        body = f"retry: {RETRY_MS}\n\n".encode()
        while not listener.closed:
            if body:
                await send({"type": "http.response.body", "body": body, "more_body": True})
            try:
                await asyncio.wait_for(listener.wake.wait(), KEEPALIVE_SECONDS)
            except TimeoutError:
                body = b": keepalive\n\n"
                continue
            listener.wake.clear()
            body = b"" if listener.closed else hub.events(listener)
        with suppress(Exception):
            await send({"type": "http.response.body", "body": b"", "more_body": False})
    finally:
        hub.unsubscribe(listener)
        disconnect.cancel()
