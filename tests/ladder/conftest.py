"""Ladder tests: the site tests' users, broker and Celery worker (loaded from
tests/games/conftest.py, as tests/api does) and the API tests' client."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.cache import cache

TESTS = Path(__file__).resolve().parent.parent
for folder in ("games", "api"):
    if str(TESTS / folder) not in sys.path:
        sys.path.insert(0, str(TESTS / folder))
_spec = importlib.util.spec_from_file_location(
    "games_tests_conftest", TESTS / "games" / "conftest.py"
)
assert _spec is not None and _spec.loader is not None
_games = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_games)
isolated_broker = _games.isolated_broker
celery_worker = _games.celery_worker
test_rulesets = _games.test_rulesets
fast_password_hashing = _games.fast_password_hashing
player = _games.player
opponent = _games.opponent
spectator = _games.spectator


@pytest.fixture(autouse=True)
def fresh_rate_limits() -> None:
    cache.clear()


@pytest.fixture
def ladder_beat(settings: Any, tmp_path: Path) -> Iterator[None]:
    """A real celery beat in a thread, with the ladder's round on a short interval
    and the site's clock sweep on its own; it publishes to the test broker the
    worker consumes."""
    from celery import beat

    from helium3_site.celery import app

    settings.LADDER_INTERVAL_SECONDS = 1.0
    entries = settings.CELERY_BEAT_SCHEDULE
    schedule = {
        "ladder-round": {**entries["ladder-round"], "schedule": 1.0, "options": {"expires": 1.0}},
        # The ladder's short turns are kept by the clock every match has.
        "clock-sweep": entries["clock-sweep"],
    }
    saved = app.conf.beat_schedule
    app.conf.beat_schedule = schedule
    service = beat.EmbeddedService(
        app, thread=True, schedule_filename=str(tmp_path / "beat-schedule")
    )
    service.start()
    try:
        yield
    finally:
        service.stop()
        app.conf.beat_schedule = saved
