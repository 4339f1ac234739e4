"""Shared fixtures: a player, an opponent, a spectator and an outsider; matches
built through the services; and one real Celery worker per session."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from game_factories import UserFactory
from site_support import client_for

from games import services
from games.models import Match


@pytest.fixture(autouse=True)
def fast_password_hashing(settings: Any) -> None:
    # PBKDF2's deliberate slowness is half a second per user; tests make many.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def register_test_rulesets() -> None:
    """Register the test rulesets of tests/engine (rps, race, dig, nim) in this
    process: the site's tests and the worker thread (celery_worker) play them.
    Never registered outside tests."""
    folder = str(Path(__file__).resolve().parent.parent / "engine")
    if folder not in sys.path:
        sys.path.insert(0, folder)
    import platform_rulesets

    platform_rulesets.register()


@pytest.fixture(scope="session", autouse=True)
def test_rulesets() -> None:
    register_test_rulesets()


@pytest.fixture(scope="session", autouse=True)
def isolated_broker(
    tmp_path_factory: pytest.TempPathFactory, worker_id: str, testrun_uid: str
) -> None:
    """Keep this session's messages away from a running `make run` and other sessions.
    On Redis each process has queues of its own, named by the run (pytest-xdist's
    id, shared by the run's processes) and the process: two runs at once on the same
    broker (`make test BROWSER_BESIDE=1` runs the browser tests beside the others) never take each
    other's tasks.

    Other suites (tests/api, tests/browser) load this fixture too, and pytest makes
    one instance per suite: only the first may move the queue, or producers that
    published earlier keep the old folder in Celery's connection pool while the
    worker listens on the new one.
    """
    from helium3_site.celery import app

    if getattr(app, "helium3_tests_isolated", False):
        return
    app.helium3_tests_isolated = True
    options = dict(app.conf.broker_transport_options or {})
    if app.conf.broker_url.startswith("filesystem://"):
        folder = tmp_path_factory.mktemp("broker")
        options.update(
            data_folder_in=str(folder),
            data_folder_out=str(folder),
            processed_folder=str(folder),
            control_folder=str(folder / "control"),
            polling_interval=0.05,
        )
        app.conf.broker_transport_options = options
    else:
        queue = f"helium3-tests-{testrun_uid[:12]}-{worker_id}"
        app.conf.task_default_queue = queue
        app.conf.task_queues = {name: {"routing_key": name} for name in (queue, f"{queue}-email")}
        app.conf.task_routes = {"games.tasks.notification_send_task": {"queue": f"{queue}-email"}}


@pytest.fixture(scope="session")
def celery_worker(
    django_db_setup: Any, django_db_blocker: Any, isolated_broker: None
) -> Iterator[Any]:
    """One real worker thread for the session, consuming from the real broker.

    Like isolated_broker, other suites load this fixture and get their own
    instance: the first one starts the worker, the others use it.
    """
    from celery.contrib.testing.worker import start_worker
    from celery.signals import task_postrun

    from helium3_site.celery import app

    # The worker is a thread of this process: the rulesets registered here are its.
    register_test_rulesets()
    running = getattr(app, "helium3_tests_worker", None)
    if running is not None:
        yield running
        return

    def close_connection(**kwargs: Any) -> None:
        # The worker thread has its own connection; close it so the test database
        # can be flushed and dropped.
        connection.close()

    task_postrun.connect(close_connection, weak=False)
    with django_db_blocker.unblock():
        app.control.purge()
        # Both queues, as every worker of the site: turns and emails.
        queues = list(app.conf.task_queues)
        with start_worker(
            app,
            pool="solo",
            concurrency=1,
            perform_ping_check=False,
            shutdown_timeout=30,
            queues=queues,
        ) as worker:
            app.helium3_tests_worker = worker
            try:
                yield worker
            finally:
                app.helium3_tests_worker = None
    task_postrun.disconnect(close_connection)


@pytest.fixture
def player(db: None) -> Any:
    return UserFactory(username="alice")


@pytest.fixture
def opponent(db: None) -> Any:
    return UserFactory(username="bob")


@pytest.fixture
def spectator(db: None) -> Any:
    return UserFactory(username="carol")


@pytest.fixture
def clients(player: Any, opponent: Any, spectator: Any) -> dict[str, Client]:
    """A logged-in client per role; the outsider is not logged in."""
    return {
        "player": client_for(player),
        "opponent": client_for(opponent),
        "spectator": client_for(spectator),
        "outsider": Client(),
    }


@pytest.fixture
def open_match(player: Any) -> Match:
    """Two seats: the player in seat 1, seat 3 free."""
    return services.match_create(creator=player, seat_count=2, turn_seconds=3600)


@pytest.fixture
def running_match(open_match: Match, opponent: Any) -> Match:
    """Two people: the player (seat 1, to move first) and the opponent (seat 3)."""
    services.seat_join(match_id=open_match.pk, user=opponent)
    open_match.refresh_from_db()
    assert open_match.status == Match.Status.RUNNING
    return open_match
