"""GET /api/v1/stream/ (docs/api-stream.md), served as production serves it: uvicorn
and helium3_site.asgi, in a thread of the test process. Turns are resolved in the
test (site_support.drain) so that each step's events can be awaited one by one."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
from api_support import API, ApiClient, assert_error, token_for
from site_support import drain, wait_for
from stream_support import STREAM, Stream, asgi_server, request

from games import services
from games.models import ApiToken, Match
from games.services.tokens import token_revoke

pytestmark = pytest.mark.django_db(transaction=True)
# games.api is imported inside the tests only: its schemas take the rulesets registered
# when it is first imported, and the test rulesets (rps) are registered after collection.


@pytest.fixture
def base() -> Iterator[str]:
    with asgi_server() as url:
        yield url


@pytest.fixture
def streams() -> Iterator[list[Stream]]:
    """Streams a test opens, closed at its end."""
    from games.api.stream import OPEN_STREAMS

    opened: list[Stream] = []
    yield opened
    for each in opened:
        each.close()
    # The server let go of them all: no thread of a WSGI stream reads the database
    # after the test.
    wait_for(lambda: OPEN_STREAMS.total() == 0, 10, "the server to close the streams")


def open_stream(streams: list[Stream], base: str, token: str) -> Stream:
    opened = Stream(base, token)
    streams.append(opened)
    assert opened.status == 200, opened.response.read()[:300]
    return opened


@pytest.fixture
def duel(api: ApiClient, api_opponent: ApiClient) -> Match:
    """A two-seat Helium 3 match of two API bots: the player's (seat 1, to move) and
    the opponent's (seat 3)."""
    created = api.post_json("/matches/", {"seats": 2, "turn_seconds": 3600})
    assert created.status_code == 201
    assert api_opponent.post_json(f"/matches/{created.json()['id']}/join/").status_code == 200
    return Match.objects.get(pk=created.json()["id"])


def kinds(events: list[dict[str, Any]]) -> list[tuple[str, int | None]]:
    """Each event's type and the turn it is about."""
    return [
        (e["type"], e["turn"] if e["type"] == "turn_resolved" else e["match"]["state"]["turn"])
        for e in events
    ]


# --- refusals ---------------------------------------------------------------------


def _assert_refused(answer: Any, status: int, code: str) -> None:
    assert answer.status == status, answer.body[:300]
    assert answer.headers["content-type"].startswith("application/json")
    assert answer.json() == {"error": {"code": code, "message": answer.json()["error"]["message"]}}


@pytest.mark.parametrize(
    "authorization",
    [None, "Bearer", "Bearer nonsense", "Bearer h3_abcdefgh_wrong", "Token {token}", "{token}"],
)
def test_a_stream_without_a_valid_token_is_a_401_error_object(base, player, authorization):
    token = token_for(player)
    headers = {} if authorization is None else {"Authorization": authorization.format(token=token)}
    answer = request(base, STREAM, token=None, headers=headers)
    _assert_refused(answer, 401, "unauthorized")
    assert answer.headers["www-authenticate"] == 'Bearer realm="helium3"'


def test_a_revoked_token_opens_no_stream(base, player):
    token = token_for(player)
    token_revoke(user=player, token_id=ApiToken.objects.get(user=player).pk)
    _assert_refused(request(base, STREAM, token=token), 401, "unauthorized")


def test_the_stream_takes_a_get_without_parameters(base, player):
    token = token_for(player)
    answer = request(base, STREAM, token=token, method="POST")
    _assert_refused(answer, 405, "method_not_allowed")
    assert answer.headers["allow"] == "GET"
    _assert_refused(request(base, STREAM + "?since=3", token=token), 400, "bad_shape")


def test_a_host_the_site_does_not_serve_is_refused(base, player):
    answer = request(base, STREAM, token=token_for(player), headers={"Host": "evil.example"})
    _assert_refused(answer, 400, "bad_request")


def test_a_stream_counts_as_one_request_against_the_tokens_limit(base, player, settings, streams):
    settings.API_RATE_LIMIT = 3
    token = token_for(player)
    polling = ApiClient(token)
    assert polling.get_json("/matches/").status_code == 200
    assert polling.get_json("/matches/").status_code == 200
    open_stream(streams, base, token)
    answer = request(base, STREAM, token=token)
    _assert_refused(answer, 429, "rate_limited")
    assert int(answer.headers["retry-after"]) >= 1
    assert_error(polling.get_json("/matches/"), 429, "rate_limited")


def test_one_token_holds_a_few_streams_at_most(base, player, streams, monkeypatch):
    monkeypatch.setattr("games.api.stream.STREAMS_PER_TOKEN", 2)
    token = token_for(player)
    first = open_stream(streams, base, token)
    open_stream(streams, base, token)
    _assert_refused(request(base, STREAM, token=token), 429, "too_many_streams")
    first.close()
    # The server lets go of a closed stream when it notices the disconnect.
    for _ in range(50):
        again = Stream(base, token)
        streams.append(again)
        if again.status == 200:
            break
        threading.Event().wait(0.1)
    assert again.status == 200


