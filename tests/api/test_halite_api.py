"""A whole Halite match of 100 turns played through the bot API by two programs, each
its own process with its own token and seat, waiting on the event stream and
posting the orders the engine's grower gives on its view; the site served by uvicorn
(helium3_site.asgi) and the turns resolved by a real Celery worker. It takes under
a minute and never meets the rate limit (120 requests a minute per token): one
stream and one post a turn per program, no polling."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from api_support import ApiClient, token_for
from stream_support import asgi_server

import engine
from games import services
from games.models import Match, Orders, Resolution

pytestmark = [pytest.mark.worker, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]
CLIENT = Path(__file__).resolve().parent / "halite_stream_client.py"
OPTIONS = {"width": 10, "height": 10}  # at most floor(10 * sqrt(100)) = 100 turns
BOT = "grower"


def offline(seed: int) -> dict[str, Any]:
    """The match the two programs will play, played by the engine alone: the grower
    for both seats on each seat's view."""
    state = engine.new_game(ruleset="halite", seed=seed, seats=2, options=OPTIONS)
    while not state["over"]:
        orders = [
            engine.bot_orders(BOT, engine.view(state, seat), seat)
            for seat in engine.awaiting(state)
        ]
        state = engine.apply(state, orders).state
    return state


def full_length_seed() -> tuple[int, dict[str, Any]]:
    """The first seed whose match lasts all 100 turns (a grower may wipe the other
    out sooner on some maps); found by playing, so it holds whatever the bot plays."""
    for seed in range(200):
        final = offline(seed)
        if final["turn"] == final["max_turns"] == 100:
            return seed, final
    raise AssertionError("no seed of 200 gives a 100-turn match")


@pytest.fixture
def base() -> Iterator[str]:
    with asgi_server() as url:
        yield url


def test_two_programs_play_a_100_turn_halite_match_on_the_stream_in_under_a_minute(
    celery_worker, base, player, opponent, monkeypatch, settings
):
    assert settings.API_RATE_LIMIT == 120 and settings.API_RATE_WINDOW_SECONDS == 60
    seed, expected = full_length_seed()
    monkeypatch.setattr(services.matches.secrets, "randbelow", lambda _n: seed)
    created = ApiClient(token_for(player, "lobby")).post_json(
        "/matches/", {"ruleset": "halite", "seats": 2, "options": OPTIONS}
    )
    assert created.status_code == 201, created.content[:300]
    match_id = created.json()["id"]
    joined = ApiClient(token_for(opponent, "lobby")).post_json(f"/matches/{match_id}/join/")
    assert joined.status_code == 200 and joined.json()["status"] == "running"

    started = time.monotonic()
    programs = [
        subprocess.Popen(
            [sys.executable, str(CLIENT), base, token_for(who, "halite bot"), str(match_id), BOT],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for who in (player, opponent)
    ]
    reports = []
    for program in programs:
        try:
            out, err = program.communicate(timeout=120)
        finally:
            program.kill()
        assert program.returncode == 0, err[-3000:]
        reports.append(json.loads(out))
    elapsed = time.monotonic() - started

    assert elapsed < 60, f"the match took {elapsed:.1f} s"
    match = Match.objects.get(pk=match_id)
    assert match.status == Match.Status.FINISHED and match.state is not None
    # The programs played exactly the engine's match: every turn, both seats.
    assert match.state == expected and match.state["turn"] == 100
    assert sorted(r["seat"] for r in reports) == [1, 2]
    for report in reports:
        assert report["rate_limited"] == 0
        assert report["played"] == list(range(100))
        assert report["requests"] == 101  # the stream, then one post a turn
        assert report["final"]["status"] == "finished"
        assert report["final"]["winners"] == expected["winners"] == match.winners
    assert Resolution.objects.filter(match=match).count() == 100
    rows = Orders.objects.filter(match=match)
    assert rows.count() == 200 and {o.source for o in rows} == {Orders.Source.PLAYER}
    print(f"\n100-turn Halite match over the stream: {elapsed:.1f} s")
