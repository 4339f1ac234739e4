"""The event stream under ASGI: a thousand waiting bots hold no thread.

Each open stream is a coroutine waiting on an asyncio.Event. One `Hub` per event
loop (so per web process) reads the fingerprints of every streaming user's matches
in one query every POLL_SECONDS and sets the Event of each stream whose digest
changed; that stream then re-reads what changed (stream.Session). The database
reads run on a few threads of the hub's own (`DbThreads`), whatever the number of
streams. helium3_site/asgi.py sends GET /api/v1/stream/ here before Django's
handler, whose per-request thread (asgiref's ThreadSensitiveContext, which the
site's synchronous middleware needs) would otherwise stay with each stream.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
import weakref
from collections.abc import Awaitable, Callable, Mapping
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any, TypeVar

from django.db import close_old_connections, connections

from games.api import stream
from games.api.stream import Digest, Refusal, Session

log = logging.getLogger(__name__)

T = TypeVar("T")
Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[Mapping[str, Any]], Awaitable[None]]

# Threads for the streams' database reads, per process: the reads are short and the
# database does the work, so a few are enough for any number of streams.
DB_THREADS = 4
_STOP = None


class DbThreads:
    """A few threads that run the streams' database reads for one event loop.

    A thread keeps its connection between jobs (CONN_MAX_AGE, as a WSGI server's
    thread does between requests); the threads stop, closing their connections,
    once no job is pending and nobody holds them (the hub, while streams are open).
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self.holders = 0
        self._pending = 0
        self._jobs: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        loop = asyncio.get_running_loop()
        done: asyncio.Future[T] = loop.create_future()
        if not self._threads:
            self._threads = [
                threading.Thread(
                    target=self._work, args=(self._jobs,), name=f"h3-stream-db-{n}", daemon=True
                )
                for n in range(self.size)
            ]
            for thread in self._threads:
                thread.start()
        self._pending += 1
        self._jobs.put((fn, args, loop, done))
        try:
            return await done
        finally:
            self._pending -= 1
            self.stop_if_idle()

    def stop_if_idle(self) -> None:
        if self._pending or self.holders or not self._threads:
            return
        jobs, self._jobs = self._jobs, queue.SimpleQueue()
        threads, self._threads = self._threads, []
        for _ in threads:
            jobs.put(_STOP)

    @staticmethod
    def _work(jobs: queue.SimpleQueue[Any]) -> None:
        while True:
            job = jobs.get()
            if job is _STOP:
                connections.close_all()
                return
            fn, args, loop, done = job
            close_old_connections()
            try:
                outcome: tuple[Any, BaseException | None] = (fn(*args), None)
            except BaseException as error:  # handed to the waiting coroutine
                outcome = (None, error)
            finally:
                close_old_connections()
            # The loop may have closed meanwhile (the server stopped): nobody waits.
            with suppress(RuntimeError):
                loop.call_soon_threadsafe(_settle, done, *outcome)


def _settle(done: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if done.done():  # the stream went away while its read ran
        return
    if error is not None:
        done.set_exception(error)
    else:
        done.set_result(result)


@dataclass(eq=False)
class Subscriber:
    """One open stream, as the hub sees it."""

    user_id: int
    token_id: int
    session: Session
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    latest: Digest | None = None
    closed: bool = False

    def close(self) -> None:
        self.closed = True
        self.wake.set()


class Hub:
    """The process's streams, woken by one loop that reads the database."""

    _hubs: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Hub] = weakref.WeakKeyDictionary()

    def __init__(self) -> None:
        self.db = DbThreads(DB_THREADS)
        self.subscribers: set[Subscriber] = set()
        self._task: asyncio.Task[None] | None = None

    @classmethod
    def current(cls) -> Hub:
        loop = asyncio.get_running_loop()
        hub = cls._hubs.get(loop)
        if hub is None:
            hub = cls._hubs[loop] = cls()
        return hub

    def subscribe(self, subscriber: Subscriber) -> None:
        self.subscribers.add(subscriber)
        if self._task is None:
            self.db.holders += 1
            self._task = asyncio.get_running_loop().create_task(self._watch())

    def unsubscribe(self, subscriber: Subscriber) -> None:
        self.subscribers.discard(subscriber)

    async def _watch(self) -> None:
        loop = asyncio.get_running_loop()
        tokens_checked = loop.time()
        try:
            while self.subscribers:
                users = {s.user_id for s in self.subscribers}
                try:
                    digests = await self.db.run(stream.read_digests, users)
                    if loop.time() - tokens_checked >= stream.TOKEN_CHECK_SECONDS:
                        tokens = {s.token_id for s in self.subscribers}
                        active = await self.db.run(stream.active_tokens, tokens)
                        for subscriber in list(self.subscribers):
                            if subscriber.token_id not in active:
                                subscriber.close()
                        tokens_checked = loop.time()
                except Exception:
                    # The database is away: streams keep their connections and hear
                    # everything once it is back (they compare with what they told).
                    log.exception("stream hub: reading the matches failed; retrying")
                    await asyncio.sleep(1.0)
                    continue
                for subscriber in list(self.subscribers):
                    latest = digests.get(subscriber.user_id, {})
                    subscriber.latest = latest
                    if latest != subscriber.session.seen:
                        subscriber.wake.set()
                await asyncio.sleep(stream.POLL_SECONDS)
        finally:
            self._task = None
            self.db.holders -= 1
            self.db.stop_if_idle()


