"""docs/api.md: "Posting the same orders for the same turn again answers what the
first post did" — also once the worker has resolved them. A bot that posts, reads the
match before the worker got to it and posts again must not fail: in every game, its
setup orders and its turn orders (a step of a turn made of steps too) repeated after
they resolved answer as the first post did (or 409 `stale_turn`), never 400."""

from __future__ import annotations

from typing import Any

import pytest
from api_support import ApiClient
from site_support import drain

import engine
from games.models import Match

# Small matches of every game: two seats, both played through the API.
GAMES: dict[str, dict[str, Any]] = {
    "helium3": {},
    "helium3-remake": {"rounds": 5},
    "halite": {"width": 10, "height": 10},
    "skyport": {"rounds": 5},
    "arena": {"rounds": 10},
}


def _start(api: ApiClient, api_opponent: ApiClient, ruleset: str) -> Match:
    body = {"ruleset": ruleset, "seats": 2, "options": GAMES[ruleset]}
    created = api.post_json("/matches/", body)
    assert created.status_code == 201, created.content[:300]
    match_id = created.json()["id"]
    assert api_opponent.post_json(f"/matches/{match_id}/join/").status_code == 200
    return Match.objects.get(pk=match_id)


def _orders(match: Match, seat: int) -> dict[str, Any]:
    """What a bot sends: the seat's default orders, with `step_no` in a turn of steps."""
    assert match.state is not None
    orders = engine.default_orders(match.state, seat)
    if engine.ruleset(match.ruleset).shape.steps and len(engine.awaiting(match.state)) == 1:
        orders["step_no"] = engine.step(match.state)
    return orders


def _repeat_answers_as_the_first(client: ApiClient, match: Match, orders: dict[str, Any]) -> None:
    first_turn = orders["turn"]
    first = client.post_json(f"/matches/{match.pk}/orders/", orders)
    assert first.status_code == 202, first.content[:300]
    drain(match)
    assert match.turn_number != first_turn or match.status == Match.Status.FINISHED
    again = client.post_json(f"/matches/{match.pk}/orders/", orders)
    if again.status_code == 409:
        assert again.json()["code"] == "stale_turn", again.content[:300]
    else:
        assert again.status_code == 202, again.content[:300]
        assert again.json() == first.json()


@pytest.mark.django_db
@pytest.mark.parametrize("ruleset", list(GAMES))
def test_setup_and_turn_orders_repeated_after_they_resolved_answer_as_the_first_post(
    api, api_opponent, ruleset
):
    match = _start(api, api_opponent, ruleset)
    clients = {1: api, 2: api_opponent}
    assert match.state is not None
    shape = engine.ruleset(ruleset).shape
    if shape.setup or shape.simultaneous:
        # Setup (or a turn at once): every seat's orders; the first seat repeats its own.
        assert engine.awaiting(match.state) == [1, 2]
        first_orders = _orders(match, 1)
        assert (
            api_opponent.post_json(f"/matches/{match.pk}/orders/", _orders(match, 2)).status_code
            == 202
        )
        _repeat_answers_as_the_first(api, match, first_orders)
    if not shape.simultaneous:
        # A turn of one seat (one step of it, in a turn of steps).
        seat = engine.awaiting(match.state)[0]
        _repeat_answers_as_the_first(clients[seat], match, _orders(match, seat))
