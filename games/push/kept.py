"""Match page versions a web process has read, served again without asking the
database while the doorbell (bell.py) has not rung since.

An unchanged match page costs one query: its version (selectors.match_page_version),
the round trip to PostgreSQL that most of such a view's time goes to. Every commit
that changes what a match page shows rings the bell after it (a turn's orders
accepted, a turn begun or resolved, a match finished), and the "your move" count
changes only with those. So a process that hears every ring knows when a version it
read may have changed: at the next ring, of any match (a ring names its match, not
the players whose counts it moves). Until then the version it read is still the
database's, and the page cached under it (views.match_detail) is served as it is.

Each process has an ear on the bell of its own:
- Redis pub/sub: a connection of its own subscribed to the bell's channel. Before it
  trusts anything, the request asks the connection, without waiting, whether a
  ring has come. Redis writes a ring to every subscriber in the same pass of its
  event loop as the PUBLISH's reply, microseconds apart; the POST that rang answers
  only after that reply, and its browser asks for the next page after the answer.
  So the ring is in every process's socket before that page is asked for. A
  connection that fails or drops forgets all it kept: rings may have been missed.
- The file bell (`make run`): the file's inode, size and time, one stat().

What no bell rings for (an admin's edit in the Django admin, a pause, a challenge's
badge) reaches the page within PAGE_VERSION_KEEP_SECONDS at most, as it reaches a
page on the push channel within its sweep (PUSH_SWEEP_SECONDS). 0 turns this off.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Hashable
from typing import Any

from django.conf import settings

from games.push import bell

log = logging.getLogger(__name__)

# At most so many versions in a process (each a few model instances): past it, all go.
MAX_KEPT = 5_000
# After a failed connection, this long before the ear tries again (each try may
# wait for the connection's timeout, on a request's time).
RETRY_SECONDS = 5.0
CONNECT_TIMEOUT = 0.5


class _RedisEar:
    """One process's subscription to the bell's channel, asked without waiting."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.pid = os.getpid()
        self.lock = threading.Lock()
        self.client: Any = None
        self.pubsub: Any = None
        # A new connection is a new generation: no mark of the old one matches.
        self.generation = 0
        self.heard = 0
        self.connects = 0
        self.retry_at = 0.0

    def mark(self) -> Hashable | None:
        with self.lock:
            if self.pubsub is None and not self._connect():
                return None
            try:
                if self.pubsub.connection.can_read(timeout=0):
                    self._drain()
                if self.connects != 1:
                    # Connected again under the ear (rings in between unheard).
                    raise ConnectionError("the bell's subscription was made again")
            except Exception as error:
                log.warning("push: the page versions' ear lost Redis: %s", error)
                self._close()
                return None
            # The process's id too: a process forked from this one keeps its memory
            # but not its subscription.
            return (self.pid, self.generation, self.heard)

    def _connect(self) -> bool:
        now = time.monotonic()
        if now < self.retry_at:
            return False
        import redis
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        self.connects = 0
        try:
            # No retry: a connection lost must be seen, never made again quietly.
            client = redis.Redis.from_url(
                self.url,
                socket_timeout=CONNECT_TIMEOUT,
                socket_connect_timeout=CONNECT_TIMEOUT,
                retry=Retry(NoBackoff(), 0),
            )
            pubsub = client.pubsub()  # type: ignore[no-untyped-call]
            pubsub.subscribe(bell.channel(self.url))
            pubsub.connection.register_connect_callback(self._connected)
            # Trusted only once Redis has confirmed the subscription: a ring before
            # it would never be heard.
            confirmed = pubsub.get_message(timeout=CONNECT_TIMEOUT)
            if not confirmed or confirmed.get("type") != "subscribe":
                raise ConnectionError(f"no confirmation of the subscription: {confirmed!r}")
            self.connects = 1
        except Exception as error:
            log.warning("push: the page versions' ear cannot reach Redis: %s", error)
            self.retry_at = now + RETRY_SECONDS
            return False
        # The client kept too: once collected, it closes its pool's connections.
        self.client, self.pubsub = client, pubsub
        self.generation += 1
        return True

    def _connected(self, connection: Any) -> None:
        self.connects += 1

    def _drain(self) -> None:
        """Every message waiting (in the socket and in the parser's buffer): any
        one of them is a ring."""
        rang = False
        while self.pubsub.get_message(timeout=0) is not None:
            rang = True
        if rang:
            self.heard += 1

    def _close(self) -> None:
        client, pubsub, self.client, self.pubsub = self.client, self.pubsub, None, None
        if pubsub is not None:
            try:
                pubsub.close()
                client.close()
            except Exception:
                log.debug("push: closing the ear's subscription failed", exc_info=True)


_ears: dict[str, _RedisEar] = {}
_ears_lock = threading.Lock()


def mark() -> Hashable | None:
    """What this process has heard of the bell so far, or None when it cannot tell
    (the bell's Redis away, or keeping turned off). Two equal marks: no ring came
    between them."""
    if _keep_seconds() <= 0:
        return None
    url = bell.redis_url()
    if not url:
        return ("file", bell.file_mark(bell.bell_file()))
    ear = _ears.get(url)
    if ear is None or ear.pid != os.getpid():  # a forked process hears on its own
        with _ears_lock:
            ear = _ears.get(url)
            if ear is None or ear.pid != os.getpid():
                ear = _ears[url] = _RedisEar(url)
    return ear.mark()


def _keep_seconds() -> float:
    return float(getattr(settings, "PAGE_VERSION_KEEP_SECONDS", 0.0))


class Kept:
    """The versions read under one mark: (match id, user id) -> (version, until)."""

    def __init__(self, mark: Hashable | None = None) -> None:
        self.mark = mark
        self.versions: dict[tuple[int, int | None], tuple[Any, float]] = {}


_kept = Kept()
_kept_lock = threading.Lock()


def kept(match_id: int, user_id: int | None, now_mark: Hashable | None) -> Any:
    """The version of (match, user) read under `now_mark` and not yet too old, or None."""
    if now_mark is None:
        return None
    memo = _kept
    if memo.mark != now_mark:
        return None
    found = memo.versions.get((match_id, user_id))
    if found is None or found[1] < time.monotonic():
        return None
    return found[0]


def keep(match_id: int, user_id: int | None, version: Any, read_mark: Hashable | None) -> None:
    """Remember `version`, read after `read_mark` was taken, if no ring has come
    since the mark (after one, the read may be of either side of its change)."""
    if read_mark is None or version is None or mark() != read_mark:
        return
    until = time.monotonic() + _keep_seconds()
    global _kept
    with _kept_lock:
        memo = _kept
        if memo.mark != read_mark or len(memo.versions) >= MAX_KEPT:
            memo = _kept = Kept(read_mark)
        memo.versions[(match_id, user_id)] = (version, until)


def forget() -> None:
    """Forget every version kept (tests and benchmarks: a change made behind the
    bell's back)."""
    global _kept
    with _kept_lock:
        _kept = Kept()
