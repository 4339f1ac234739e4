"""The watch page on the push channel: /push/?watch=1 tells a page when the list of
public matches being played changed (one began or ended, paused, or is at another
turn), with its version only; a private match's turns say nothing; a reconnect with
Last-Event-ID is not told the same list twice. And the list the page then asks for,
/watch/?part=list, a 204 while its version is the one shown."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from django.test import Client
from game_factories import UserFactory
from push_client import Channel, Event, pass_turn

from games import services
from games.models import Match

pytestmark = pytest.mark.django_db(transaction=True)

DIGEST = re.compile(r"^[0-9a-f]{16}$")


def cookie_of(user: Any) -> str:
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}"


def listed_version() -> str:
    from games.push.reads import watch_rows, watch_version

    return watch_version(watch_rows())


def watches(events: list[Event]) -> list[Event]:
    return [e for e in events if e.kind == "watch"]


def until_version(channel: Channel, version: str) -> list[Event]:
    heard: list[Event] = []
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        heard += channel.events(1, timeout=deadline - time.monotonic())
        if heard and heard[-1].data.get("version") == version:
            return heard
    raise AssertionError(f"never heard {version}: {heard}")


def bot_match(username: str, *, public: bool = True) -> tuple[Any, Match]:
    player = UserFactory(username=username)
    match = services.match_create(
        creator=player, seat_count=2, turn_seconds=3600, bots=["random"], public=public
    )
    return player, match


def page_version(client: Client) -> str:
    found = re.search(r'data-watch="([^"]*)"', client.get("/watch/").content.decode())
    assert found is not None
    return found.group(1)


def test_a_bad_watch_is_refused_and_a_visitor_may_watch_without_signing_in() -> None:
    channel = Channel(watch="yes")
    channel.thread.join(10)
    assert channel.status == 400
    assert b'"code": "bad_watch"' in channel.body
    channel.close()
    channel = Channel(watch="1")
    try:
        heard = channel.events(1)
        assert channel.status == 200
        assert [(e.kind, e.data) for e in heard] == [("watch", {"version": listed_version()})]
        assert heard[0].id == f"-|-|{listed_version()}"
    finally:
        channel.close()


def test_the_page_shows_the_version_the_channel_tells() -> None:
    bot_match("shown")
    version = page_version(Client())
    assert DIGEST.match(version)
    assert version == listed_version()
    # A page that shows it is told nothing until the list changes.
    channel = Channel(watch="1", last_event_id=f"-|-|{version}")
    try:
        assert channel.events(1, timeout=2.5) == []
    finally:
        channel.close()


def test_a_public_matchs_turn_is_told_a_private_ones_is_not() -> None:
    _, public = bot_match("public")
    _, private = bot_match("private", public=False)
    channel = Channel(watch="1")
    try:
        first = channel.events(1)
        assert watches(first)
        # The private match plays on: the list the page shows is the same.
        pass_turn(private)
        private.refresh_from_db()
        assert private.turn_number > 1
        assert channel.events(1, timeout=2.5) == []
        pass_turn(public)
        # Told each list it passed through (the bot's turn between), the last one last.
        heard = until_version(channel, listed_version())
        assert {e.kind for e in heard} == {"watch"}
        assert first[0].data["version"] not in [e.data["version"] for e in heard]
        for event in heard:
            # The version alone: no match, turn or seat.
            assert set(event.data) == {"version"} and DIGEST.match(event.data["version"])
    finally:
        channel.close()


def test_a_pause_where_no_bell_rings_reaches_the_page_within_the_sweep() -> None:
    from games.push import asgi as push_asgi

    _, match = bot_match("paused")
    channel = Channel(watch="1")
    try:
        before = channel.events(1)[0].data["version"]
        assert channel.events(1, timeout=0.5) == []  # told the list already
        Match.objects.filter(pk=match.pk).update(status=Match.Status.PAUSED)
        heard = channel.events(1, timeout=push_asgi.SWEEP_SECONDS + 3)
        assert [e.data["version"] for e in heard] == [listed_version()]
        assert heard[0].data["version"] != before
    finally:
        channel.close()


def test_a_signed_in_watcher_hears_its_count_and_the_list_and_resumes_told() -> None:
    player, match = bot_match("watcher")
    channel = Channel(watch="1", cookie=cookie_of(player))
    try:
        first = channel.events(2)
        assert sorted(e.kind for e in first) == ["moves", "watch"]
        told = first[-1].id
        assert told == f"-|1|{listed_version()}"
    finally:
        channel.close()
    pass_turn(match)
    again = Channel(watch="1", cookie=cookie_of(player), last_event_id=told)
    try:
        heard = again.events(2, timeout=3)
        # The list moved on (the match's turn); the count is the same: told once.
        assert [e.kind for e in heard] == ["watch"]
        assert heard[0].id == f"-|1|{listed_version()}"
    finally:
        again.close()


def test_the_list_alone_and_its_204_while_unchanged() -> None:
    _, match = bot_match("lister")
    client = Client()
    shown = page_version(client)
    response = client.get("/watch/", {"part": "list", "v": shown})
    assert response.status_code == 204
    response = client.get("/watch/", {"part": "list"})
    assert response.status_code == 200
    body = response.content.decode()
    assert body.lstrip().startswith('<div id="watch-list"')
    assert "<html" not in body and f"Match {match.pk}" in body
    assert response["Cache-Control"] == "no-store"
    pass_turn(match)
    response = client.get("/watch/", {"part": "list", "v": shown})
    assert response.status_code == 200
    assert f'data-watch="{listed_version()}"' in response.content.decode()
    assert listed_version() != shown
    for bad in ("cards", ""):
        response = client.get("/watch/", {"part": bad})
        assert response.status_code == 400, bad
