"""The ratings through the bot API: two tokens play a rated match to its end and read
their new ratings (the match body's rating_change, /players/<name>/); the
leaderboard ranks settled, recent ratings by mu - 3 sigma, filters by kind and
limits; every bad input is a 4xx error object with a code."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from api_support import ApiClient, assert_error
from django.utils import timezone
from game_factories import UserFactory
from openskill.models import PlackettLuce
from site_support import drain

from games.compete.models import Kind, Rating

pytestmark = pytest.mark.django_db


def _play_rps(api: ApiClient, api_opponent: ApiClient, **create: Any) -> dict[str, Any]:
    body = {"ruleset": "rps", "seats": 2, "options": {"rounds": 1}, **create}
    created = api.post_json("/matches/", body)
    assert created.status_code == 201, created.content
    path = f"/matches/{created.json()['id']}/"
    assert api_opponent.post_json(f"{path}join/").status_code == 200
    assert api.post_json(f"{path}orders/", {"turn": 0, "throw": "paper"}).status_code == 202
    assert api_opponent.post_json(f"{path}orders/", {"turn": 0, "throw": "rock"}).status_code == 202
    drain()
    over = api.get_json(path)
    assert over.status_code == 200 and over.json()["status"] == "finished"
    return over.json()


def test_two_tokens_play_a_rated_match_and_read_their_new_ratings(api, api_opponent):
    body = _play_rps(api, api_opponent)
    model = PlackettLuce()
    [[won], [lost]] = model.rate([[model.rating()], [model.rating()]], ranks=[1, 2])
    assert body["rated"] is True
    change = {s["player"]: s["rating_change"] for s in body["seats"]}
    assert change["alice"] == {
        "mu_before": 25.0,
        "mu_after": won.mu,
        "sigma_before": 25 / 3,
        "sigma_after": won.sigma,
        "rating_before": 1500,
        "rating_after": round(1500 + 40 * (won.mu - 25)),
    }
    assert change["bob"]["mu_after"] == lost.mu and change["bob"]["rating_after"] < 1500
    mine = api.get_json("/players/alice/")
    assert mine.status_code == 200
    assert mine.json() == {
        "player": "alice",
        "ratings": [
            {
                "game": "rps",
                "rank": None,  # provisional: not on the leaderboard yet
                "rating": change["alice"]["rating_after"],
                "mu": won.mu,
                "sigma": won.sigma,
                "matches": 1,
                "provisional": True,
            }
        ],
    }
    theirs = api.get_json("/players/bob/").json()["ratings"][0]
    assert (theirs["mu"], theirs["sigma"]) == (lost.mu, lost.sigma)
    # Both played through tokens: API bots.
    assert set(Rating.objects.values_list("kind", flat=True)) == {Kind.API_BOT}


def test_a_casual_match_body_says_so_and_changes_nothing(api, api_opponent):
    body = _play_rps(api, api_opponent, rated=False)
    assert body["rated"] is False
    assert [s["rating_change"] for s in body["seats"]] == [None, None]
    assert api.get_json("/players/alice/").json() == {"player": "alice", "ratings": []}


def test_a_running_match_has_no_rating_change_yet(api, api_opponent):
    created = api.post_json("/matches/", {"ruleset": "rps", "seats": 2}).json()
    assert created["rated"] is True
    assert [s["rating_change"] for s in created["seats"]] == [None, None]
    against_bot = api.post_json("/matches/", {"ruleset": "rps", "seats": 2, "bots": ["rock"]})
    assert against_bot.json()["rated"] is False


def _rating(game: str, name: str, mu: float, sigma: float, **kw: Any) -> Rating:
    fields: dict[str, Any] = {"kind": Kind.PERSON, "matches": 10,
                              "last_played_at": timezone.now(), **kw}  # fmt: skip
    if name.startswith("bot:"):
        fields.update(bot=name[4:], kind=Kind.BUILTIN_BOT)
    else:
        fields["user"] = UserFactory(username=name)
    return Rating.objects.create(
        game=game, mu=mu, sigma=sigma, conservative=mu - 3 * sigma, **fields
    )


def test_the_leaderboard_ranks_settled_recent_ratings_by_mu_minus_three_sigma(api):
    _rating("rps", "steady", 30.0, 2.0)  # 24
    _rating("rps", "lucky", 34.0, 4.0)  # 22
    _rating("rps", "bot:rock", 28.0, 1.0)  # 25
    _rating("rps", "robo", 27.0, 3.0, kind=Kind.API_BOT)  # 18
    _rating("rps", "newcomer", 40.0, 5.0)  # provisional
    _rating("rps", "gone", 40.0, 1.0, last_played_at=timezone.now() - timedelta(days=91))
    _rating("nim", "other_game", 40.0, 1.0)
    rows = api.get_json("/ratings/rps/").json()
    assert [(r["rank"], r["player"], r["kind"]) for r in rows] == [
        (1, "bot:rock", "builtin_bot"),
        (2, "steady", "person"),
        (3, "lucky", "person"),
        (4, "robo", "api_bot"),
    ]
    assert rows[1] == {"rank": 2, "player": "steady", "kind": "person", "rating": 1700,
                       "mu": 30.0, "sigma": 2.0, "matches": 10, "provisional": False}  # fmt: skip
    people = api.get_json("/ratings/rps/?kind=person&limit=1").json()
    assert [(r["rank"], r["player"]) for r in people] == [(1, "steady")]
    bots = api.get_json("/ratings/rps/?kind=api_bot").json()
    assert [(r["rank"], r["player"]) for r in bots] == [(1, "robo")]
    assert api.get_json("/players/lucky/").json()["ratings"][0]["rank"] == 3
    assert api.get_json("/players/bot:rock/").json()["ratings"][0]["rank"] == 1
    assert api.get_json("/players/gone/").json()["ratings"][0]["rank"] is None


@pytest.mark.parametrize(
    ("path", "status", "code"),
    [
        ("/ratings/chess/", 404, "unknown_game"),
        ("/ratings/rps/?kind=martian", 400, "bad_shape"),
        ("/ratings/rps/?limit=0", 400, "bad_shape"),
        ("/ratings/rps/?limit=many", 400, "bad_shape"),
        ("/ratings/rps/?limt=5", 400, "bad_shape"),
        ("/players/nobody/", 404, "unknown_player"),
        ("/players/bot:skynet/", 404, "unknown_player"),
        ("/players/bot:rock/?games=all", 400, "bad_shape"),
        ("/ratings/rps", 404, "not_found"),
    ],
)
def test_bad_input_to_the_ratings_endpoints_is_an_error_with_a_code(api, path, status, code):
    assert_error(api.get_json(path), status, code)


def test_the_ratings_need_a_token():
    assert_error(ApiClient(None).get_json("/ratings/rps/"), 401, "unauthorized")


@pytest.mark.parametrize("rated", ["yes", 1, [True]])
def test_a_create_body_with_a_bad_rated_is_refused(api, rated):
    body = {"ruleset": "rps", "seats": 2, "rated": rated}
    assert_error(api.post_json("/matches/", body), 400, "bad_shape")


def test_the_openapi_description_has_the_ratings_and_the_match_bodys_rating_fields(api):
    spec = api.get("/api/v1/openapi.json").json()
    board = spec["paths"]["/api/v1/ratings/{game}/"]["get"]
    assert {"200", "400", "401", "404"} <= set(board["responses"])
    assert {p["name"] for p in board["parameters"]} >= {"game", "kind", "limit"}
    assert {"200", "401", "404"} <= set(
        spec["paths"]["/api/v1/players/{username}/"]["get"]["responses"]
    )
    schemas = spec["components"]["schemas"]
    assert set(schemas["LeaderboardRow"]["properties"]) == {
        "rank", "player", "kind", "rating", "mu", "sigma", "matches", "provisional"
    }  # fmt: skip
    assert set(schemas["LeaderboardRow"]["properties"]["kind"]["enum"]) == {
        "person", "api_bot", "builtin_bot"
    }  # fmt: skip
    assert "rated" in schemas["MatchOut"]["properties"]
    assert "rating_change" in schemas["SeatOut"]["properties"]
    assert set(schemas["RatingChangeOut"]["properties"]) == {
        "mu_before", "mu_after", "sigma_before", "sigma_after", "rating_before", "rating_after"
    }  # fmt: skip
