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
