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
from collections.abc import Iterator
from pathlib import Path

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
