"""The Celery app: configuration comes from Django settings (CELERY_* names)."""

import functools
import os
import select
from typing import Any

from celery import Celery
from celery.signals import task_postrun, task_prerun
from celery.worker.consumer import Consumer
from django.db import close_old_connections, connections

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "helium3_site.settings")

# Seconds between a worker's attempts to reach a broker it lost.
BROKER_RETRY_SECONDS = 1.0


class BrokerRetryConsumer(Consumer):  # type: ignore[misc]  # celery is untyped
    """The worker's consumer, retrying a lost broker every BROKER_RETRY_SECONDS.

    kombu's default back-off waits 2 s, then 4, 6, ... up to 30 s between attempts,
    so after an outage of a minute a worker could sit out up to 30 s of the broker
    being back, and the turns the clock sweep queues again would wait for it. One
    connection attempt a second to a broker that is down costs nothing.
    """

    def ensure_connected(self, conn: Any) -> Any:
        conn.ensure_connection = functools.partial(
            conn.ensure_connection,
            interval_start=BROKER_RETRY_SECONDS,
            interval_step=BROKER_RETRY_SECONDS,
            interval_max=BROKER_RETRY_SECONDS,
        )
        return super().ensure_connected(conn)


app = Celery("helium3_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.conf.worker_consumer = "helium3_site.celery:BrokerRetryConsumer"
# The worker keeps its database connections between tasks as a web process does
# between requests, under Django's own rule, run around each task: a connection
# that is broken, had an error or is older than CONN_MAX_AGE is dropped, and
# CONN_HEALTH_CHECKS checks one before it is reused (tests/faults/
# test_postgres_restart.py: the workers carry on after a crash), here without a
# round trip when it can (quiet_socket_health_check). Celery's Django fixup would
# otherwise close them before and after every task, and a new PostgreSQL
# connection costs more than a turn's queries (docs/benchmarks.md).
app.conf.CELERY_DB_REUSE_MAX = 2**62
app.autodiscover_tasks()


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


@task_prerun.connect(weak=False)
def _connections_before_task(**kwargs: Any) -> None:
    close_old_connections()
    for conn in connections.all(initialized_only=True):
        quiet_socket_health_check(conn.alias)


@task_postrun.connect(weak=False)
def _connections_after_task(**kwargs: Any) -> None:
    close_old_connections()
