"""Tokens, access and rate limits: a bad token gets 401, a token acts only for its
own user's seats, a private match is its players' (and staff's), and a token that
asks too fast gets 429 with Retry-After."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from api_support import ApiClient, assert_error, token_for
from game_factories import UserFactory

from games import services
from games.api.ratelimit import RateLimited, rate_limit_hit
from games.models import ApiToken, Match, Orders
from games.services.tokens import token_revoke

REPO = Path(__file__).resolve().parent.parent.parent
PATHS = [
    ("get", "/matches/"),
    ("post", "/matches/"),
    ("get", "/matches/1/"),
    ("post", "/matches/1/join/"),
    ("post", "/matches/1/reclaim/"),
    ("post", "/matches/1/orders/"),
    ("get", "/matches/1/history/"),
    ("get", "/matches/1/replay/"),
]


@pytest.fixture
def running(player: Any, opponent: Any) -> Match:
    match = services.match_create(creator=player, seat_count=2, turn_seconds=3600)
    services.seat_join(match_id=match.pk, user=opponent)
    match.refresh_from_db()
    return match


@pytest.mark.parametrize(
    "header",
    [
        None,
        "",
        "Bearer",
        "Bearer nonsense",
        "Basic YWxpY2U6cGFzc3dvcmQ=",
        "Bearer h3_aaaaaaaaaa_" + "A" * 43,
        "Bearer h3_aaaaaaaaaa_" + "A" * 43 + "\x00",
        "Token h3_aaaaaaaaaa_" + "A" * 43,
    ],
)
@pytest.mark.parametrize(("method", "path"), PATHS)
def test_no_or_a_bad_token_answers_401_on_every_operation(db, running, header, method, path):
    headers = {} if header is None else {"Authorization": header}
    client = ApiClient(None, headers=headers)
    response = getattr(client, method)("/api/v1" + path, content_type="application/json")
    assert_error(response, 401, "unauthorized")
    assert response["WWW-Authenticate"].startswith("Bearer")
    assert not Orders.objects.exists()


def test_a_revoked_token_answers_401_and_another_token_of_the_user_still_works(player):
    first = token_for(player, "first")
    second = token_for(player, "second")
    token_revoke(user=player, token_id=ApiToken.objects.get(name="first").pk)
    assert_error(ApiClient(first).get_json("/matches/"), 401)
    assert ApiClient(second).get_json("/matches/").status_code == 200


def test_a_token_of_a_deactivated_user_answers_401(player):
    token = token_for(player)
    player.is_active = False
    player.save()
    assert_error(ApiClient(token).get_json("/matches/"), 401)


def test_a_token_with_one_wrong_character_answers_401(player):
    token = token_for(player)
    wrong = token[:-1] + ("A" if token[-1] != "A" else "B")
    assert_error(ApiClient(wrong).get_json("/matches/"), 401)


def test_a_token_acts_only_for_its_own_users_seat(api, api_opponent, running, player, opponent):
    # Seat 1 (the player's) is to move: the opponent's token cannot move it,
    # neither by naming seat 1 nor by leaving the seat out.
    assert_error(
        api_opponent.post_json(
            f"/matches/{running.pk}/orders/", {"seat": 1, "turn": 0, "actions": []}
        ),
        403,
        "not_your_seat",
    )
    assert_error(
        api_opponent.post_json(f"/matches/{running.pk}/orders/", {"turn": 0, "actions": []}),
        409,
        "not_your_turn",
    )
    assert not Orders.objects.exists()
    response = api.post_json(f"/matches/{running.pk}/orders/", {"turn": 0, "actions": []})
    assert response.status_code == 202
    assert Orders.objects.get().submitted_by == player


@pytest.fixture
def private_running(player: Any, opponent: Any) -> Match:
    match = services.match_create(creator=player, seat_count=2, turn_seconds=3600, public=False)
    services.seat_join(match_id=match.pk, user=opponent)
    match.refresh_from_db()
    return match


@pytest.mark.parametrize(
    ("who", "status"),
    [("player", 200), ("opponent", 200), ("spectator", 403), ("staff", 200)],
)
@pytest.mark.parametrize("path", ["/", "/history/", "/orders/"])
def test_a_private_match_is_seen_by_its_players_and_staff_only(
    private_running, api, api_opponent, api_spectator, who, status, path
):
    staff = UserFactory(username="root", is_staff=True)
    client = {
        "player": api,
        "opponent": api_opponent,
        "spectator": api_spectator,
        "staff": ApiClient(token_for(staff)),
    }[who]
    url = f"/matches/{private_running.pk}{path}"
    if path == "/orders/":
        # Only a player may send orders; everybody else is refused with 403.
        response = client.post_json(url, {"turn": 0, "actions": []})
        expected = {"player": 202, "opponent": 409}.get(who, 403)
        assert response.status_code == expected
        return
    response = client.get_json(url)
    if status == 403:
        assert_error(response, 403, "private_match")
        return
    assert response.status_code == 200
    if path == "/":
        assert response.json()["seat"] == {"player": 1, "opponent": 3}.get(who)


def test_a_public_match_is_watched_by_any_token_as_a_spectator(running, api_spectator):
    body = api_spectator.get_json(f"/matches/{running.pk}/").json()
    assert body["seat"] is None and body["state"]["viewer"] is None
    assert all("shield" not in r for r in body["state"]["robots"])


def test_a_private_open_match_is_joined_by_its_id(player, api_spectator):
    match = services.match_create(creator=player, seat_count=2, public=False)
    response = api_spectator.post_json(f"/matches/{match.pk}/join/")
    assert response.status_code == 200 and response.json()["seat"] == 3
    assert response.json()["status"] == "running"


@pytest.fixture
def mid_window(monkeypatch: pytest.MonkeyPatch) -> float:
    """The rate limiter's clock stopped 20 s into a 60 s window (they start at
    1_000_020), so that no window boundary falls between a test's requests."""
    now = 1_000_040.0
    monkeypatch.setattr("games.api.ratelimit.time.time", lambda: now)
    return now


