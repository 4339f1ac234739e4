"""Browser tests: the system Chromium (never a downloaded browser) against pytest-django's
live server, with the same real Celery worker the site tests use.

The worker and broker fixtures are the site tests' own (tests/games/conftest.py),
loaded from there so both suites run one definition.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_support import MOVIE_SPEED, keep_movie_speed
from playwright.sync_api import Browser, BrowserContext

GAMES_TESTS = Path(__file__).resolve().parent.parent / "games"
sys.path.insert(0, str(GAMES_TESTS))
# tests/api/stream_support.py's uvicorn-in-a-thread starter serves asgi_site too.
sys.path.insert(0, str(GAMES_TESTS.parent / "api"))
_spec = importlib.util.spec_from_file_location("games_tests_conftest", GAMES_TESTS / "conftest.py")
assert _spec is not None and _spec.loader is not None
_games = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_games)
isolated_broker = _games.isolated_broker
celery_worker = _games.celery_worker
fast_password_hashing = _games.fast_password_hashing

# The full browser, Debian's package `chromium`, and its headless shell, Debian's
# package `chromium-headless-shell`: the same Chromium release, its pages drawn by the
# same engine, without the browser around them. The tests drive the shell where it is
# installed (`.ci/run` installs both). Over the browser tests it took 0.59x the
# CPU: 332 s against 567 s, and the stage 297 s against 410 s
# (docs/operations.md). The few tests that need what only the full browser has
# (notifications, which the shell always refuses) open it (`full_browser`).
# HELIUM3_CHROMIUM names one browser for every test.
FULL_CHROMIUM = os.environ.get("HELIUM3_CHROMIUM", "/usr/bin/chromium")
HEADLESS_SHELL = "/usr/bin/chromium-headless-shell"
CHROMIUM = os.environ.get("HELIUM3_CHROMIUM") or (
    HEADLESS_SHELL if Path(HEADLESS_SHELL).exists() else FULL_CHROMIUM
)
SCREENSHOTS = Path(__file__).resolve().parent.parent.parent / "ci-artifacts" / "screenshots"
os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix: None) -> None:
    """The browser tests' databases have names of their own (test_<name>_gw0_browser):
    `make test BROWSER_BESIDE=1` runs them beside the site and fault tests, whose
    processes are named gw0, gw1 too. The queues are the run's own already
    (isolated_broker)."""
    from django.conf import settings

    for db in settings.DATABASES.values():
        test = db.setdefault("TEST", {})
        name = test.get("NAME")
        if db["ENGINE"] == "django.db.backends.sqlite3" and (not name or name == ":memory:"):
            continue  # in memory: nothing shared
        test["NAME"] = f"{name or 'test_' + db['NAME']}_browser"


@pytest.fixture(autouse=True, scope="module")
def sync_orm_beside_playwright() -> Iterator[None]:
    """Playwright's sync API keeps an event loop in the test's thread, which Django
    takes for async code; the test's own ORM calls (and the database flush after
    it) are plain sync code. Set for these modules only, never for the process: a
    deploy check run later in the session must not see it."""
    before = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    yield
    if before is None:
        del os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"]
    else:
        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = before


@pytest.fixture(autouse=True, scope="session")
def sync_orm_for_the_databases_teardown(django_db_setup: Any) -> Iterator[None]:
    """The test databases are dropped after every test, while Playwright's loop may
    still run in this thread: without this, Django refused the drop (a warning, and
    the databases were left behind). Torn down before django_db_setup, which it asks
    for, and after every module's own setting was put back."""
    yield
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # Playwright's session keeps an event loop in the main thread until the session
    # ends, and Django refuses sync database calls beside one: the browser tests go
    # last, so no other test runs with it.
    # Within them the long ones (marked `slow`: whole matches at 1x, every page in
    # every look) come first: handed out one at a time (`--dist load
    # --maxschedchunk 1`, the Makefile), they start while the short ones fill the
    # other processes, and no long test starts near the end with the others idle.
    others: list[pytest.Item] = []
    browser: list[pytest.Item] = []
    for item in items:
        (browser if "tests/browser/" in str(item.fspath) else others).append(item)
    browser.sort(key=lambda item: item.get_closest_marker("slow") is None)
    items[:] = others + browser
    # No browser on this machine: .ci/run installs Debian's chromium; say so, never download one.
    for path, wanted in ((CHROMIUM, browser), (FULL_CHROMIUM, _full_browser_tests(browser))):
        if shutil.which(path) or Path(path).exists():
            continue
        skip = pytest.mark.skip(reason=f"no system Chromium at {path} (apt-get install chromium)")
        for item in wanted:
            item.add_marker(skip)


def _full_browser_tests(items: list[pytest.Item]) -> list[pytest.Item]:
    return [item for item in items if "full_browser" in getattr(item, "fixturenames", ())]


@pytest.fixture(autouse=True)
def fresh_caches() -> None:
    """Each test starts with empty caches: what an earlier test in this process left
    there (allauth's limit of one confirmation email per address every three
    minutes, a cached page) must not decide this one."""
    from django.core.cache import caches

    for cache in caches.all():
        cache.clear()


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    return {
        **browser_type_launch_args,
        "executable_path": CHROMIUM,
        "headless": True,
        "args": [
            "--no-sandbox",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--disable-quic",
        ],
    }


@pytest.fixture(scope="session")
def full_browser(
    browser_type: Any, browser_type_launch_args: dict[str, Any], browser: Browser
) -> Iterator[Browser]:
    """The full Chromium (FULL_CHROMIUM), for a test that needs what its headless
    shell lacks; the same browser as `browser` when the tests drive the full one."""
    if CHROMIUM == FULL_CHROMIUM:
        yield browser
        return
    full = browser_type.launch(**{**browser_type_launch_args, "executable_path": FULL_CHROMIUM})
    try:
        yield full
    finally:
        full.close()


@pytest.fixture
def context(new_context: Any, request: pytest.FixtureRequest) -> BrowserContext:
    """pytest-playwright's context (and so its `page`), its movies at the tests' pace
    (browser_support.MOVIE_SPEED) unless the test is marked
    `@pytest.mark.movie_speed(speed)`: None for the page's own default."""
    marker = request.node.get_closest_marker("movie_speed")
    speed = marker.args[0] if marker is not None else MOVIE_SPEED
    return keep_movie_speed(new_context(), speed)


@pytest.fixture
def asgi_site(settings: Any, tmp_path: Path) -> Iterator[str]:
    """The whole site under uvicorn in this process, as `make run` and production's
    stream process serve it: pages and /push/ (pytest-django's live_server is a WSGI
    server, where /push/ is a 404 and the pages poll). Its own file bell, rung by
    the test's commits; the static files from the apps' folders, as the live server
    serves them. Yields the base URL."""
    from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler
    from stream_support import asgi_server

    from helium3_site.asgi import application

    settings.PUSH_BELL_FILE = str(tmp_path / "bell")
    settings.PUSH_REDIS_URL = "file"
    with asgi_server(ASGIStaticFilesHandler(application)) as base:
        yield base


@pytest.fixture
def screenshot_dir() -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS
