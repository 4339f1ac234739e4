"""A kept database connection between a worker's tasks (helium3_site/celery.py) and a
web process's requests (helium3_site/dbhealth.py): kept, and health-checked without a
round trip while its socket is quiet, but checked by Django's `SELECT 1` (and
replaced) once the server has ended the session."""

from __future__ import annotations

import select

import psycopg
import pytest
from django.db import connection

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="the check is PostgreSQL's (CI runs it)"
    ),
]


def between_tasks() -> None:
    """As close_old_connections leaves a kept connection before a task: to be checked."""
    connection.health_check_done = False


def backend_pid() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return int(cursor.fetchone()[0])


def test_a_quiet_connection_passes_the_check_without_a_statement_and_is_kept() -> None:
    from helium3_site.dbhealth import quiet_socket_health_check

    pid = backend_pid()
    between_tasks()
    assert quiet_socket_health_check("default") is True
    assert connection.health_check_done
    assert backend_pid() == pid  # the same session: no reconnection


def test_a_session_the_server_ended_is_checked_and_replaced() -> None:
    from helium3_site.dbhealth import quiet_socket_health_check

    pid = backend_pid()
    params = connection.get_connection_params()
    params.pop("cursor_factory", None)
    params.pop("context", None)
    with psycopg.connect(**params, autocommit=True) as other:
        other.execute("SELECT pg_terminate_backend(%s)", (pid,))
    # The server's FATAL message and the closed socket reach the idle connection.
    sock = connection.connection.pgconn.socket
    assert select.select([sock], [], [], 5)[0]
    between_tasks()
    assert quiet_socket_health_check("default") is False
    assert not connection.health_check_done
    assert backend_pid() != pid  # Django's own check found it dead and reconnected


def test_a_connection_inside_a_transaction_is_left_to_django() -> None:
    from django.db import transaction

    from helium3_site.dbhealth import quiet_socket_health_check

    backend_pid()
    with transaction.atomic():
        between_tasks()
        assert quiet_socket_health_check("default") is False
        connection.health_check_done = True  # as Django leaves it in a transaction


def test_a_request_checks_its_kept_connection_without_a_statement() -> None:
    from django.core.signals import request_started
    from django.db import close_old_connections

    from helium3_site.dbhealth import quiet_checks

    uid = "helium3_site.dbhealth"
    # The receivers in a web process's order: Django's (connected as django.db is
    # imported), then the site's (by games.apps). Django's test client disconnects
    # and connects its own again at each request, which puts it last here.
    assert request_started.disconnect(dispatch_uid=uid), "games.apps connects it"
    request_started.disconnect(close_old_connections)
    request_started.connect(close_old_connections)
    request_started.connect(quiet_checks, dispatch_uid=uid)
    pid = backend_pid()
    # Kept (a connection older than CONN_MAX_AGE is closed as a request starts).
    connection.close_at = None
    assert connection.health_check_enabled
    # As a request starts: Django's receiver leaves the connection to be checked, and
    # the site's passes the check while the socket is quiet.
    request_started.send(sender=None)
    assert connection.health_check_done
    assert backend_pid() == pid
    # Django's receiver alone would leave it to a SELECT 1 before the first statement.
    request_started.disconnect(dispatch_uid=uid)
    try:
        request_started.send(sender=None)
        assert not connection.health_check_done
    finally:
        request_started.connect(quiet_checks, dispatch_uid=uid)
