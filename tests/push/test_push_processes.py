"""Several web processes each deliver every event: two uvicorn processes serving
helium3_site.asgi on the test's database, one publisher (this process, where the
turns are resolved), rung through the file bell of the embedded run and through
Redis pub/sub as in production."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from game_factories import UserFactory
from push_client import SocketChannel, database_url, pass_turn, redis_server, web_servers

from games import services

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(params=["file", "redis"])
def web_processes(request: Any, settings: Any, own_bell: Path) -> Iterator[list[int]]:
    from django.db import connection

    env = {
        **os.environ,
        "DATABASE_URL": database_url(connection.settings_dict),
        "PUSH_BELL_FILE": str(own_bell),
        "PUSH_REDIS_URL": "file",
        # No sweep within the test: what reaches the pages came by the bell.
        "PUSH_SWEEP_SECONDS": "600",
    }
    redis: subprocess.Popen[bytes] | None = None
    try:
        if request.param == "redis":
            redis_port, redis = redis_server()
            url = f"redis://127.0.0.1:{redis_port}/0"
            env["PUSH_REDIS_URL"] = url
            settings.PUSH_REDIS_URL = url
        with web_servers(env) as ports:
            yield ports
    finally:
        if redis is not None:
            redis.terminate()
            try:
                redis.wait(10)
            except subprocess.TimeoutExpired:
                redis.kill()


def test_two_web_processes_deliver_the_same_events(web_processes: list[int]) -> None:
    from games.push.reads import match_versions

    player = UserFactory(username="two-web")
    match = services.match_create(creator=player, seat_count=2, turn_seconds=3600, bots=["random"])
    channels = [SocketChannel(port, match=match.pk) for port in web_processes]
    try:
        first = [c.events(1) for c in channels]
        assert all(c.status == 200 for c in channels)
        assert first[0] and first[0][0].raw == first[1][0].raw
        for _ in range(3):
            pass_turn(match)  # committed, then rung once per change, here only
            latest = match_versions({match.pk})[match.pk][0]
            heard = []
            for channel in channels:
                events: list[Any] = []
                deadline = time.monotonic() + 10
                while not events or events[-1].data["version"] != latest:
                    more = channel.events(1, timeout=max(0.0, deadline - time.monotonic()))
                    assert more, f"a web process never told {latest}: {events}"
                    events += more
                heard.append(events)
            # Each process told the newest turn, with the same id and data.
            assert heard[0][-1].raw == heard[1][-1].raw
            for events in heard:
                numbers = [e.data["turn"] for e in events]
                assert numbers == sorted(numbers)
    finally:
        for channel in channels:
            channel.close()


def test_two_web_processes_tell_the_watch_page_the_same_list(web_processes: list[int]) -> None:
    from games.push.reads import watch_rows, watch_version

    player = UserFactory(username="two-web-watch")
    match = services.match_create(creator=player, seat_count=2, turn_seconds=3600, bots=["random"])
    channels = [SocketChannel(port, watch=True) for port in web_processes]
    try:
        first = [c.events(1) for c in channels]
        assert all(c.status == 200 for c in channels)
        assert first[0] and first[0][0].raw == first[1][0].raw
        pass_turn(match)  # rung here only; the processes' sweeps are out of reach
        latest = watch_version(watch_rows())
        assert latest != first[0][0].data["version"]
        told = []
        for channel in channels:
            events: list[Any] = []
            deadline = time.monotonic() + 10
            while not events or events[-1].data["version"] != latest:
                more = channel.events(1, timeout=max(0.0, deadline - time.monotonic()))
                assert more, f"a web process never told the list {latest}: {events}"
                events += more
            assert {e.kind for e in events} == {"watch"}
            told.append(events[-1].raw)
        assert told[0] == told[1]
    finally:
        for channel in channels:
            channel.close()
