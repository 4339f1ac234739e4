"""The Celery app: configuration comes from Django settings (CELERY_* names)."""

import functools
import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from celery import Celery
from celery.beat import PersistentScheduler
from celery.signals import task_postrun, task_prerun
from celery.worker.consumer import Consumer
from django.db import close_old_connections
from kombu.transport import redis as kombu_redis

from helium3_site.dbhealth import quiet_checks

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


class BrokerRetryScheduler(PersistentScheduler):  # type: ignore[misc]  # celery is untyped
    """celery beat's scheduler, retrying a broker it cannot reach every BROKER_RETRY_SECONDS.

    Beat connects when it first sends a task, with kombu's default back-off (2 s, then
    4, 6, ... up to 30 s): a beat that found the broker down could sit out up to that
    long after it came back, and with it the clock sweep that queues again the turns a
    lost broker forgot (tests/faults/test_redis_outage.py).
    """

    def _ensure_connected(self) -> Any:
        def _error_handler(exc: Exception, interval: float) -> None:
            logging.getLogger("celery.beat").error(
                "beat: Connection error: %s. Trying again in %s seconds...", exc, interval
            )

        return self.connection.ensure_connection(
            _error_handler,
            self.app.conf.broker_connection_max_retries,
            interval_start=BROKER_RETRY_SECONDS,
            interval_step=BROKER_RETRY_SECONDS,
            interval_max=BROKER_RETRY_SECONDS,
        )


class RedisChannel(kombu_redis.Channel):
    """kombu's Redis channel, with one client for its commands on its connection pool.

    kombu makes a new redis-py client for every command it sends outside its
    consumer's (each publish; the worker's note of each message it takes, and its
    ack), each filling its own table of some 170 reply callbacks: about 0.1 ms of
    CPU a message here. A redis-py client is safe to share between threads, and its
    pool reconnects after a lost server or a fork; a new pool (the channel's close)
    gets a new client.
    """

    _shared_client: Any = None

    # No acknowledgement emulated in Redis: kombu's default records every message a
    # worker takes in an "unacked" hash and index (a round trip to Redis, and the
    # message's copy, before the worker's main process hands the task to a pool
    # process) and deletes it at the ack (another), so that a message of a worker
    # gone for good comes back after the visibility timeout (an hour). The turns
    # do not wait for that: the clock sweep queues an accepted turn again after
    # RESOLVE_GRACE_SECONDS, an email after its claim is stale, and the periodic
    # tasks come again anyway (the database, not the queue, says what is pending).
    # A pool process that dies mid-task still gives its message back at once (the
    # main process holds it, task_reject_on_worker_lost), and a worker that stops
    # gives back those it holds, as before. A transport option set in settings
    # (CELERY_BROKER_TRANSPORT_OPTIONS["ack_emulation"]) takes precedence.
    ack_emulation = False

    @contextmanager
    def conn_or_acquire(self, client: Any = None) -> Iterator[Any]:
        if client:
            yield client
            return
        pool = self.pool
        shared = self._shared_client
        if shared is None or shared.connection_pool is not pool:
            shared = self._shared_client = self._create_client()  # type: ignore[no-untyped-call]
        yield shared


class RedisTransport(kombu_redis.Transport):
    """kombu's Redis transport with RedisChannel (settings: for a redis:// broker)."""

    Channel = RedisChannel


app = Celery("helium3_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.conf.worker_consumer = "helium3_site.celery:BrokerRetryConsumer"
app.conf.beat_scheduler = "helium3_site.celery:BrokerRetryScheduler"
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


@task_prerun.connect(weak=False)
def _connections_before_task(**kwargs: Any) -> None:
    close_old_connections()
    quiet_checks()


@task_postrun.connect(weak=False)
def _connections_after_task(**kwargs: Any) -> None:
    close_old_connections()
