"""The push channel, /push/, as the site's ASGI application serves it: who may
listen, what a turn event says (public facts only, the same for a player and a
spectator), the "your move" count, and a channel that reconnects with
Last-Event-ID told each change once, none lost."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from game_factories import UserFactory
from push_client import Channel, Event, pass_turn

from games import services
from games.models import Match

pytestmark = pytest.mark.django_db(transaction=True)

VERSION = re.compile(
    r"^(open|running|finished|aborted|paused)\.\d+\.(waiting|accepted|resolved|-)$"
)


def cookie_of(user: Any) -> str:
    from django.test import Client

    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}"


def current_version(match: Match) -> str:
    from games.push.reads import match_versions

    return match_versions({match.pk})[match.pk][0]


def turns(events: list[Event]) -> list[Event]:
    return [e for e in events if e.kind == "turn"]


def bot_match() -> tuple[Any, Match]:
    player = UserFactory(username="pusher")
    match = services.match_create(creator=player, seat_count=2, turn_seconds=3600, bots=["random"])
    return player, match


def test_refusals_say_why_and_open_nothing() -> None:
    player, match = bot_match()
    private = services.match_create(creator=player, seat_count=2, public=False, bots=["random"])
    for kwargs, status, code in [
        ({"match": 999_999}, 404, "no_such_match"),
        ({"match": private.pk}, 403, "private_match"),
        ({}, 400, "nothing_to_hear"),
    ]:
        channel = Channel(**kwargs)
        channel.thread.join(10)
        assert channel.status == status, kwargs
        assert f'"code": "{code}"'.encode() in channel.body
        channel.close()
    # The private match's own player may listen.
    channel = Channel(match=private.pk, cookie=cookie_of(player))
    assert turns(channel.events(1))[0].data["match"] == private.pk
    assert channel.status == 200
    channel.close()


def test_a_player_and_a_spectator_hear_the_same_public_facts_and_the_player_its_count() -> None:
    player, match = bot_match()
    spectator = Channel(match=match.pk)
    seated = Channel(match=match.pk, cookie=cookie_of(player))
    try:
        first_spectator = spectator.events(1)
        first_player = seated.events(2)
        assert [e.kind for e in first_spectator] == ["turn"]
        assert sorted(e.kind for e in first_player) == ["moves", "turn"]
        said = [
            e.raw[e.raw.index(b"event:") :] for e in (turns(first_player)[0], first_spectator[0])
        ]
        assert said[0] == said[1]
        assert [e.data for e in first_player if e.kind == "moves"] == [{"count": 1}]
        pass_turn(match)
        match.refresh_from_db()
        latest = current_version(match)

        def until_latest(channel: Channel) -> list[Event]:
            heard: list[Event] = []
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                heard += channel.events(1, timeout=deadline - time.monotonic())
                if turns(heard) and turns(heard)[-1].data["version"] == latest:
                    return heard
            raise AssertionError(f"never heard {latest}: {heard}")

        for heard in (until_latest(spectator), until_latest(seated)):
            for event in turns(heard):
                # Only the match, its turn and the public version: no view, no orders.
                assert set(event.data) == {"match", "turn", "version"}
                assert event.data["match"] == match.pk
                assert VERSION.match(event.data["version"]), event.data
                assert event.data["turn"] == int(event.data["version"].split(".")[1])
            numbers = [e.data["turn"] for e in turns(heard)]
            assert numbers == sorted(numbers)
            assert numbers[-1] == match.turn_number
    finally:
        spectator.close()
        seated.close()


def test_a_channel_cut_mid_match_resumes_with_last_event_id_without_loss_or_repeat() -> None:
    player, match = bot_match()
    channel = Channel(match=match.pk, cookie=cookie_of(player))
    first = channel.events(2)
    channel.close()
    told = first[-1].id
    assert told is not None and told.endswith("|1")
    # Turns resolved while the page was away.
    pass_turn(match)
    pass_turn(match)
    match.refresh_from_db()
    assert match.turn_number >= 3

    again = Channel(match=match.pk, cookie=cookie_of(player), last_event_id=told)
    try:
        heard = again.events(2, timeout=5)
        # The newest state, at once: the page asks its view since the turn it shows,
        # so every turn missed plays; the count, unchanged, is not told again.
        assert [e.kind for e in heard] == ["turn"]
        assert heard[0].data["turn"] == match.turn_number
        assert heard[0].data["version"] == current_version(match)
        latest_id = heard[0].id
        # Nothing said twice: a sweep later, still nothing new.
        assert again.events(1, timeout=2.5) == []
    finally:
        again.close()
    # Told the newest already: a reconnect hears nothing until the next change.
    told_all = Channel(match=match.pk, cookie=cookie_of(player), last_event_id=latest_id)
    try:
        assert told_all.events(1, timeout=2.5) == []
        pass_turn(match)
        match.refresh_from_db()
        heard = told_all.events(1, timeout=10)
        assert turns(heard) and turns(heard)[0].data["turn"] <= match.turn_number
    finally:
        told_all.close()


def test_the_bell_wakes_the_channel_at_once(own_bell: Any) -> None:
    """A ring reaches an open channel well before the sweep would."""
    from games.push import asgi as push_asgi

    player, match = bot_match()
    channel = Channel(match=match.pk)
    try:
        channel.events(1)
        time.sleep(0.3)  # the hub waits for the bell now
        started = time.monotonic()
        pass_turn(match)  # commits, then rings the file bell
        heard = channel.events(1, timeout=push_asgi.SWEEP_SECONDS)
        assert heard, "no event before the sweep"
        assert time.monotonic() - started < push_asgi.SWEEP_SECONDS
        assert own_bell.exists()
    finally:
        channel.close()


def test_the_move_count_is_told_when_it_changes() -> None:
    """The badge's count, on a page of no match: told at once, then again when a new
    match waits for the player's move; not again while it stays the same."""
    player, match = bot_match()
    channel = Channel(cookie=cookie_of(player))
    try:
        assert [(e.kind, e.data) for e in channel.events(1)] == [("moves", {"count": 1})]
        # A turn passed: the count may dip while the bot's turn runs, and is the
        # player's again after it; each change is told once.
        pass_turn(match)
        counts = [1] + [e.data["count"] for e in channel.events(10, timeout=2.5)]
        assert counts[-1] == 1
        assert all(a != b for a, b in zip(counts, counts[1:], strict=False)), counts
        services.match_create(creator=player, seat_count=2, turn_seconds=3600, bots=["random"])
        assert [(e.kind, e.data) for e in channel.events(1)] == [("moves", {"count": 2})]
    finally:
        channel.close()
