"""A spectator's API answers while a turn at once waits: a seat's stored orders (a
Halite turn's moves, a Skyport loadout) change nothing a spectator or the other seat
is told, byte for byte, until every seat's are in and the turn resolves."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
import time_machine
from api_support import ApiClient

import engine
from games.models import Match, Orders

pytestmark = pytest.mark.django_db


@pytest.fixture
def frozen_clock() -> Iterator[None]:
    with time_machine.travel(datetime.now(UTC).replace(microsecond=0), tick=False):
        yield


def _told(clients: dict[str, ApiClient], match_id: int) -> dict[str, bytes]:
    told = {}
    for name, client in clients.items():
        answers = [client.get_json(f"/matches/{match_id}/{p}") for p in ("", "history/")]
        assert all(a.status_code == 200 for a in answers), name
        told[name] = b"\n".join(a.content for a in answers)
    return told


def _duel(api: ApiClient, api_opponent: ApiClient, ruleset: str, options: dict) -> int:
    created = api.post_json("/matches/", {"ruleset": ruleset, "seats": 2, "options": options})
    assert created.status_code == 201, created.content[:300]
    match_id = int(created.json()["id"])
    assert api_opponent.post_json(f"/matches/{match_id}/join/").status_code == 200
    return match_id


@pytest.mark.parametrize(
    ("ruleset", "options"), [("skyport", {"rounds": 5}), ("halite", {"width": 10, "height": 10})]
)
def test_stored_orders_of_a_turn_at_once_reach_no_spectator_or_other_seat(
    api: ApiClient,
    api_opponent: ApiClient,
    api_spectator: ApiClient,
    frozen_clock: None,
    ruleset: str,
    options: dict[str, Any],
) -> None:
    match_id = _duel(api, api_opponent, ruleset, options)
    watchers = {"spectator": api_spectator, "seat 2": api_opponent}
    before = _told(watchers, match_id)
    match = Match.objects.get(pk=match_id)
    assert match.state is not None and engine.awaiting(match.state) == [1, 2]
    orders = engine.bot_orders(engine.bot_names(ruleset)[-1], match.state, 1)
    orders = {k: v for k, v in orders.items() if k != "seat"}
    sent = api.post_json(f"/matches/{match_id}/orders/", orders)
    assert sent.status_code == 202, sent.content[:300]
    assert Orders.objects.filter(match_id=match_id, seat=1).exists()
    assert _told(watchers, match_id) == before
    # The control: seat 1 is told its own stored orders.
    assert api.get_json(f"/matches/{match_id}/").json()["your_orders"] is not None
