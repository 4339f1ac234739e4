"""A web process serves a match page's version it has read without asking the
database while no doorbell has rung since (games/push/kept.py): through the file
bell of the embedded run and through Redis pub/sub as in production, in this
process and in two web processes of their own."""

from __future__ import annotations

import os
import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.request import Request, urlopen

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from game_factories import UserFactory
from push_client import database_url, pass_turn, redis_server, web_servers
from site_support import client_for

from games import services
from games.models import Match
from games.push import kept

pytestmark = pytest.mark.django_db(transaction=True)

HTMX = {"HTTP_HX_REQUEST": "true"}


# The Redis of each test that rings through one: its server process.
_servers: dict[str, subprocess.Popen[bytes]] = {}


@pytest.fixture(params=["file", "redis"])
def bell(request: Any, settings: Any, own_bell: Path) -> Iterator[str]:
    """The bell this test's processes hear (PUSH_REDIS_URL: "file", or a Redis of its
    own), and keeping turned on for a minute: within a test, only a ring ends a
    version kept."""
    settings.PAGE_VERSION_KEEP_SECONDS = 60
    redis: subprocess.Popen[bytes] | None = None
    kept.forget()
    try:
        if request.param == "redis":
            port, redis = redis_server()
            settings.PUSH_REDIS_URL = f"redis://127.0.0.1:{port}/0"
            _servers[settings.PUSH_REDIS_URL] = redis
        yield settings.PUSH_REDIS_URL
    finally:
        kept.forget()
        if redis is not None:
            _servers.pop(settings.PUSH_REDIS_URL, None)
            redis.kill()
            redis.wait(10)


def _match() -> tuple[Any, Match]:
    player = UserFactory()
    # A battle of an hour, so that the clock cannot end it within the tests' turns.
    match = services.match_create(
        creator=player, seat_count=2, turn_seconds=3600, length_ms=3_600_000, bots=["random"]
    )
    return player, match


def _version(html: str) -> str:
    """The version a page shows: its poll's `v`."""
    found = re.search(r'hx-get="[^"]*[?&](?:amp;)?v=([^"&]+)', html)
    assert found, f"no poll on the page: {_gist(html)}"
    return found.group(1)


def _gist(html: str) -> str:
    """What a page is, in a line: its title and the start of its main part."""
    title = re.search(r"<title>(.*?)</title>", html, re.S)
    main = re.search(r"<main[^>]*>(.*?)</main>", html, re.S)
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", main.group(1) if main else html))
    return f"{title.group(1).strip() if title else '(no title)'}: {text.strip()[:400]}"


def _queries(client: Any, url: str, **extra: Any) -> tuple[Any, int]:
    with CaptureQueriesContext(connection) as done:
        response = client.get(url, **extra)
    return response, len(done)


def test_an_unchanged_page_and_its_poll_are_served_without_a_query(bell: str) -> None:
    player, match = _match()
    client = client_for(player)
    url = f"/matches/{match.pk}/"
    first, asked = _queries(client, url)
    assert first.status_code == 200 and asked >= 1
    again, asked = _queries(client, url)
    assert again.status_code == 200 and asked == 0
    html = again.content.decode()
    assert _version(html) == _version(first.content.decode()) and 'name="turn"' in html
    poll = f"/matches/{match.pk}/poll/?v={_version(html)}"
    answer, asked = _queries(client, poll, **HTMX)
    assert answer.status_code == 304 and asked == 0
    # Every viewer has a version of their own: a spectator's first view asks.
    _, asked = _queries(client_for(UserFactory()), url)
    assert asked >= 1


def test_a_turn_rings_and_the_next_view_shows_it(bell: str) -> None:
    player, match = _match()
    client = client_for(player)
    url = f"/matches/{match.pk}/"
    client.get(url)
    for _ in range(3):
        before = _version(client.get(url).content.decode())
        pass_turn(match)  # each commit rings after it, in this process
        match.refresh_from_db()
        response, asked = _queries(client, url)
        shown = _version(response.content.decode())
        assert asked >= 1 and shown != before
        assert shown.startswith(f"running.{match.turn_number}."), (shown, match.turn_number)
        # The poll of the page before hears of the turn at once.
        answer = client.get(f"/matches/{match.pk}/poll/?v={before}&since=0", **HTMX)
        assert answer.status_code == 200


