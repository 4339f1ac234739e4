"""The match page's script sends orders asking for JSON: accepted, the answer says
so (no redirect, no flash message left for a later page); refused, it says why and
brings the orders section with the orders sent, each error beside its field. A
plain post (no script) is answered as before: a redirect and a message tagged
with its turn."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse
from site_support import client_for

from games import services
from games.models import Match

JSON = {"Accept": "application/json"}


@pytest.fixture
def public(player: Any, opponent: Any) -> Match:
    match = services.match_create(creator=player, seat_count=2, turn_seconds=3600)
    services.seat_join(match_id=match.pk, user=opponent)
    return match


def move(to: tuple[int, int]) -> dict[str, str]:
    return {
        "turn": "0",
        "robot_0": "1-1",
        "type_0": "move",
        "x_0": str(to[0]),
        "y_0": str(to[1]),
    }


def test_orders_sent_by_the_script_are_answered_in_json(public: Match, player: Any) -> None:
    client = client_for(player)
    url = reverse("games:match-orders", args=[public.pk])
    response = client.post(url, {"turn": "0"}, headers=JSON)
    assert response.status_code == 200
    body = response.json()
    assert body["accepted"] is True and body["turn"] == 0
    assert body["message"] == "Orders accepted. The turn is being resolved."
    assert body["steps"] is False
    assert not list(get_messages(response.wsgi_request))


def test_orders_refused_are_answered_with_the_reason_and_the_orders_sent(
    public: Match, player: Any
) -> None:
    client = client_for(player)
    url = reverse("games:match-orders", args=[public.pk])
    response = client.post(url, move((15, 5)), headers=JSON)
    assert response.status_code == 400
    body = response.json()
    assert body["accepted"] is False
    assert "at most 6 cells" in body["message"]
    assert 'id="orders"' in body["orders"] and "at most 6 cells" in body["orders"]
    assert 'value="15"' in body["orders"]  # the orders sent stay
    public.refresh_from_db()
    assert public.turn_number == 0


def test_a_plain_post_still_redirects_with_a_message_tagged_with_its_turn(
    public: Match, player: Any
) -> None:
    client = client_for(player)
    url = reverse("games:match-orders", args=[public.pk])
    response = client.post(url, {"turn": "0"})
    assert response.status_code == 302
    said = list(get_messages(response.wsgi_request))
    assert [m.message for m in said] == ["Orders accepted. The turn is being resolved."]
    assert "orders-accepted" in said[0].tags and "turn-0" in said[0].tags
