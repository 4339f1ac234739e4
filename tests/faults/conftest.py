"""Fault tests: real PostgreSQL, Redis, gunicorn and Celery processes, broken on purpose.

They run on a private PostgreSQL cluster and a private Redis on free loopback ports,
so stopping and wiping them disturbs nothing else; still they are heavy, so they
carry the `faults` marker and `make test` runs them alone, last (`pytest -m faults`).
Without the PostgreSQL server or redis-server installed they skip, except in CI.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from faults_stack import DB_NAME, Postgres, Redis, Stack

BROKER_VARIABLES = ("CELERY_BROKER_URL", "CELERY_BROKER_READ_URL", "CELERY_BROKER_WRITE_URL")


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Fault tests take over the database settings of the whole process: in a run
    with other tests they are skipped, with the command that runs them."""
    faults = [item for item in items if item.get_closest_marker("faults")]
    if faults and len(faults) != len(items):
        skip = pytest.mark.skip(reason="fault tests run alone: pytest -m faults (make test does)")
        for item in faults:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def private_postgres() -> Iterator[Postgres]:
    server = Postgres()
    try:
        yield server
    finally:
        server.destroy()


@pytest.fixture(scope="session")
def private_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Redis]:
    server = Redis(tmp_path_factory.mktemp("redis"))
    try:
        yield server
    finally:
        server.kill()


@pytest.fixture(scope="session")
def django_db_setup(private_postgres: Postgres, django_db_blocker: Any) -> None:
    """This process, its web server and its workers share one database on the
    private server (pytest-django's recipe for an external database)."""
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connections

    private_postgres._run("createdb", "-h", "127.0.0.1", "-p", str(private_postgres.port),
                          "-U", "postgres", DB_NAME)  # fmt: skip
    connections.close_all()
    db = settings.DATABASES["default"]
    db.clear()
    db.update(
        {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": DB_NAME,
            "USER": "postgres",
            "PASSWORD": "",
            "HOST": "127.0.0.1",
            "PORT": str(private_postgres.port),
            "ATOMIC_REQUESTS": False,
            "AUTOCOMMIT": True,
            "CONN_MAX_AGE": 0,
            "CONN_HEALTH_CHECKS": True,
            "OPTIONS": {},
            "TIME_ZONE": None,
            "TEST": {
                "CHARSET": None,
                "COLLATION": None,
                "MIGRATE": True,
                "MIRROR": None,
                "NAME": DB_NAME,
            },  # fmt: skip
        }
    )
    with contextlib.suppress(AttributeError):  # not made yet: nothing to drop
        del connections["default"]  # rebuilt from the new settings on next use
    with django_db_blocker.unblock():
        call_command("migrate", verbosity=0, interactive=False)


@pytest.fixture(scope="session")
def broker_on_private_redis(private_redis: Redis) -> Iterator[None]:
    """Tasks this process queues (after a service's commit) go to the private Redis."""
    from helium3_site.celery import app

    # Celery reads these variables before its own configuration (CI sets the first).
    saved = {name: os.environ.pop(name, None) for name in BROKER_VARIABLES}
    os.environ["CELERY_BROKER_URL"] = private_redis.url()
    app.conf.broker_url = private_redis.url()
    # Without a broker URL in the environment the settings name the embedded broker's
    # transport, which would take precedence over the URL's scheme.
    app.conf.broker_transport = None
    app.conf.broker_transport_options = {"visibility_timeout": 3600}
    app.conf.task_default_queue = "celery"
    app.close()  # drop any connection pool made for the old broker
    connection = app.connection_for_write()
    assert connection.as_uri().endswith(f":{private_redis.port}/0")
    assert connection.transport.driver_type == "redis"
    yield
    for name, value in saved.items():
        os.environ.pop(name, None)
        if value is not None:
            os.environ[name] = value


@pytest.fixture
def stack(
    request: pytest.FixtureRequest,
    transactional_db: None,
    private_postgres: Postgres,
    private_redis: Redis,
    broker_on_private_redis: None,
    tmp_path: Path,
    settings: Any,
) -> Iterator[Stack]:
    """This test's processes; all of them stopped before the database is flushed."""
    from helium3_site.celery import app

    if not private_redis.ping():
        private_redis.restart_empty()
    private_redis.command("FLUSHALL")
    app.close()  # no pooled broker connection left over from a Redis an earlier test killed
    stack = Stack(tmp_path, private_postgres, private_redis, settings.SECRET_KEY)
    failed = False
    try:
        yield stack
    except BaseException:
        failed = True
        raise
    finally:
        report = getattr(request.node, "rep_call", None)
        show = failed or (report is not None and report.failed) or "FAULTS_SHOW_LOGS" in os.environ
        stack.close(show_logs=show)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    if report.when == "call":
        item.rep_call = report  # type: ignore[attr-defined]
    return report
