"""The site's Celery app with the worker keeping its database connections, as a
web process does: an experiment for bench/turn_latency.py (`--reuse-db`).

Celery's Django fixup closes every database connection before and after each task
unless CELERY_DB_REUSE_MAX is set, so each task opens a new PostgreSQL connection
(about 9 ms here, more than the turn's own queries). Here the fixup all but never
closes them, and Django's own rule runs instead around each task, as around each
request: `close_old_connections()` drops a connection that is broken, has had an
error or is older than CONN_MAX_AGE, and CONN_HEALTH_CHECKS checks one before reuse.
Run as `celery -A bench._worker_reuse worker`.
"""

from __future__ import annotations

from typing import Any

from celery.signals import task_postrun, task_prerun
from django.db import close_old_connections

from helium3_site.celery import app

app.conf.CELERY_DB_REUSE_MAX = 10**9


@task_prerun.connect(weak=False)
def _before_task(**kwargs: Any) -> None:
    close_old_connections()


@task_postrun.connect(weak=False)
def _after_task(**kwargs: Any) -> None:
    close_old_connections()


__all__ = ["app"]
