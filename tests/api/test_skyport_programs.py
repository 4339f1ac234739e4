"""A whole Skyport match played through the bot API by two programs, each its own
process with its own token and seat (tests/api/halite_stream_client.py: it waits on
the event stream and sends the orders a built-in bot of the engine gives on its
view, for any game): the loadouts at once, then the turns one seat at a time; the
site served by uvicorn and the turns resolved by a real Celery worker."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from stream_support import asgi_server, engine_match, programs_play

from games import services
from games.models import Match, Orders

pytestmark = [pytest.mark.worker, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

OPTIONS = {"rounds": 5}
SEED = 11
BOTS = {1: "prospector", 2: "random"}


@pytest.fixture
def base() -> Iterator[str]:
    with asgi_server() as url:
        yield url


def test_two_programs_play_a_whole_skyport_match_on_the_stream(
    celery_worker, base, player, opponent, monkeypatch
):
    expected = engine_match("skyport", SEED, OPTIONS, BOTS)
    monkeypatch.setattr(services.matches.secrets, "randbelow", lambda _n: SEED)
    match_id, reports = programs_play(
        base, "skyport", OPTIONS, {1: player, 2: opponent}, BOTS, timeout=120
    )

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
