"""The doorbell: after a commit that changes what a match page shows, every web
process is told "match N changed"; each then reads the database (the source of
truth) and tells its open pages.

Two ways to ring, one chosen by the settings:
- Redis pub/sub (production: PUSH_REDIS_URL, else REDIS_URL, else a redis://
  CELERY_BROKER_URL): one PUBLISH on the channel of that Redis database
  (`channel`), heard by every process.
- A file (the embedded run, `make run`, no Redis): one byte appended to
  PUSH_BELL_FILE (default var/push/bell); every process on the machine watches
  its size and time, a stat() every BELL_CHECK_SECONDS, for all its pages at once.

A ring carries only the match id: what changed is read from the database by each
listening process, so a lost ring costs at most one sweep (hub.SWEEP_SECONDS).
Other channels (Web Push) can hook in beside: `ring` is the one place a change is
announced.
"""

from __future__ import annotations

import functools
import logging
import os
import threading
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import transaction

log = logging.getLogger(__name__)

CHANNEL = "h3:push"
BELL_CHECK_SECONDS = 0.01
# The bell file is emptied once it grows past this (its size still changes).
BELL_FILE_MAX = 64 * 1024

_redis_lock = threading.Lock()
# One client per URL: the settings may name another Redis later in a process's life
# (a test's own server), and a ring must go where the listeners are.
_redis_clients: dict[str, Any] = {}


def redis_url() -> str:
    """The Redis that carries the rings, or "" for the file bell."""
    for url in (
        getattr(settings, "PUSH_REDIS_URL", None),
        os.environ.get("PUSH_REDIS_URL"),
        os.environ.get("REDIS_URL"),
        getattr(settings, "CELERY_BROKER_URL", ""),
    ):
        if url and str(url).startswith(("redis://", "rediss://", "unix://")):
            return str(url)
        if url == "file":  # PUSH_REDIS_URL=file: the file bell even beside Redis
            return ""
    return ""


@functools.lru_cache(maxsize=32)
def channel(url: str) -> str:
    """The channel the rings go on in the Redis at `url`: CHANNEL and the database's
    number. A channel is heard across all of a server's databases, so two sites on
    one Redis (or the tests beside a benchmark) would otherwise ring each other's
    pages, and make each other's web processes forget what they keep (kept.py)."""
    from redis.connection import parse_url

    return f"{CHANNEL}:{int(parse_url(url).get('db') or 0)}"  # type: ignore[no-untyped-call]


def bell_file() -> Path:
    configured = getattr(settings, "PUSH_BELL_FILE", None) or os.environ.get("PUSH_BELL_FILE")
    if configured:
        return Path(configured)
    return Path(settings.VAR_DIR) / "push" / "bell"


def _redis(url: str) -> Any:
    with _redis_lock:
        client = _redis_clients.get(url)
        if client is None:
            import redis

            client = _redis_clients[url] = redis.Redis.from_url(
                url, socket_timeout=1.0, socket_connect_timeout=1.0
            )
        return client


def ring(match_id: int) -> None:
    """Tell every web process that match `match_id` changed (after its commit).

    Never raises: a bell that fails leaves the pages to the hubs' sweep.
    """
    try:
        url = redis_url()
        if url:
            _redis(url).publish(channel(url), str(match_id))
            return
        path = bell_file()
        try:
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        except FileNotFoundError:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            if os.fstat(fd).st_size >= BELL_FILE_MAX:
                os.ftruncate(fd, 0)
            os.write(fd, b".")
        finally:
            os.close(fd)
    except Exception:
        log.warning("push: ringing for match %s failed", match_id, exc_info=True)


def ring_on_commit(match_id: int) -> None:
    """Ring once the current transaction commits (at once outside one)."""
    transaction.on_commit(lambda: ring(match_id), robust=True)


def file_mark(path: Path) -> tuple[int, int, int] | None:
    """What the watchers compare: the bell file's inode, size and time."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)