def test_the_wsgi_view_refuses_the_same_way(player):
    """Under a WSGI server the URL is Django's view (stream.stream_view)."""
    assert_error(ApiClient(None).get(API + "/stream/"), 401, "unauthorized")
    assert_error(ApiClient("h3_x_y").get(API + "/stream/"), 401, "unauthorized")
    assert_error(ApiClient(token_for(player)).post(API + "/stream/"), 405, "method_not_allowed")


# --- events -----------------------------------------------------------------------


def test_a_helium3_match_streams_each_seat_its_own_view(
    base, streams, duel, player, opponent, api, api_opponent
):
    mine = open_stream(streams, base, token_for(player, "stream"))
    theirs = open_stream(streams, base, token_for(opponent, "stream"))
    assert mine.headers["content-type"] == "application/x-ndjson"
    # Connecting: the match waits for the player, who hears it with its view.
    first = mine.next_event()
    assert (first["type"], first["match_id"]) == ("your_turn", duel.pk)
    assert first["match"] == api.get_json(f"/matches/{duel.pk}/").json()
    assert first["match"]["your_turn"] and first["match"]["seat"] == 1
    assert theirs.quiet(0.5) == []

    assert (
        api.post_json(f"/matches/{duel.pk}/orders/", {"turn": 0, "actions": []}).status_code == 202
    )
    drain(duel, emails=False)
    assert kinds(mine.events_until(lambda e: e["type"] == "turn_resolved")) == [
        ("turn_resolved", 0)
    ]
    assert kinds(theirs.events_until(lambda e: e["type"] == "your_turn")) == [
        ("turn_resolved", 0),
        ("your_turn", 1),
    ]

    # The opponent raises a shield with a deflect: its secret.
    shield = [{"robot": "3-1", "type": "shield", "deflect": "N"}]
    sent = api_opponent.post_json(f"/matches/{duel.pk}/orders/", {"turn": 1, "actions": shield})
    assert sent.status_code == 202
    drain(duel, emails=False)
    seen = mine.events_until(lambda e: e["type"] == "your_turn")
    assert kinds(seen) == [("turn_resolved", 1), ("your_turn", 2)]
    told = theirs.events_until(lambda e: e["type"] == "turn_resolved")
    assert "shielded" in [e["type"] for e in told[0]["events"]]
    # The player hears the turn without the shield, and its view hides it.
    assert "shielded" not in [e["type"] for e in seen[0]["events"]]
    others = [r for r in seen[1]["match"]["state"]["robots"] if r["seat"] == 3]
    assert others and all("shield" not in r and "deflect" not in r for r in others)
    assert b"shielded" not in b"".join(mine.raw)
    assert b'"deflect":"N"' not in b"".join(mine.raw)
    assert b'"deflect":"N"' in b"".join(theirs.raw)


def test_a_simultaneous_turn_is_told_once_every_seat_has_thrown(
    base, streams, api, api_opponent, player, opponent
):
    created = api.post_json("/matches/", {"ruleset": "rps", "seats": 2, "options": {"rounds": 2}})
    match_id = created.json()["id"]
    mine = open_stream(streams, base, token_for(player, "stream"))
    theirs = open_stream(streams, base, token_for(opponent, "stream"))
    assert mine.quiet(0.3) == []  # an open match: nothing to do yet
    assert api_opponent.post_json(f"/matches/{match_id}/join/").status_code == 200
    # The match started: each stream tells it, then the turn.
    assert kinds(mine.events_until(lambda e: e["type"] == "your_turn")) == [
        ("match_started", 0),
        ("your_turn", 0),
    ]
    assert kinds(theirs.events_until(lambda e: e["type"] == "your_turn")) == [
        ("match_started", 0),
        ("your_turn", 0),
    ]
    path = f"/matches/{match_id}/orders/"
    assert api.post_json(path, {"turn": 0, "throw": "paper"}).status_code == 202
    # Stored, not resolved: nobody hears anything, the opponent least of all the throw.
    assert mine.quiet(0.5) == [] and theirs.quiet(0.1) == []
    assert b"paper" not in b"".join(theirs.raw)
    assert api_opponent.post_json(path, {"turn": 0, "throw": "rock"}).status_code == 202
    match = Match.objects.get(pk=match_id)
    drain(match, emails=False)
    for each in (mine, theirs):
        events = each.events_until(lambda e: e["type"] == "your_turn")
        assert kinds(events) == [("turn_resolved", 0), ("your_turn", 1)]
        thrown = {e["seat"]: e["throw"] for e in events[0]["events"] if e["type"] == "thrown"}
        assert thrown == {1: "paper", 2: "rock"}
        assert events[1]["match"]["awaiting"] == [1, 2]
    assert api.post_json(path, {"turn": 1, "throw": "rock"}).status_code == 202
    assert api_opponent.post_json(path, {"turn": 1, "throw": "rock"}).status_code == 202
    drain(match, emails=False)
    for each in (mine, theirs):
        events = each.events_until(lambda e: e["type"] == "match_over")
        assert [e["type"] for e in events] == ["turn_resolved", "match_over"]
        over = events[1]["match"]
        assert (over["status"], over["winners"], over["your_turn"]) == ("finished", [1], False)
        assert each.quiet(0.3) == []


