"""The robot arena through the bot API: two programs play a whole two-seat match,
each its own process with its own token and seat on the event stream
(tests/api/halite_stream_client.py: on each `your_turn` it sends what a built-in bot
of the engine gives on its view, a build at once and then one step at a time with
its `step_no`), the site served by uvicorn and the builds resolved by a real Celery
worker; and the API's answers to builds and steps the rules refuse."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from api_support import ApiClient, assert_error
from site_support import drain
from stream_support import asgi_server, engine_match, programs_play

from games import services
from games.models import Match, Orders, Resolution

OPTIONS = {"rounds": 10}
SEED = 5
BOTS = {1: "hunter", 2: "random"}


@pytest.fixture
def base() -> Iterator[str]:
    with asgi_server() as url:
        yield url


@pytest.mark.worker
@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_two_programs_play_a_whole_arena_match_on_the_stream(
    celery_worker, base, player, opponent, monkeypatch
):
    expected = engine_match("arena", SEED, OPTIONS, BOTS)
    monkeypatch.setattr(services.matches.secrets, "randbelow", lambda _n: SEED)
    match_id, reports = programs_play(base, "arena", OPTIONS, {1: player, 2: opponent}, BOTS)

    match = Match.objects.get(pk=match_id)
    assert match.status == Match.Status.FINISHED
    assert match.state == expected
    for seat, report in reports.items():
        assert report["seat"] == seat and report["rate_limited"] == 0
        assert report["played"][0] == 0  # the build, at once
        assert report["final"]["winners"] == expected["winners"] == match.winners
    rows = Orders.objects.filter(match=match)
    assert {o.source for o in rows} == {Orders.Source.PLAYER}
    assert rows.filter(turn_number=0).count() == 2  # both builds in turn 0
    # Every step its own resolution: more of them than turns.
    assert Resolution.objects.filter(match=match).count() > match.turn_number


# --- refusals ----------------------------------------------------------------------------


@pytest.fixture
def duel(api: ApiClient, api_opponent: ApiClient) -> int:
    created = api.post_json("/matches/", {"ruleset": "arena", "seats": 2, "options": OPTIONS})
    assert created.status_code == 201, created.content[:300]
    match_id = int(created.json()["id"])
    assert api_opponent.post_json(f"/matches/{match_id}/join/").status_code == 200
    return match_id


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("build", "code"),
    [
        (["engine3", "radar3"], "bad_build"),
        (["engine1", "engine2"], "bad_build"),
        (["rocket"], "bad_build"),
        ("gun", "bad_shape"),
    ],
)
def test_a_build_the_rules_refuse_is_a_400_and_stores_nothing(api, duel, build, code):
    response = api.post_json(f"/matches/{duel}/orders/", {"turn": 0, "build": build})
    error = assert_error(response, 400)
    assert error["code"] in (code, "bad_shape") and error["message"]
    assert not Orders.objects.filter(match_id=duel).exists()


@pytest.mark.django_db
def test_steps_through_the_api_need_step_no_and_illegal_ones_are_refused(api, api_opponent, duel):
    path = f"/matches/{duel}/"
    assert (
        api.post_json(
            f"{path}orders/", {"turn": 0, "build": ["engine1", "radar1", "gun"]}
        ).status_code
        == 202
    )
    body = {"turn": 0, "build": ["engine2", "radar2"]}
    assert api_opponent.post_json(f"{path}orders/", body).status_code == 202
    drain(Match.objects.get(pk=duel), emails=False)
    state = api.get_json(path).json()
    assert state["state"]["phase"] == "play" and state["your_turn"] is True
    turn = state["state"]["turn"]
    assert_error(
        api.post_json(f"{path}orders/", {"turn": turn, "step": {"type": "scan"}}), 400, "bad_shape"
    )
    for step, code in (
        ({"type": "move", "path": ["up"]}, "off_board"),
        ({"type": "move", "path": ["right", "right", "right"]}, "illegal_step"),
        ({"type": "shoot", "target": [9, 9]}, "out_of_range"),
        ({"type": "fly"}, "bad_shape"),
    ):
        sent = {"turn": turn, "step_no": 0, "step": step}
        error = assert_error(api.post_json(f"{path}orders/", sent), 400)
        assert error["code"] in (code, "illegal_step", "blocked"), (step, error)
    assert not Resolution.objects.filter(match_id=duel, turn_number=turn).exists()
    # Not seat 2's turn; then seat 1's scan, resolved before the answer.
    wrong = {"turn": turn, "step_no": 0, "step": {"type": "scan"}}
    assert api_opponent.post_json(f"{path}orders/", wrong).status_code == 409
    first = api.post_json(f"{path}orders/", wrong)
    assert first.status_code == 202 and first.json()["step"] == 0
    mine = api.get_json(path).json()
    assert mine["step"] == 1 and mine["state"]["knowledge"]["1"]
    theirs = api_opponent.get_json(path).json()
    assert "1" not in theirs["state"]["knowledge"] and theirs["step"] == 0
    # The last turn seat 2 knows of is the build: seat 1's turn shows once it ends.
    assert [e["type"] for e in theirs["last_events"]] == ["built"]
    stale = {"turn": turn, "step_no": 0, "step": {"type": "end"}}
    assert_error(api.post_json(f"{path}orders/", stale), 409, "stale_turn")
