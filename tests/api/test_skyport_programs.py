"""A whole Skyport match played through the bot API by two programs, each its own
process with its own token and seat (tests/api/halite_stream_client.py: it waits on
the event stream and sends the orders a built-in bot of the engine gives on its
view, for any game): the loadouts at once, then the turns one seat at a time; the
site served by uvicorn and the turns resolved by a real Celery worker."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from api_support import ApiClient, token_for
from stream_support import asgi_server

import engine
from games import services
from games.models import Match, Orders

pytestmark = [pytest.mark.worker, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]
CLIENT = Path(__file__).resolve().parent / "halite_stream_client.py"
OPTIONS = {"rounds": 5}
SEED = 11
BOTS = {1: "prospector", 2: "random"}


def offline() -> dict[str, Any]:
    """The match the programs will play, played by the engine alone on each seat's view."""
    state = engine.new_game(ruleset="skyport", seed=SEED, seats=2, options=OPTIONS)
    while not state["over"]:
        orders = [
            engine.bot_orders(BOTS[seat], engine.view(state, seat), seat)
            for seat in engine.awaiting(state)
        ]
        state = engine.apply(state, orders if len(orders) > 1 else orders[0]).state
    return state


@pytest.fixture
def base() -> Iterator[str]:
    with asgi_server() as url:
        yield url


def test_two_programs_play_a_whole_skyport_match_on_the_stream(
    celery_worker, base, player, opponent, monkeypatch
):
    expected = offline()
    monkeypatch.setattr(services.matches.secrets, "randbelow", lambda _n: SEED)
    created = ApiClient(token_for(player, "lobby")).post_json(
        "/matches/", {"ruleset": "skyport", "seats": 2, "options": OPTIONS}
    )
    assert created.status_code == 201, created.content[:300]
    match_id = created.json()["id"]
    joined = ApiClient(token_for(opponent, "lobby")).post_json(f"/matches/{match_id}/join/")
    assert joined.status_code == 200 and joined.json()["status"] == "running"

    programs = {
        seat: subprocess.Popen(
            [sys.executable, str(CLIENT), base, token_for(who, "bot"), str(match_id), BOTS[seat]],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for seat, who in ((1, player), (2, opponent))
    }
    reports = {}
    for seat, program in programs.items():
        try:
            out, err = program.communicate(timeout=120)
        finally:
            program.kill()
        assert program.returncode == 0, err[-3000:]
        reports[seat] = json.loads(out)

    match = Match.objects.get(pk=match_id)
    assert match.status == Match.Status.FINISHED
    assert match.state == expected
    for seat, report in reports.items():
        assert report["seat"] == seat and report["rate_limited"] == 0
        assert report["played"][0] == 0  # the loadout, chosen at once
        assert report["final"]["winners"] == expected["winners"] == match.winners
    rows = Orders.objects.filter(match=match)
    assert {o.source for o in rows} == {Orders.Source.PLAYER}
    assert rows.filter(turn_number=0).count() == 2  # both loadouts in turn 0
