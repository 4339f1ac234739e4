"""The bot API for every game and turn shape: the create body's ruleset and options,
the match's ruleset, options, awaiting, scores and step, and orders for a turn at
once (stored, replaceable, hidden) and for a turn made of steps (`step_no`)."""

from __future__ import annotations

from typing import Any

import pytest
from api_support import ApiClient, assert_error
from site_support import drain

from games.models import Match, Orders, Resolution


def _create(api: ApiClient, body: dict[str, Any]) -> dict[str, Any]:
    response = api.post_json("/matches/", body)
    assert response.status_code == 201, response.content[:300]
    return dict(response.json())


@pytest.fixture
def rps(api: ApiClient, api_opponent: ApiClient) -> Match:
    created = _create(api, {"ruleset": "rps", "seats": 2, "options": {"rounds": 2}})
    assert api_opponent.post_json(f"/matches/{created['id']}/join/").status_code == 200
    return Match.objects.get(pk=created["id"])


def test_the_create_body_names_the_ruleset_and_its_options(api):
    body = _create(api, {"ruleset": "dig", "seats": 3, "options": {"steps": 2, "width": 12}})
    assert (body["ruleset"], body["options"]) == ("dig", {"steps": 2, "rounds": 4, "width": 12})
    assert [s["number"] for s in body["seats"]] == [1, 2, 3]
    match = Match.objects.get(pk=body["id"])
    assert (match.ruleset, match.options["width"]) == ("dig", 12)


def test_the_default_ruleset_is_helium3_with_its_usual_four_seats(api):
    body = _create(api, {})
    assert (body["ruleset"], body["options"], len(body["seats"])) == (
        "helium3",
        {"length_ms": 600_000},
        4,
    )


@pytest.mark.parametrize(("body", "seats"), [({}, 2), ({"seats": 6}, 6), ({"seats": 5}, 5)])
def test_a_halite_match_has_its_usual_two_seats_unless_asked_up_to_six(api, body, seats):
    created = _create(api, {"ruleset": "halite", **body, "options": {"width": 10, "height": 10}})
    assert (created["ruleset"], len(created["seats"])) == ("halite", seats)


def test_seven_seats_of_halite_are_refused_and_create_nothing(api):
    before = Match.objects.count()
    assert_error(api.post_json("/matches/", {"ruleset": "halite", "seats": 7}), 400)
    assert Match.objects.count() == before


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"ruleset": "chess"}, "bad_shape"),
        ({"ruleset": "rps", "options": {"rounds": 0}}, "bad_option"),
        ({"ruleset": "rps", "options": {"rounds": "3"}}, "bad_option"),
        ({"ruleset": "rps", "options": {"depth": 3}}, "bad_option"),
        ({"ruleset": "rps", "options": {"rounds": [3]}}, "bad_shape"),
        ({"ruleset": "rps", "options": []}, "bad_shape"),
        ({"ruleset": 3}, "bad_shape"),
        ({"ruleset": "rps", "bots": ["miner"]}, "unknown_bot"),
    ],
)
def test_a_bad_ruleset_or_option_is_a_400_and_creates_nothing(api, body, code):
    assert_error(api.post_json("/matches/", body), 400, code)
    assert not Match.objects.exists()


def test_a_simultaneous_turn_through_the_api(api, api_opponent, rps):
    path = f"/matches/{rps.pk}/"
    before = api.get_json(path).json()
    assert (before["awaiting"], before["your_turn"], before["your_orders"]) == ([1, 2], True, None)
    assert before["step"] == 0 and before["scores"] == {"1": 0, "2": 0}
    sent = api.post_json(f"{path}orders/", {"turn": 0, "throw": "rock"})
    assert sent.status_code == 202 and sent.json()["orders"]["throw"] == "rock"
    replaced = api.post_json(f"{path}orders/", {"turn": 0, "throw": "paper"})
    assert replaced.status_code == 202
    assert Orders.objects.filter(match=rps).count() == 1
    mine = api.get_json(path).json()
    assert (mine["your_turn"], mine["your_orders"]["throw"]) == (False, "paper")
    # The other seat sees that seat 1 is still awaited, not what it threw.
    theirs = api_opponent.get_json(path)
    assert theirs.json()["your_orders"] is None and theirs.json()["your_turn"] is True
    assert b"paper" not in theirs.content
    assert b"paper" not in api_opponent.get_json(f"{path}history/").content
    listed = {m["id"]: m["your_turn"] for m in api.get_json("/matches/").json()}
    assert listed[rps.pk] is False
    assert api_opponent.post_json(f"{path}orders/", {"turn": 0, "throw": "rock"}).status_code == 202
    assert_error(api.post_json(f"{path}orders/", {"turn": 0, "throw": "rock"}), 409)
    drain(rps)
    after = api_opponent.get_json(path).json()
    assert after["state"]["last"] == {"1": "paper", "2": "rock"}
    assert after["scores"] == {"1": 1, "2": 0} and after["your_orders"] is None


def test_illegal_orders_of_another_game_answer_its_engines_error(api, rps):
    response = api.post_json(f"/matches/{rps.pk}/orders/", {"turn": 0, "throw": "lizard"})
    assert_error(response, 400, "bad_shape")
    assert not Orders.objects.exists()


def test_a_turn_of_steps_through_the_api_needs_step_no_and_knows_a_repeat(api, api_opponent):
    created = _create(api, {"ruleset": "dig", "seats": 2, "options": {"steps": 3}})
    api_opponent.post_json(f"/matches/{created['id']}/join/")
    path = f"/matches/{created['id']}/"
    assert_error(api.post_json(f"{path}orders/", {"turn": 0, "action": "scan"}), 400, "bad_shape")
    first = api.post_json(f"{path}orders/", {"turn": 0, "step_no": 0, "action": "scan"})
    assert first.status_code == 202 and first.json()["step"] == 0
    again = api.post_json(f"{path}orders/", {"turn": 0, "step_no": 0, "action": "scan"})
    assert again.status_code == 202 and again.json() == first.json()
    assert_error(
        api.post_json(f"{path}orders/", {"turn": 0, "step_no": 0, "action": "dig"}),
        409,
        "stale_turn",
    )
    # Resolved in the request: the scan is in the caller's state, not in the other's.
    mine = api.get_json(path).json()
    assert mine["step"] == 1 and len(mine["state"]["scans"]["1"]) == 1
    assert mine["last_events"][0]["near"] == mine["state"]["scans"]["1"][0][1]
    assert [(t["turn"], t["seat"]) for t in api.get_json(f"{path}history/").json()["turns"]] == [
        (0, 1)
    ]
    # The other seat learns of the turn only once it has ended, not of its steps.
    theirs = api_opponent.get_json(path).json()
    assert "1" not in theirs["state"]["scans"] and theirs["last_events"] == []
    assert theirs["step"] == 0
    assert api_opponent.get_json(f"{path}history/").json()["turns"] == []
    assert Resolution.objects.filter(match_id=created["id"]).count() == 1
