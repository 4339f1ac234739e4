"""Ladder tests: the site tests' users, broker and Celery worker (loaded from
tests/games/conftest.py, as tests/api does) and the API tests' client."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

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
