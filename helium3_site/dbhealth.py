"""A kept PostgreSQL connection's health check without a round trip while it can.

Django's CONN_HEALTH_CHECKS runs `SELECT 1` on a kept connection before its first
statement of each request (and, in the worker, of each task: helium3_site/celery.py):
a round trip and its CPU on every page view, about a tenth of what a view of an
unchanged match page costs beyond `/healthz`. Both check here first, after Django's
close_old_connections (the request's own receiver is connected by games.apps).
"""

from __future__ import annotations

import select
from typing import Any

from django.db import connections


def quiet_socket_health_check(alias: str) -> bool:
    """Pass Django's health check of an idle PostgreSQL connection without its
    `SELECT 1` when the connection's socket has nothing to read. True if passed.

    A server that stops, crashes or ends the session closes the socket or sends a
    FATAL message first, either of which makes an idle connection's socket readable;
    then (or for anything else on it, a notice) Django's own check runs as before.
    Each task's check was a round trip to the database before the turn's first
    statement, in the hop from a turn's acceptance to the worker's claim. A peer that
    vanished without a word (a network cut) fails the `SELECT 1` no sooner than the
    task's own first statement, so that case is no worse.
    """
    conn: Any = connections[alias]  # the stubs lack the health check's attributes
    raw = conn.connection
    if (
        raw is None
        or conn.vendor != "postgresql"
        or not conn.health_check_enabled
        or conn.health_check_done
        or conn.in_atomic_block
    ):
        return False
    from psycopg import pq  # the PostgreSQL backend's driver

    try:
        idle = raw.info.transaction_status == pq.TransactionStatus.IDLE
        readable, _, _ = select.select([raw.pgconn.socket], [], [], 0)
    except Exception:  # closed or broken: Django's check will say so
        return False
    if not idle or readable:
        return False
    conn.health_check_done = True
    return True


def quiet_checks(**kwargs: Any) -> None:
    """Each open connection of this thread passes its check quietly if it can (a
    request_started receiver, after Django's close_old_connections)."""
    for conn in connections.all(initialized_only=True):
        quiet_socket_health_check(conn.alias)