def test_a_change_behind_the_bells_back_shows_within_the_keep_seconds(
    bell: str, settings: Any
) -> None:
    settings.PAGE_VERSION_KEEP_SECONDS = 0.5
    player, match = _match()
    client = client_for(player)
    url = f"/matches/{match.pk}/"
    client.get(url)
    # An admin's pause: written straight to the row, no bell rung.
    Match.objects.filter(pk=match.pk).update(status=Match.Status.PAUSED)
    kept_at = time.monotonic()
    shown = _version(client.get(url).content.decode())
    if time.monotonic() - kept_at < 0.4:
        assert shown.startswith("running."), shown  # still the version kept
    time.sleep(max(0.0, kept_at + 0.6 - time.monotonic()))
    assert _version(client.get(url).content.decode()).startswith("paused.")


def test_no_version_is_kept_while_the_bell_cannot_be_heard(bell: str, settings: Any) -> None:
    player, match = _match()
    client = client_for(player)
    url = f"/matches/{match.pk}/"
    client.get(url)
    assert _queries(client, url)[1] == 0
    settings.PAGE_VERSION_KEEP_SECONDS = 0
    assert _queries(client, url)[1] >= 1, "keeping off: the database on every view"
    settings.PAGE_VERSION_KEEP_SECONDS = 60
    if bell.startswith("redis://"):
        # Redis gone (its process ended, its connections closed with it): rings may
        # be lost, so every view asks the database.
        server = _servers[bell]
        server.kill()
        server.wait(10)
        # Its connection's end reaches this process at once, or nearly.
        deadline = time.monotonic() + 2
        while _queries(client, url)[1] == 0:
            assert time.monotonic() < deadline, "Redis is gone, the version still kept"
            time.sleep(0.01)
        for _ in range(3):
            response, asked = _queries(client, url)
            assert response.status_code == 200 and asked >= 1


def _get(port: int, path: str, cookie: str) -> str:
    request = Request(f"http://127.0.0.1:{port}{path}", headers={"Cookie": cookie})
    with urlopen(request, timeout=10) as response:
        # The page asked for, not one redirected to (a login page has no poll either).
        assert response.url.endswith(path), (port, response.url)
        return str(response.read().decode())


@pytest.fixture
def web_processes(bell: str, own_bell: Path) -> Iterator[list[int]]:
    """Two web processes (uvicorn serving helium3_site.asgi, the site's pages with
    it) on the test's database, keeping versions for a minute."""
    env = {
        **os.environ,
        "DATABASE_URL": database_url(connection.settings_dict),
        "PUSH_BELL_FILE": str(own_bell),
        "PUSH_REDIS_URL": bell,
        "PAGE_VERSION_KEEP_SECONDS": "60",
        "PUSH_SWEEP_SECONDS": "600",
    }
    with web_servers(env) as ports:
        yield ports


def test_two_web_processes_show_each_turn_rung_elsewhere_at_once(
    web_processes: list[int],
) -> None:
    player, match = _match()
    client = client_for(player)
    cookie = f"sessionid={client.cookies['sessionid'].value}"
    path = f"/matches/{match.pk}/"
    for _ in range(5):
        # Each process has read the page's version (twice: the second from memory).
        for port in web_processes:
            for _ in range(2):
                _version(_get(port, path, cookie))
        pass_turn(match)  # committed and rung here, in a third process
        match.refresh_from_db()
        if match.status == Match.Status.FINISHED:
            # The bot ended it (rarely, so soon): a finished page has no poll to read
            # its version from, and says so instead.
            for port in web_processes:
                assert "The match is over." in _get(port, path, cookie), port
            break
        for port in web_processes:
            shown = _version(_get(port, path, cookie))
            assert shown.startswith(f"running.{match.turn_number}."), (port, shown)
