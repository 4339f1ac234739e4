"""The leak crawler's differential check over the push channel (/push/): what each
viewer's channel says about every match of the planted world is the same, byte for
byte, in a second world where every fact that viewer may not know is different; and
no event carries anything but the match, its turn, its public version and the
viewer's own "your move" count."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from leak_world import Planted, rewrite_hidden, secrets_in

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "push"))

pytestmark = pytest.mark.django_db(transaction=True)


def cookie_of(user: Any) -> str:
    if user is None:
        return ""
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}"


def channel_says(match_id: int, cookie: str) -> tuple[int | None, list[Any]]:
    """What a newly opened channel says at once: its status and first events."""
    from push_client import Channel

    channel = Channel(match=match_id, cookie=cookie)
    try:
        events = channel.events(2 if cookie else 1, timeout=5)
    finally:
        channel.close()
    return channel.status, events


def test_no_viewer_hears_a_hidden_fact_on_the_push_channel(
    planted: Planted, settings: Any, tmp_path: Path
) -> None:
    settings.PUSH_BELL_FILE = str(tmp_path / "bell")
    settings.PUSH_REDIS_URL = "file"
    world = planted
    matches = [*world.live, world.finished, world.open]
    viewers = {**world.users, "anonymous": None}
    for name, viewer in viewers.items():
        cookie = cookie_of(viewer)
        before = {m.pk: channel_says(m.pk, cookie) for m in matches}
        for match in world.live:
            rewrite_hidden(match, world.seat_of(viewer, match))
        after = {m.pk: channel_says(m.pk, cookie) for m in matches}
        for match in matches:
            status, events = before[match.pk]
            assert (status, [e.raw for e in events]) == (
                after[match.pk][0],
                [e.raw for e in after[match.pk][1]],
            ), f"{name} hears match {match.pk} differently in the two worlds"
            if status != 200:
                assert match == world.private and name in ("sam", "carol", "dave", "anonymous")
                continue
            for event in events:
                if event.kind == "turn":
                    assert set(event.data) == {"match", "turn", "version"}
                    assert event.data["match"] == match.pk
                else:
                    assert event.kind == "moves" and set(event.data) == {"count"}
                    assert viewer is not None
                assert list(secrets_in(event.data, set())) == []
        # A seated player and a spectator are told the same of each match.
        if name != "anonymous":
            for match in matches:
                if before[match.pk][0] != 200:
                    continue
                seen, spectator = channel_says(match.pk, "")
                if seen != 200:  # private: no spectator
                    assert match == world.private
                    continue
                mine = [e.raw[e.raw.index(b"event:") :] for e in after[match.pk][1]]
                told = [e.raw[e.raw.index(b"event:") :] for e in spectator]
                assert told[0] in mine


def watch_says(cookie: str) -> tuple[int | None, list[Any], bytes]:
    """What the watch page's channel says at once, and the list the page then asks."""
    from push_client import Channel

    channel = Channel(watch="1", cookie=cookie)
    try:
        events = channel.events(2 if cookie else 1, timeout=5)
    finally:
        channel.close()
    client = Client()
    if cookie:
        client.cookies["sessionid"] = cookie.partition("=")[2]
    listed = client.get("/watch/", {"part": "list"})
    assert listed.status_code == 200
    return channel.status, events, listed.content


def test_the_watch_pages_channel_tells_every_viewer_the_same_public_list(
    planted: Planted, settings: Any, tmp_path: Path
) -> None:
    """The watch subscription (/push/?watch=1) and the list it sends the page to:
    the same for every viewer, and the same in the world where every fact that viewer
    may not know is different; its event holds the list's version alone, which the
    private match's turns do not move."""
    settings.PUSH_BELL_FILE = str(tmp_path / "bell")
    settings.PUSH_REDIS_URL = "file"
    world = planted
    viewers = {**world.users, "anonymous": None}
    told: dict[str, bytes] = {}
    for name, viewer in viewers.items():
        cookie = cookie_of(viewer)
        status, before, listed_before = watch_says(cookie)
        assert status == 200, name
        for match in world.live:
            rewrite_hidden(match, world.seat_of(viewer, match))
        status_after, after, listed_after = watch_says(cookie)
        assert status_after == 200
        assert [e.raw for e in before] == [e.raw for e in after], name
        assert listed_before == listed_after, (
            f"{name} is listed different matches in the two worlds"
        )
        watch = [e for e in after if e.kind == "watch"]
        assert len(watch) == 1 and set(watch[0].data) == {"version"}
        assert list(secrets_in(watch[0].data, set())) == []
        assert [e.kind for e in after if e.kind != "watch"] == (["moves"] if viewer else [])
        # The list names the public running match, never the private one.
        assert f"Match {world.running.pk}<".encode() in listed_after
        assert f"Match {world.private.pk}<".encode() not in listed_after
        told[name] = watch[0].raw[watch[0].raw.index(b"event:") :]
    # Players, a spectator, staff and a visitor: one list, one version, the same bytes.
    assert len(set(told.values())) == 1, told