async def _send_refusal(send: Send, refusal: Refusal) -> None:
    body = refusal.body()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    headers += [(name.lower().encode(), value.encode("latin1")) for name, value in refusal.headers]
    await send({"type": "http.response.start", "status": refusal.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _until_disconnect(receive: Receive, subscriber: Subscriber) -> None:
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            subscriber.close()
            return


async def _serve(hub: Hub, subscriber: Subscriber, send: Send) -> None:
    session = subscriber.session
    lines = stream.encode(await hub.db.run(session.open))
    while not subscriber.closed:
        if lines:
            await send({"type": "http.response.body", "body": lines, "more_body": True})
        try:
            await asyncio.wait_for(subscriber.wake.wait(), stream.KEEPALIVE_SECONDS)
        except TimeoutError:
            lines = b"\n"
            continue
        subscriber.wake.clear()
        latest = subscriber.latest
        lines = b""
        if not subscriber.closed and latest is not None and latest != session.seen:
            lines = stream.encode(await hub.db.run(session.catch_up, latest))


async def stream_app(scope: Scope, receive: Receive, send: Send) -> None:
    """GET /api/v1/stream/ as an ASGI application (docs/api-stream.md)."""
    hub = Hub.current()
    headers = {
        name.decode("latin1").lower(): value.decode("latin1") for name, value in scope["headers"]
    }
    # The database threads stay up from the check to the subscription (which holds
    # them while the stream is open), rather than stopping in between.
    hub.db.holders += 1
    try:
        try:
            found = await hub.db.run(
                stream.check_request,
                scope["method"],
                headers.get("host", ""),
                scope.get("query_string", b"").decode("latin1"),
                headers.get("authorization"),
            )
        except Exception:
            log.exception("stream: checking a request failed")
            found = stream.UNAVAILABLE
        if not isinstance(found, Refusal) and not stream.OPEN_STREAMS.take(found.pk):
            found = stream.TOO_MANY_STREAMS
        if not isinstance(found, Refusal):
            subscriber = Subscriber(
                user_id=found.user_id, token_id=found.pk, session=Session(found.user_id)
            )
            # Subscribed before the first read: a change after it wakes the stream.
            hub.subscribe(subscriber)
    finally:
        hub.db.holders -= 1
        hub.db.stop_if_idle()
    if isinstance(found, Refusal):
        await _send_refusal(send, found)
        return
    listener = asyncio.get_running_loop().create_task(_until_disconnect(receive, subscriber))
    try:
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(n.lower().encode(), v.encode()) for n, v in stream.STREAM_HEADERS],
            }
        )
        try:
            await _serve(hub, subscriber, send)
        except Exception:
            # The stream ends; the bot reconnects and hears the current state.
            log.exception("stream: reading the matches of user %s failed", subscriber.user_id)
        await send({"type": "http.response.body", "body": b"", "more_body": False})
    finally:
        hub.unsubscribe(subscriber)
        stream.OPEN_STREAMS.give_back(found.pk)
        listener.cancel()