def test_a_token_making_too_many_requests_gets_429_with_retry_after(
    api, api_opponent, settings, mid_window
):
    settings.API_RATE_LIMIT = 5
    settings.API_RATE_WINDOW_SECONDS = 60
    answers = [api.get_json("/matches/").status_code for _ in range(5)]
    assert answers == [200] * 5
    refused = api.get_json("/matches/")
    assert_error(refused, 429, "rate_limited")
    assert refused["Retry-After"] == "40"  # until the window ends
    # Posting is refused too, and changes nothing.
    assert_error(api.post_json("/matches/", {"seats": 2}), 429)
    assert not Match.objects.exists()
    # Another token has its own budget.
    assert api_opponent.get_json("/matches/").status_code == 200


def test_two_tokens_of_one_user_have_separate_budgets(player, settings, mid_window):
    settings.API_RATE_LIMIT = 2
    first, second = ApiClient(token_for(player, "a")), ApiClient(token_for(player, "b"))
    assert [first.get_json("/matches/").status_code for _ in range(3)] == [200, 200, 429]
    assert second.get_json("/matches/").status_code == 200


def test_the_limit_opens_again_in_the_next_window(settings):
    settings.API_RATE_LIMIT = 3
    settings.API_RATE_WINDOW_SECONDS = 10
    start = 1_000_000.0  # the start of a window
    for i in range(3):
        rate_limit_hit("t", now=start + i)
    with pytest.raises(RateLimited) as refused:
        rate_limit_hit("t", now=start + 4)
    assert refused.value.retry_after == 6  # until the window ends
    rate_limit_hit("t", now=start + 10)  # a new window


def test_bad_tokens_do_not_spend_a_users_budget(api, settings, mid_window):
    settings.API_RATE_LIMIT = 3
    for _ in range(10):
        assert ApiClient("h3_nope").get_json("/matches/").status_code == 401
    assert api.get_json("/matches/").status_code == 200


_REDIS = os.environ.get("CELERY_BROKER_URL", "")


@pytest.mark.skipif(
    not _REDIS.startswith("redis://"), reason="needs a Redis (CI sets CELERY_BROKER_URL to one)"
)
def test_the_count_is_shared_by_processes_through_a_redis_cache(settings):
    """Production runs several gunicorn processes: with CACHE_URL on Redis they all
    count in one place. Another process spends the budget; this one is refused."""
    url = _REDIS.rsplit("/", 1)[0] + "/14"
    settings.CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": url}
    }
    settings.API_RATE_LIMIT = 4
    settings.API_RATE_WINDOW_SECONDS = 60
    from django.core.cache import caches

    caches["default"].clear()
    key = f"shared-{time.time_ns()}"
    now = 1_000_020.0  # one moment for both processes: no window boundary between them
    script = (
        "import django; django.setup();"
        "from django.conf import settings; settings.API_RATE_LIMIT = 4;"
        "from games.api.ratelimit import rate_limit_hit;"
        f"[rate_limit_hit({key!r}, now={now}) for _ in range(4)]"
    )
    env = {**os.environ, "CACHE_URL": url, "DJANGO_SETTINGS_MODULE": "helium3_site.settings"}
    subprocess.run([sys.executable, "-c", script], cwd=REPO, env=env, check=True, timeout=60)
    with pytest.raises(RateLimited):
        rate_limit_hit(key, now=now)


@pytest.mark.parametrize(
    ("cache_url", "ok"),
    [("", True), ("locmem://", True), ("redis://127.0.0.1:6379/1", True), ("memcached://x", False)],
)
def test_cache_url_is_read_and_a_bad_one_stops_the_process(cache_url, ok):
    script = (
        "import django; django.setup(); from django.conf import settings; "
        "print(settings.CACHES['default']['BACKEND'])"
    )
    env = {**os.environ, "CACHE_URL": cache_url, "DJANGO_SETTINGS_MODULE": "helium3_site.settings"}
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, env=env, capture_output=True, text=True
    )
    assert (result.returncode == 0) == ok, result.stderr[-500:]
    if ok:
        backend = "RedisCache" if cache_url.startswith("redis") else "LocMemCache"
        assert backend in result.stdout
    else:
        assert "CACHE_URL" in result.stderr
