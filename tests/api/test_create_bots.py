"""Creating a match through the API: a bot of another game is named with its game and
this game's bots; more bots than seats is a 400 and creates nothing."""

from __future__ import annotations

from typing import Any

import pytest

from games.models import Match


@pytest.mark.parametrize(
    ("game", "bot", "message"),
    [
        ("halite", "hunter", "hunter is a robot arena bot; Halite's bots are random and grower."),
        (
            "arena",
            "prospector",
            "prospector is a Helium 3 remake and Skyport bot; "
            "robot arena's bots are random and hunter.",
        ),
        (
            "skyport",
            "grower",
            "grower is a Halite bot; Skyport's bots are random and prospector.",
        ),
    ],
)
def test_another_games_bot_through_the_api_names_its_game_and_this_games_bots(
    api, game, bot, message
):
    response = api.post_json("/matches/", {"ruleset": game, "seats": 2, "bots": [bot]})
    assert response.status_code == 400
    assert response.json()["error"] == {"code": "unknown_bot", "message": message}
    assert not Match.objects.exists()


def test_more_bots_than_seats_through_the_api_is_a_400(api):
    body: dict[str, Any] = {"ruleset": "halite", "seats": 2, "bots": ["grower"] * 3}
    response = api.post_json("/matches/", body)
    assert response.status_code == 400 and response.json()["error"]["code"] == "bad_bots"
    assert not Match.objects.exists()
