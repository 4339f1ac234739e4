"""The Celery app: configuration comes from Django settings (CELERY_* names)."""

import functools
import os
from typing import Any

from celery import Celery
from celery.signals import task_postrun, task_prerun
from celery.worker.consumer import Consumer
from django.db import close_old_connections

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


@task_prerun.connect(weak=False)
def _connections_before_task(**kwargs: Any) -> None:
    close_old_connections()
    quiet_checks()


@task_postrun.connect(weak=False)
def _connections_after_task(**kwargs: Any) -> None:
    close_old_connections()
