"""Bot API tests: the site tests' users, broker and Celery worker (loaded from
tests/games/conftest.py, as the browser tests do, so there is one definition),
plus tokens and clients that speak to /api/v1/ with them."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest
from django.core.cache import cache

GAMES_TESTS = Path(__file__).resolve().parent.parent / "games"
sys.path.insert(0, str(GAMES_TESTS))
_spec = importlib.util.spec_from_file_location("games_tests_conftest", GAMES_TESTS / "conftest.py")
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

from api_support import ApiClient, token_for  # noqa: E402


@pytest.fixture(autouse=True)
def fresh_rate_limits() -> None:
    # The counters live in the cache; every test starts with full budgets.
    cache.clear()


@pytest.fixture
def api(player: Any) -> ApiClient:
    """The player's bot."""
    return ApiClient(token_for(player))


@pytest.fixture
def api_opponent(opponent: Any) -> ApiClient:
    return ApiClient(token_for(opponent))


@pytest.fixture
def api_spectator(spectator: Any) -> ApiClient:
    return ApiClient(token_for(spectator))
