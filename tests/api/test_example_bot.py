"""examples/bot.py, end to end: run as its own process against a live server, with
the real Celery worker resolving the turns, it creates a match against built-in
bots and plays it through the API to the end."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from api_support import token_for

from games.models import Match, Notification, Orders, Seat

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

BOT = Path(__file__).resolve().parent.parent.parent / "examples" / "bot.py"


def test_the_example_bot_plays_a_whole_match_through_the_api(
    celery_worker: Any, live_server: Any, player: Any, settings: Any
) -> None:
    settings.API_RATE_LIMIT = 10_000  # the bot polls; the limit has its own tests
    token = token_for(player, "example bot")
    env = {**os.environ, "HELIUM3_TOKEN": token}
    result = subprocess.run(
        [
            sys.executable,
            str(BOT),
            "--url",
            live_server.url,
            "--seats",
            "4",
            "--bots",
            "random,miner,random",
            "--length-ms",
            "60000",
            "--poll",
            "0.1",
            "--max-seconds",
            "150",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    match = Match.objects.get(pk=summary["match"])
    assert match.status == Match.Status.FINISHED
    assert summary["status"] == "finished" and summary["seat"] == 1
    assert summary["winners"] == match.winners
    assert summary["replay_turns"] == len(match.record["turns"]) == match.state["turn"]
    # Every turn of seat 1 was the bot's own orders, taken through the API.
    mine = Orders.objects.filter(match=match, seat=1)
    assert mine.exists() and {o.source for o in mine} == {Orders.Source.PLAYER}
    assert any(a["type"] == "mine" for o in mine for a in o.orders["actions"])
    seat = Seat.objects.get(match=match, number=1)
    assert seat.user == player and seat.api and seat.counts and seat.counts["mined"] > 0
    assert not Notification.objects.filter(user=player).exists()
