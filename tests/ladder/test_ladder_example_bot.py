"""examples/bot.py --ladder as its own process against a live server, the real
worker and a real celery beat running the ladder's tasks: it puts itself on the
Helium 3 ladder, plays the ladder match the matchmaker starts for it to the end
through the event stream, and takes itself off."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from api_support import token_for

from games.compete.models import Kind, Rating
from games.ladder.models import LadderEntry
from games.models import Match, Orders, Seat

pytestmark = [pytest.mark.worker, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

BOT = Path(__file__).resolve().parents[2] / "examples" / "bot.py"


def test_the_example_bot_joins_the_ladder_and_plays_its_match(
    celery_worker: Any, live_server: Any, ladder_beat: None, player: Any, settings: Any
) -> None:
    settings.API_RATE_LIMIT = 100_000
    env = {**os.environ, "HELIUM3_TOKEN": token_for(player, "ladder bot")}
    result = subprocess.run(
        [sys.executable, str(BOT), "--url", live_server.url, "--ladder", "--matches", "1",
         "--ladder-off", "--poll", "0.1", "--max-seconds", "240"],
        env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    assert summary["ladder"] == "helium3" and summary["on"] is False
    assert len(summary["matches"]) == 1
    played = summary["matches"][0]
    assert played["status"] == "finished"
    match = Match.objects.get(pk=played["match"])
    assert match.ladder.game == "helium3" and match.rated and match.created_by is None
    seat = Seat.objects.get(match=match, user=player)
    assert seat.api and seat.number == played["seat"]
    mine = Orders.objects.filter(match=match, seat=seat.number)
    assert mine.filter(source=Orders.Source.PLAYER).exists()
    assert Rating.objects.get(game="helium3", user=player).kind == Kind.API_BOT
    assert not LadderEntry.objects.get(user=player, game="helium3").on
