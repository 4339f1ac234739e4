"""celery beat retries a broker it cannot reach every second, not on kombu's growing
back-off (2, 4, 6 ... 30 s), so the clock sweep runs again soon after the broker is back."""

from __future__ import annotations

import logging
import socket
import time
from pathlib import Path

import pytest
from celery import Celery
from kombu.exceptions import OperationalError

from helium3_site.celery import BROKER_RETRY_SECONDS, BrokerRetryScheduler, app


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_the_site_runs_beat_with_the_retrying_scheduler() -> None:
    assert app.conf.beat_scheduler == "helium3_site.celery:BrokerRetryScheduler"


def test_beat_tries_an_unreachable_broker_again_every_second(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An app of its own, not made the current one; the environment's broker (CI's)
    # would take precedence over the one given here.
    monkeypatch.delenv("CELERY_BROKER_URL", raising=False)
    lost = Celery(
        "lost-broker",
        set_as_current=False,
        broker=f"redis://127.0.0.1:{_closed_port()}/0",
        broker_transport="helium3_site.celery:RedisTransport",
        broker_connection_max_retries=3,
    )
    scheduler = BrokerRetryScheduler(app=lost, schedule_filename=str(tmp_path / "schedule"))
    started = time.monotonic()
    with caplog.at_level(logging.ERROR, logger="celery.beat"), pytest.raises(OperationalError):
        scheduler._ensure_connected()
    took = time.monotonic() - started
    waits = [record.args[1] for record in caplog.records if "beat: Connection error" in record.msg]
    assert waits == [BROKER_RETRY_SECONDS] * 3
    # kombu's own back-off would have waited 2 + 4 + 6 s for the same three retries.
    assert took < 3 * BROKER_RETRY_SECONDS + 5
    scheduler.close()
    lost.close()
