"""examples/bot.py --accept-challenges, end to end: run as its own process against a
live server with the real Celery worker, it hears challenges on the event stream,
declines one to a game it does not play, accepts one to Helium 3 and plays the
match accepting made to its end."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from contextlib import suppress
from pathlib import Path
from typing import Any

import pytest
from api_support import ApiClient, token_for

import engine
from games import services
from games.compete.models import Challenge
from games.errors import ServiceError
from games.models import Match, Orders, Seat

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

BOT = Path(__file__).resolve().parent.parent.parent / "examples" / "bot.py"


def _pass_for(match: Match, user: Any) -> None:
    """The test plays the challenger's seat: a pass whenever it is awaited."""
    seat = Seat.objects.get(match=match, user=user)
    if match.state is None or seat.number not in engine.awaiting(match.state):
        return
    if Orders.objects.filter(match=match, turn_number=match.turn_number, seat=seat.number).exists():
        return
    passing = engine.default_orders(match.state, seat.number)
    with suppress(ServiceError):  # the turn moved on meanwhile: look again
        services.orders_submit(
            match_id=match.pk,
            user=user,
            turn=match.turn_number,
            orders={k: v for k, v in passing.items() if k not in ("seat", "turn")},
        )


def test_the_example_bot_accepts_a_challenge_from_the_stream_and_plays_it(
    celery_worker: Any, live_server: Any, player: Any, opponent: Any, settings: Any
) -> None:
    settings.API_RATE_LIMIT = 10_000
    alice = ApiClient(token_for(player, "challenger"))
    other = alice.post_json(
        "/challenges/", {"to": "bob", "ruleset": "rps", "seats": 2, "options": {"rounds": 1}}
    )
    wanted = alice.post_json(
        "/challenges/",
        {"to": "bob", "ruleset": "helium3", "seats": 2, "options": {"length_ms": 20_000},
         "turn_seconds": 600},
    )  # fmt: skip
    assert other.status_code == wanted.status_code == 201
    bot = subprocess.Popen(
        [sys.executable, str(BOT), "--url", live_server.url, "--accept-challenges",
         "--matches", "1", "--poll", "0.1", "--max-seconds", "150"],
        env={**os.environ, "HELIUM3_TOKEN": token_for(opponent, "example bot")},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 150
        while bot.poll() is None and time.monotonic() < deadline:
            challenge = Challenge.objects.get(pk=wanted.json()["id"])
            if challenge.match_id is not None:
                match = Match.objects.get(pk=challenge.match_id)
                if match.status == Match.Status.RUNNING:
                    _pass_for(match, player)
            time.sleep(0.1)
        out, err = bot.communicate(timeout=30)
    finally:
        bot.kill()
    assert bot.returncode == 0, err[-3000:]
    summary = json.loads(out.strip().splitlines()[-1])
    declined, accepted = other.json()["id"], wanted.json()["id"]
    assert summary["challenges"] == {str(declined): "declined", str(accepted): "accepted"}
    match = Match.objects.get(pk=Challenge.objects.get(pk=accepted).match_id)
    assert match.status == Match.Status.FINISHED and match.rated
    assert summary["matches"] == [
        {"match": match.pk, "status": "finished", "seat": 3, "winners": match.winners}
    ]
    theirs = Orders.objects.filter(match=match, seat=3)
    assert theirs.exists() and {o.source for o in theirs} == {Orders.Source.PLAYER}
    assert Seat.objects.get(match=match, number=3).api  # accepted through the API
    assert Match.objects.count() == 1  # the declined challenge made none
