"""GET and PUT /api/v1/ladder/<game>/ and the tokens page's switch: the body, and
every bad input a 4xx with a code that changes nothing."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from api_support import ApiClient, assert_error, token_for
from site_support import client_for

from games.guests.services import guest_create
from games.ladder import services
from games.ladder.models import LadderEntry

pytestmark = pytest.mark.django_db

GAME = "rps"
PATH = f"/ladder/{GAME}/"


def put(client: ApiClient, body: Any, path: str = PATH, **kwargs: Any) -> Any:
    data = body if isinstance(body, str) else json.dumps(body)
    return client.put("/api/v1" + path, data, content_type="application/json", **kwargs)


def test_a_bot_goes_on_and_off_a_ladder_and_reads_it(player: Any, opponent: Any) -> None:
    bot = ApiClient(token_for(player))
    got = bot.get_json(PATH)
    assert got.status_code == 200
    body = got.json()
    assert body["game"] == GAME and body["on"] is False and body["joined_at"] is None
    # Built-in bots are on every ladder.
    assert {b["player"] for b in body["bots"]} == {"bot:random", "bot:rock"}
    assert all(b["kind"] == "builtin_bot" for b in body["bots"])
    on = put(bot, {"on": True})
    assert on.status_code == 200, on.content
    body = on.json()
    assert body["on"] is True and body["joined_at"] is not None and body["removed_at"] is None
    assert {"player": "alice", "kind": "api_bot", "rating": 1500, "provisional": True,
            "matches": 0, "running": 0} in body["bots"]  # fmt: skip
    # Asking again changes nothing (the count keeps its start).
    again = put(bot, {"on": True}).json()
    assert again["joined_at"] == body["joined_at"]
    # The matchmaker's matches show on it.
    token_for(opponent)
    services.ladder_set(user=opponent, game=GAME, on=True)
    made = services.ladder_round(game=GAME, rng=random.Random(5))
    body = bot.get_json(PATH).json()
    assert body["running"] == 2
    assert [m["id"] for m in body["matches"]] == sorted((m.pk for m in made), reverse=True)
    assert all(m["status"] == "running" and len(m["players"]) >= 2 for m in body["matches"])
    off = put(bot, {"on": False})
    assert off.status_code == 200 and off.json()["on"] is False
    assert not LadderEntry.objects.get(user=player, game=GAME).on
    assert put(bot, {"on": False}).json()["on"] is False


BAD_BODIES = [
    ("", "bad_json"),
    ("{", "bad_json"),
    ("not json", "bad_json"),
    ({}, "bad_shape"),
    ([], "bad_shape"),
    ({"on": "yes"}, "bad_shape"),
    ({"on": 1}, "bad_shape"),
    ({"on": None}, "bad_shape"),
    ({"on": True, "seats": 2}, "bad_shape"),
    ({"off": True}, "bad_shape"),
    ("true", "bad_shape"),
]


@pytest.mark.parametrize(("body", "code"), BAD_BODIES)
def test_a_bad_body_is_refused_and_changes_nothing(player: Any, body: Any, code: str) -> None:
    bot = ApiClient(token_for(player))
    response = put(bot, body)
    assert response.status_code == 400, response.content
    assert_error(response, 400)
    assert not LadderEntry.objects.exists()


def test_bad_paths_methods_queries_and_callers_are_refused(player: Any) -> None:
    bot = ApiClient(token_for(player))
    assert_error(bot.get_json("/ladder/chess/"), 404, "unknown_game")
    assert_error(put(bot, {"on": True}, "/ladder/chess/"), 404, "unknown_game")
    assert_error(put(bot, {"on": True}, "/ladder/" + "x" * 300 + "/"), 404, "unknown_game")
    assert_error(bot.get_json(PATH + "?limit=5"), 400, "bad_shape")
    assert_error(put(bot, {"on": True}, PATH + "?x=1"), 400, "bad_shape")
    assert_error(bot.post_json(PATH, {"on": True}), 405)
    assert_error(bot.delete("/api/v1" + PATH), 405)
    assert_error(ApiClient(None).get_json(PATH), 401, "unauthorized")
    assert_error(put(ApiClient(None), {"on": True}), 401, "unauthorized")
    assert_error(put(ApiClient("h3_nope_nope"), {"on": True}), 401, "unauthorized")
    assert_error(bot.get_json("/ladder/"), 404)
    # A guest plays bots only.
    guest = guest_create()
    assert_error(put(ApiClient(token_for(guest)), {"on": True}), 403, "guests_play_bots_only")
    assert not LadderEntry.objects.exists()


def test_the_openapi_description_has_both_operations(player: Any) -> None:
    spec = ApiClient(token_for(player)).get("/api/v1/openapi.json").json()
    operations = spec["paths"]["/api/v1/ladder/{game}/"]
    assert set(operations) == {"get", "put"}
    assert {"200", "400", "401", "404"} <= set(operations["put"]["responses"])
    schema = operations["put"]["requestBody"]["content"]["application/json"]["schema"]
    assert "on" in json.dumps(spec["components"]["schemas"]) and schema


def test_the_tokens_page_switch(player: Any, opponent: Any, spectator: Any) -> None:
    page = client_for(player)
    # No token: the bot could not play; refused, nothing made.
    refused = page.post("/settings/ladder/helium3/", {"on": "1"}, follow=True)
    assert "Create a token first" in refused.content.decode()
    assert not LadderEntry.objects.exists()
    token_for(player)
    shown = page.get("/settings/tokens/").content.decode()
    assert "Bot ladder" in shown and 'Put on<span class="vh"> the Helium 3 ladder' in shown
    done = page.post("/settings/ladder/helium3/", {"on": "1"}, follow=True)
    assert "Your bot is on the Helium 3 ladder" in done.content.decode()
    assert LadderEntry.objects.get(user=player, game="helium3").on
    assert (
        'Take off<span class="vh"> the Helium 3 ladder'
        in page.get("/settings/tokens/").content.decode()
    )
    # Bad input changes nothing.
    assert page.post("/settings/ladder/chess/", {"on": "1"}).status_code == 404
    bad = page.post("/settings/ladder/helium3/", {"on": "maybe"}, follow=True)
    assert "Choose on or off" in bad.content.decode()
    assert page.get("/settings/ladder/helium3/").status_code == 405
    outsider = client_for(None).post("/settings/ladder/helium3/", {"on": "0"})
    assert outsider.status_code == 302 and "/accounts/login/" in outsider["Location"]
    assert LadderEntry.objects.get(user=player, game="helium3").on
    # Off.
    page.post("/settings/ladder/helium3/", {"on": "0"})
    assert not LadderEntry.objects.get(user=player, game="helium3").on


def test_the_leaderboard_lists_the_ladders_matches_latest_first(
    player: Any, opponent: Any, spectator: Any
) -> None:
    for user in (player, opponent):
        token_for(user)
        services.ladder_set(user=user, game="helium3", on=True)
    made = services.ladder_round(game="helium3", rng=random.Random(2))
    assert made
    html = client_for(spectator).get("/games/helium3/leaderboard/").content.decode()
    assert "Ladder matches" in html
    positions = [html.index(f"/matches/{m.pk}/") for m in made]
    assert positions == sorted(positions, reverse=True)  # newest first
    assert "alice" in html
    # Public: anyone watches them.
    assert client_for(None).get(f"/matches/{made[0].pk}/").status_code == 200
