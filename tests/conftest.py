"""What every test run shares, whatever part of tests/ it collects and in whatever
order (the site tests run on several processes, each of them given tests in an
order of its own).

The test rulesets of tests/engine (platform_rulesets: nim, rps, race, dig) are
registered in a process as soon as it collects a site test, before any test module
is imported. The bot API builds its schema (the enum of ruleset names) once, when
games.api is first imported, by whichever test or page gets there first: a process
that registered them later would refuse every API request naming them. The engine's
own tests (tests/engine) register and unregister them themselves.

Passwords are hashed with MD5 for the whole run: PBKDF2's deliberate slowness is
half a second of CPU per user made or signed in, and the tests make thousands.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

TESTS = Path(__file__).resolve().parent
ENGINE_TESTS = TESTS / "engine"


def register_test_rulesets() -> None:
    folder = str(ENGINE_TESTS)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    import platform_rulesets

    platform_rulesets.register()


def pytest_collectstart(collector: pytest.Collector) -> None:
    """Before a site test's module is imported (its collection starts here)."""
    path = getattr(collector, "path", None)
    if not isinstance(collector, pytest.Module) or path is None:
        return
    if not Path(path).is_relative_to(ENGINE_TESTS):
        register_test_rulesets()


@pytest.fixture(scope="session", autouse=True)
def fast_password_hashing_everywhere() -> Iterator[None]:
    from django.test import override_settings

    with override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]):
        yield


@pytest.fixture(scope="session", autouse=True)
def page_versions_read_on_every_view() -> Iterator[None]:
    """The tests make and change matches behind the doorbell's back (rows written
    straight to the database, ids handed out again after a rolled-back test) and look
    at the page at once, where a web process would serve a version it read up to
    PAGE_VERSION_KEEP_SECONDS before (games/push/kept.py): off for the whole run,
    on in the tests of it (tests/push/test_kept_versions.py) and in the processes
    the fault tests start."""
    from django.test import override_settings

    with override_settings(PAGE_VERSION_KEEP_SECONDS=0):
        yield


@pytest.fixture(scope="session", autouse=True)
def flush_by_delete_on_postgresql() -> Iterator[None]:
    """A test with transaction=True ends with its database emptied (Django's flush).
    On PostgreSQL that is one TRUNCATE of every table: each table and index gets new
    files, synced at commit, a second or more per test on a busy machine. The tables
    hold a test's few rows, and DELETE empties them in milliseconds, in the same one
    transaction (the foreign keys are deferred to its commit). A flush that resets
    sequences or cascades is still Django's own.

    The content types and permissions stay: after the flush, the post_migrate signal
    would make the same rows again, app by app, each insert committed on its own; it
    still adds any a test deleted."""
    from django.db import connections

    if not any(conn.vendor == "postgresql" for conn in connections.all()):
        yield
        return
    from django.contrib.auth.models import Permission
    from django.contrib.contenttypes.models import ContentType
    from django.db.backends.postgresql.operations import DatabaseOperations

    kept = {ContentType._meta.db_table, Permission._meta.db_table}

    truncate = DatabaseOperations.sql_flush

    def sql_flush(
        self: DatabaseOperations,
        style: Any,
        tables: Sequence[str],
        *,
        reset_sequences: bool = False,
        allow_cascade: bool = False,
    ) -> list[str]:
        if not tables or reset_sequences or allow_cascade:
            return truncate(
                self, style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade
            )
        deletes = [
            f"DELETE FROM {self.quote_name(table)};" for table in tables if table not in kept
        ]
        return ["SET CONSTRAINTS ALL DEFERRED;", *deletes]

    DatabaseOperations.sql_flush = sql_flush  # type: ignore[method-assign]
    try:
        yield
    finally:
        DatabaseOperations.sql_flush = truncate  # type: ignore[method-assign]


# The tests' Celery worker (tests/games/conftest.py's celery_worker) is one thread for
# the whole run. A test that leaves a match with bots running would have it resolve
# their turns while the test's database is being emptied, which on PostgreSQL can
# deadlock the flush. Before such a test's fixtures are torn down, its queued work is
# dropped and the task in hand is waited for.
_tasks_running = [0]


def _count_task_start(**kwargs: object) -> None:
    _tasks_running[0] += 1


def _count_task_end(**kwargs: object) -> None:
    _tasks_running[0] -= 1


def _worker_quiet(seconds: float = 30.0) -> None:
    import time

    from helium3_site.celery import app

    deadline = time.monotonic() + seconds
    quiet_since: float | None = None
    while time.monotonic() < deadline:
        app.control.purge()
        if _tasks_running[0] > 0:
            quiet_since = None
        elif quiet_since is None:
            quiet_since = time.monotonic()
        elif time.monotonic() - quiet_since >= 0.2:
            return
        time.sleep(0.05)


def _worker_forget_scheduled() -> None:
    """Cancel the tasks the worker holds for a later time (a short turn's deadline
    task, queued with an ETA). Their matches go with the test's database, but each
    would still come due in a later test and take the one worker thread from it: a
    test timing its own deadline tasks was once held up seconds by a test's leftovers.
    Cancelling only marks an entry (the worker thread's timer skips it); the message
    stays unacknowledged in the broker, which the run never reads again."""
    from celery.worker.request import Request

    from helium3_site.celery import app

    worker = getattr(app, "helium3_tests_worker", None)
    timer = getattr(getattr(worker, "consumer", None), "timer", None)
    # Only tasks' entries: the same timer keeps the worker's own repeated calls.
    for scheduled in getattr(timer, "queue", ()):
        if any(isinstance(arg, Request) for arg in scheduled.entry.args):
            scheduled.entry.cancel()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    uses_worker = "celery_worker" in getattr(item, "fixturenames", ())
    # Any test whose transactions commit (its on-commit hooks queue real tasks).
    commits = any(mark.kwargs.get("transaction") for mark in item.iter_markers("django_db"))
    if not (uses_worker or commits):
        return
    from helium3_site.celery import app

    # The worker thread, once an earlier test started it, takes the tasks of a test
    # that does not ask for it too.
    if uses_worker or getattr(app, "helium3_tests_worker", None) is not None:
        _worker_quiet()
    _worker_forget_scheduled()


def pytest_configure(config: pytest.Config) -> None:
    from celery.signals import task_postrun, task_prerun

    task_prerun.connect(_count_task_start, weak=False)
    task_postrun.connect(_count_task_end, weak=False)