def test_reconnecting_hears_the_current_state_first(base, streams, duel, player, opponent, api):
    token = token_for(player, "stream")
    first = open_stream(streams, base, token)
    assert kinds([first.next_event()]) == [("your_turn", 0)]
    first.close()
    # Reconnected, the player hears again that the match waits for it.
    again = open_stream(streams, base, token)
    assert kinds([again.next_event()]) == [("your_turn", 0)]
    again.close()
    # Its turn played while no stream was open: on reconnecting, nothing waits for
    # it; the opponent connecting now hears its turn.
    assert (
        api.post_json(f"/matches/{duel.pk}/orders/", {"turn": 0, "actions": []}).status_code == 202
    )
    drain(duel, emails=False)
    assert open_stream(streams, base, token).quiet(0.5) == []
    theirs = open_stream(streams, base, token_for(opponent, "stream"))
    assert kinds([theirs.next_event()]) == [("your_turn", 1)]


def test_every_turn_resolved_while_streaming_is_told_even_in_a_burst(
    base, streams, duel, player, opponent
):
    """Several turns resolved between two looks of the stream: each one is told, in
    order, and the turn that waits for the player last."""
    mine = open_stream(streams, base, token_for(player, "stream"))
    assert kinds([mine.next_event()]) == [("your_turn", 0)]
    for turn, who in ((0, player), (1, opponent), (2, player), (3, opponent)):
        services.orders_submit(match_id=duel.pk, user=who, turn=turn, actions=[])
        drain(duel, emails=False)
    events = mine.events_until(
        lambda e: e["type"] == "your_turn" and e["match"]["state"]["turn"] == 4
    )
    told = kinds(events)
    assert [turn for kind, turn in told if kind == "turn_resolved"] == [0, 1, 2, 3]
    # Turn 2 was the player's only for a moment: told if the stream looked then.
    assert [turn for kind, turn in told if kind == "your_turn"] in ([2, 4], [4])
    assert told[-1] == ("your_turn", 4)


def test_a_stream_keeps_alive_with_blank_lines(base, streams, player, monkeypatch):
    monkeypatch.setattr("games.api.stream.KEEPALIVE_SECONDS", 0.2)
    quiet = open_stream(streams, base, token_for(player))
    assert [quiet.next_line(5), quiet.next_line(5)] == [b"\n", b"\n"]


def test_a_revoked_tokens_stream_ends(base, streams, player, monkeypatch):
    monkeypatch.setattr("games.api.stream.TOKEN_CHECK_SECONDS", 0.2)
    opened = open_stream(streams, base, token_for(player))
    token_revoke(user=player, token_id=ApiToken.objects.get(user=player).pk)
    assert opened.ended(5)


def test_open_streams_hold_no_thread_each(base, streams, player, opponent, duel):
    from games.api.stream_asgi import DB_THREADS

    before = threading.active_count()
    tokens = [token_for(who, f"stream {n}") for n in range(4) for who in (player, opponent)]
    for token in tokens * 3:  # 24 streams, three per token
        open_stream(streams, base, token)
    waiting = [s for s in streams if s.headers]
    assert len(waiting) == 24
    # Each stream here has a reader thread of the test's; the server adds its
    # database threads and nothing per stream.
    assert threading.active_count() - before <= 24 + DB_THREADS
    # Every one of the player's streams hears its turn.
    for each in streams[::2]:
        assert kinds([each.next_event()]) == [("your_turn", 0)]


# --- under WSGI ------------------------------------------------------------------------


def test_a_wsgi_server_of_one_thread_sends_streams_to_the_asgi_process(player):
    """Gunicorn's sync workers (and the test client) serve one request at a time: a
    stream would be that process's only request, so it is refused."""
    answer = ApiClient(token_for(player)).get(API + "/stream/")
    assert_error(answer, 421, "stream_elsewhere")
    assert answer["Retry-After"]


def test_a_threaded_wsgi_server_streams_on_a_thread(live_server, streams, duel, player, api):
    """runserver and the tests' live server: each stream polls on its own thread."""
    mine = open_stream(streams, live_server.url, token_for(player, "stream"))
    assert kinds([mine.next_event()]) == [("your_turn", 0)]
    assert (
        api.post_json(f"/matches/{duel.pk}/orders/", {"turn": 0, "actions": []}).status_code == 202
    )
    drain(duel, emails=False)
    assert kinds([mine.next_event()]) == [("turn_resolved", 0)]
