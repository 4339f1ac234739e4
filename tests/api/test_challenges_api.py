"""Challenges through the bot API, two programs with their own tokens: a challenge is
made, streamed to the challenged account, accepted, played to its end as a rated match
and both ratings read back; declined and expired challenges change nothing else and
are told to the challenger; every bad input to the new endpoints is a 4xx error
object with a code. The stream is served as production serves it (uvicorn and
helium3_site.asgi in a thread)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from api_support import ApiClient, assert_error, token_for
from django.utils import timezone
from openskill.models import PlackettLuce
from site_support import drain, wait_for
from stream_support import Stream, asgi_server

from games.compete import challenges
from games.compete.models import Challenge, Rating
from games.models import Match

pytestmark = pytest.mark.django_db(transaction=True)
# games.api is imported inside the tests only (the rulesets of the tests are registered
# after collection, and the API's schemas take those registered when it is imported).

RPS = {"ruleset": "rps", "options": {"rounds": 1}, "seats": 2}


@pytest.fixture
def base() -> Iterator[str]:
    with asgi_server() as url:
        yield url


@pytest.fixture
def streams() -> Iterator[list[Stream]]:
    from games.api.stream import OPEN_STREAMS

    opened: list[Stream] = []
    yield opened
    for each in opened:
        each.close()
    wait_for(lambda: OPEN_STREAMS.total() == 0, 10, "the server to close the streams")


def _open(streams: list[Stream], base: str, token: str) -> Stream:
    opened = Stream(base, token)
    streams.append(opened)
    assert opened.status == 200, opened.response.read()[:300]
    return opened


def _of_type(kind: str) -> Any:
    return lambda event: event["type"] == kind


def test_a_challenge_is_streamed_accepted_and_played_as_a_rated_match(
    base, streams, player, opponent
):
    alice_token, bob_token = token_for(player, "alice-bot"), token_for(opponent, "bob-bot")
    alice, bob = ApiClient(alice_token), ApiClient(bob_token)
    alice_stream = _open(streams, base, alice_token)
    bob_stream = _open(streams, base, bob_token)

    made = alice.post_json("/challenges/", {"to": "bob", **RPS, "turn_seconds": 600})
    assert made.status_code == 201, made.content
    body = made.json()
    assert body["status"] == "pending" and body["rated"] is True
    assert (body["challenger"], body["challenged"], body["seats"]) == ("alice", "bob", 2)

    told = bob_stream.events_until(_of_type("challenge"))[-1]
    assert told["challenge"]["id"] == body["id"] and told["challenge"]["status"] == "pending"
    assert told["match_id"] is None
    lists = bob.get_json("/challenges/").json()
    assert [c["id"] for c in lists["incoming"]] == [body["id"]] and lists["outgoing"] == []
    assert [c["id"] for c in alice.get_json("/challenges/").json()["outgoing"]] == [body["id"]]

    accepted = bob.post_json(f"/challenges/{body['id']}/accept/")
    assert accepted.status_code == 201, accepted.content
    match_id = accepted.json()["match_id"]
    assert accepted.json()["status"] == "accepted" and isinstance(match_id, int)
    answered = alice_stream.events_until(_of_type("challenge_answered"))[-1]
    assert answered["challenge"]["status"] == "accepted"
    assert answered["challenge"]["match_id"] == match_id
    # Both land in the match: each stream hears it start and waits for its throw.
    for stream in (alice_stream, bob_stream):
        turn = stream.events_until(_of_type("your_turn"))[-1]
        assert turn["match_id"] == match_id and turn["match"]["rated"] is True

    path = f"/matches/{match_id}/"
    assert alice.post_json(f"{path}orders/", {"turn": 0, "throw": "paper"}).status_code == 202
    assert bob.post_json(f"{path}orders/", {"turn": 0, "throw": "rock"}).status_code == 202
    drain()
    for stream in (alice_stream, bob_stream):
        over = stream.events_until(_of_type("match_over"))[-1]
        assert over["match"]["status"] == "finished"

    model = PlackettLuce()
    [[won], [lost]] = model.rate([[model.rating()], [model.rating()]], ranks=[1, 2])
    seats = {s["player"]: s["rating_change"] for s in alice.get_json(path).json()["seats"]}
    assert seats["alice"]["mu_after"] == won.mu and seats["bob"]["mu_after"] == lost.mu
    for client, name, skill in ((alice, "bob", lost), (bob, "alice", won)):
        rating = client.get_json(f"/players/{name}/").json()["ratings"][0]
        assert (rating["game"], rating["mu"], rating["sigma"]) == ("rps", skill.mu, skill.sigma)
        assert rating["matches"] == 1


@pytest.mark.parametrize("end", ["declined", "expired"])
def test_a_declined_or_expired_challenge_changes_nothing_and_the_challenger_hears_it(
    base, streams, player, opponent, end
):
    alice_token, bob_token = token_for(player), token_for(opponent)
    alice, bob = ApiClient(alice_token), ApiClient(bob_token)
    alice_stream = _open(streams, base, alice_token)
    bob_stream = _open(streams, base, bob_token)
    made = alice.post_json("/challenges/", {"to": "bob", **RPS}).json()
    bob_stream.events_until(_of_type("challenge"))
    if end == "declined":
        answer = bob.post_json(f"/challenges/{made['id']}/decline/")
        assert answer.status_code == 200 and answer.json()["status"] == "declined"
    else:
        later = timezone.now() + timedelta(days=1, minutes=1)
        assert challenges.challenges_sweep(now=later).expired == 1
        closed = bob_stream.events_until(_of_type("challenge_closed"))[-1]
        assert closed["challenge"]["status"] == "expired"
    answered = alice_stream.events_until(_of_type("challenge_answered"))[-1]
    assert answered["challenge"]["status"] == end and answered["match_id"] is None
    for verb in ("accept", "decline"):
        assert_error(bob.post_json(f"/challenges/{made['id']}/{verb}/"), 409, "challenge_closed")
    assert_error(alice.post_json(f"/challenges/{made['id']}/cancel/"), 409, "challenge_closed")
    assert bob.get_json("/challenges/").json() == {"incoming": [], "outgoing": []}
    assert alice.get_json(f"/challenges/{made['id']}/").json()["status"] == end
    assert Match.objects.count() == 0 and Rating.objects.count() == 0
    assert alice_stream.quiet(0.5) == [] and bob_stream.quiet(0.1) == []


def test_a_stream_that_connects_hears_the_challenges_waiting(base, streams, player, opponent):
    alice = ApiClient(token_for(player))
    first = alice.post_json("/challenges/", {"to": "bob", **RPS}).json()
    second = alice.post_json("/challenges/", {"to": "bob", **RPS, "rated": False}).json()
    alice.post_json(f"/challenges/{second['id']}/cancel/")
    bob_stream = _open(streams, base, token_for(opponent))
    told = bob_stream.events_until(_of_type("challenge"))
    assert [e["challenge"]["id"] for e in told if e["type"] == "challenge"] == [first["id"]]
    assert bob_stream.quiet(0.5) == []
    # Told on the stream: the player is there, so no email follows.
    assert Challenge.objects.get(pk=first["id"]).seen_at is not None


def test_the_challenger_cancels_and_the_challenged_hears_it(base, streams, player, opponent):
    alice = ApiClient(token_for(player))
    bob_token = token_for(opponent)
    bob_stream = _open(streams, base, bob_token)
    made = alice.post_json("/challenges/", {"to": "bob", **RPS}).json()
    bob_stream.events_until(_of_type("challenge"))
    cancelled = alice.post_json(f"/challenges/{made['id']}/cancel/")
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
    closed = bob_stream.events_until(_of_type("challenge_closed"))[-1]
    assert closed["challenge"]["status"] == "cancelled"
    assert_error(
        ApiClient(bob_token).post_json(f"/challenges/{made['id']}/accept/"), 409, "challenge_closed"
    )


# --- bad input: every new endpoint -------------------------------------------------


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({}, 400, "bad_shape"),  # no "to"
        ({"to": ""}, 400, "bad_shape"),
        ({"to": "bob", "colour": "red"}, 400, "bad_shape"),
        ({"to": "bob", "ruleset": "chess"}, 400, "bad_shape"),
        ({"to": "bob", "seats": "2"}, 400, "bad_shape"),
        ({"to": "bob", "rated": "yes"}, 400, "bad_shape"),
        ({"to": "bob", "turn_seconds": 5}, 400, "bad_shape"),
        ({"to": "bob", "bots": ["nobody"]}, 400, "bad_shape"),
        ({"to": 7}, 400, "bad_shape"),
        ([1, 2], 400, "bad_shape"),
        ({"to": "bob", **RPS, "seats": 9}, 400, "bad_seats"),
        ({"to": "bob", **RPS, "seats": 1}, 400, "bad_seats"),
        ({"to": "bob", **RPS, "bots": ["rock"]}, 400, "bad_seats"),
        ({"to": "bob", **RPS, "options": {"rounds": -1}}, 400, "bad_option"),
        ({"to": "bob", **RPS, "options": {"speed": 1}}, 400, "bad_option"),
        ({"to": "nobody-here", **RPS}, 404, "unknown_player"),
        ({"to": "alice", **RPS}, 400, "bad_player"),
    ],
)
def test_bad_challenges_are_4xx_error_objects_and_make_nothing(
    player, opponent, body, status, code
):
    assert_error(ApiClient(token_for(player)).post_json("/challenges/", body), status, code)
    assert Challenge.objects.count() == 0


def test_a_body_that_is_not_json_and_a_missing_token_are_refused(player, opponent):
    api = ApiClient(token_for(player))
    sent = api.post("/api/v1/challenges/", "{to:", content_type="application/json")
    assert_error(sent, 400, "bad_json")
    assert_error(ApiClient(None).post_json("/challenges/", {"to": "bob"}), 401, "unauthorized")
    assert_error(ApiClient(None).get_json("/challenges/"), 401, "unauthorized")
    assert_error(api.get_json("/challenges/?status=all"), 400, "bad_shape")
    assert Challenge.objects.count() == 0


def test_a_player_who_takes_no_challenges_is_closed_to_them(player, opponent):
    challenges.policy_update(user=opponent, accept_from="nobody", email=True)
    sent = ApiClient(token_for(player)).post_json("/challenges/", {"to": "bob", **RPS})
    assert_error(sent, 403, "challenges_closed")


def test_answers_to_a_challenge_that_is_not_yours_are_refused(player, opponent, spectator):
    alice, bob = ApiClient(token_for(player)), ApiClient(token_for(opponent))
    carol = ApiClient(token_for(spectator))
    made = alice.post_json("/challenges/", {"to": "bob", **RPS}).json()
    one = f"/challenges/{made['id']}/"
    assert_error(alice.post_json(one + "accept/"), 403, "not_challenged")
    assert_error(alice.post_json(one + "decline/"), 403, "not_challenged")
    assert_error(bob.post_json(one + "cancel/"), 403, "not_challenger")
    for verb in ("accept/", "decline/", "cancel/", ""):
        answer = carol.post_json(one + verb) if verb else carol.get_json(one)
        assert_error(answer, 404, "not_found")
    assert_error(bob.post_json("/challenges/999999/accept/"), 404, "not_found")
    assert_error(bob.get_json("/challenges/999999/"), 404, "not_found")
    assert_error(bob.post_json("/challenges/x/accept/"), 400, "bad_shape")
    assert_error(bob.get_json(one + "accept/"), 405)
    assert Challenge.objects.get().status == "pending" and Match.objects.count() == 0


def test_a_challenge_without_seats_is_for_the_two_players(player, opponent):
    alice = ApiClient(token_for(player))
    made = alice.post_json("/challenges/", {"to": "bob", "ruleset": "helium3"})
    assert made.status_code == 201, made.content
    assert (made.json()["seats"], made.json()["bots"]) == (2, [])
    assert Challenge.objects.get().seats == 2


def test_query_parameters_the_challenges_operations_lack_are_refused(player, opponent):
    alice, bob = ApiClient(token_for(player)), ApiClient(token_for(opponent))
    assert_error(alice.post_json("/challenges/?to=bob", {"to": "bob", **RPS}), 400, "bad_shape")
    assert Challenge.objects.count() == 0
    made = alice.post_json("/challenges/", {"to": "bob", **RPS}).json()
    one = f"/challenges/{made['id']}/"
    assert_error(bob.get_json(one + "?full=1"), 400, "bad_shape")
    for client, verb in ((bob, "accept"), (bob, "decline"), (alice, "cancel")):
        assert_error(client.post_json(f"{one}{verb}/?now=1"), 400, "bad_shape")
    assert Challenge.objects.get().status == "pending" and Match.objects.count() == 0


def test_a_challenge_accepted_twice_makes_one_match(player, opponent):
    alice, bob = ApiClient(token_for(player)), ApiClient(token_for(opponent))
    made = alice.post_json("/challenges/", {"to": "bob", **RPS}).json()
    assert bob.post_json(f"/challenges/{made['id']}/accept/").status_code == 201
    assert_error(bob.post_json(f"/challenges/{made['id']}/accept/"), 409, "challenge_closed")
    assert Match.objects.count() == 1


def test_the_openapi_description_has_the_challenges(player):
    schema = ApiClient(token_for(player)).get_json("/openapi.json").json()
    paths = schema["paths"]
    assert set(paths["/api/v1/challenges/"]) == {"get", "post"}
    for verb in ("accept", "decline", "cancel"):
        assert "post" in paths[f"/api/v1/challenges/{{challenge_id}}/{verb}/"]
    created = paths["/api/v1/challenges/"]["post"]["responses"]
    assert {"201", "400", "403", "404", "409"} <= set(created)
