"""GET /push/: the pages' push channel, server-sent events served on the event loop.

A page opens one EventSource to /push/?match=<id>&last=<version> (the match it
shows, the version it shows; a page of no match names none and hears only its
viewer's "your move" count; the watch page adds watch=1 for its list). The hub of
the process (one per event loop, the design of games/api/stream_asgi.py) reads, in
one query for all its pages, the versions of the matches they show at least every
SWEEP_SECONDS, and when the doorbell rings (games/push/bell.py) what the ring can
have changed: the version of the match it names and the counts of its players
among the listeners (a ring that names no match, the file bell's, reads all); it
wakes the pages whose version changed.

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
        self.versions: dict[int, tuple[str, int]] = {}
        self.counts: dict[int, int] = {}
        self.watch: str | None = None
        self.rung = asyncio.Event()
        # What the rings since the last read named: the matches (a Redis ring carries
        # its match's id), the users of pages just opened, or everything (a file ring,
        # a ring without an id, the bell's reconnection). A read reads only what
        # these can have changed; every SWEEP_SECONDS it reads everything.
        self.rung_matches: set[int] = set()
        self.new_users: set[int] = set()
        self.rung_all = True
        self.read_all_at = -math.inf  # the loop's time of the last read of everything
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
            self.rung_matches.add(listener.match_id)
        if listener.user_id is not None:
            self.new_users.add(listener.user_id)
        self.rung.set()
        if not self._tasks:
            self.db.holders += 1
            loop = asyncio.get_running_loop()
            self._tasks = [loop.create_task(self._watch()), loop.create_task(self._doorbell())]

    def unsubscribe(self, listener: Listener) -> None:
        self.listeners.discard(listener)

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
                    await pubsub.subscribe(bell.CHANNEL)
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
        try:
            loop = asyncio.get_running_loop()
            while self.listeners:
                self.rung.clear()
                matches = {x.match_id for x in self.listeners if x.match_id is not None}
                users = {x.user_id for x in self.listeners if x.user_id is not None}
                watch = any(x.watch for x in self.listeners)
                whole = self.rung_all or loop.time() - self.read_all_at >= SWEEP_SECONDS
                rung, new_users = self.rung_matches, self.new_users
                self.rung_all, self.rung_matches, self.new_users = False, set(), set()
                try:
                    if whole:
                        started = loop.time()
                        found = await self.db.run(reads.read, matches, users, watch)
                        self.versions, self.counts = found.versions, found.counts
                        self.read_all_at = started
                    else:
                        found = await self.db.run(
                            reads.read_rung, rung, matches, users, new_users, watch
                        )
                        self.versions.update(found.versions)
                        self.counts.update(found.counts)
                    self.watch = found.watch
                except Exception:
                    log.exception("push hub: reading the matches failed; retrying")
                    self.rung_all = True
                    await asyncio.sleep(1.0)
                    continue
                for listener in list(self.listeners):
                    if self._news(listener):
                        listener.wake.set()
                # The next read of everything is due SWEEP_SECONDS after the last,
                # however often the bell rings meanwhile.
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

    def _news(self, listener: Listener) -> bool:
        if listener.match_id is not None:
            found = self.versions.get(listener.match_id)
            if found is not None and found[0] != listener.told_match:
                return True
        if listener.user_id is not None:
            count = self.counts.get(listener.user_id)
            if count is not None and count != listener.told_count:
                return True
        return listener.watch and self.watch is not None and self.watch != listener.told_watch

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
