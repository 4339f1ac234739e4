"""Push channel tests: the site tests' fixtures (tests/games/conftest.py, loaded as
the API and browser tests load them) and a bell file of the test's own."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest
from django.core.cache import caches

GAMES_TESTS = Path(__file__).resolve().parent.parent / "games"
sys.path.insert(0, str(GAMES_TESTS))
_spec = importlib.util.spec_from_file_location("games_tests_conftest", GAMES_TESTS / "conftest.py")
assert _spec is not None and _spec.loader is not None
_games = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_games)
fast_password_hashing = _games.fast_password_hashing
test_rulesets = _games.test_rulesets


@pytest.fixture(autouse=True)
def own_bell(settings: Any, tmp_path: Path) -> Path:
    """The file bell of this test alone (never a `make run`'s or another test run's)."""
    for cache in caches.all():
        cache.clear()
    settings.PUSH_BELL_FILE = str(tmp_path / "bell")
    settings.PUSH_REDIS_URL = "file"
    return tmp_path / "bell"
