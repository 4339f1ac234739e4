"""docs/protocol.md's "Bot HTTP API", endpoint by endpoint: status codes, bodies, and
that a player only ever gets its own view of the state."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from api_support import ApiClient, assert_error, token_for
from django.test import Client
from django.urls import reverse
from site_support import drain

import engine
from games import services
from games.models import Match, Orders, Seat


@pytest.fixture
def duel(api: ApiClient, api_opponent: ApiClient) -> Match:
    """Two bots through the API: the player's (seat 1, to move) and the opponent's (seat 3)."""
    created = api.post_json("/matches/", {"seats": 2, "turn_seconds": 3600})
    assert created.status_code == 201
    joined = api_opponent.post_json(f"/matches/{created.json()['id']}/join/")
    assert joined.status_code == 200
    return Match.objects.get(pk=created.json()["id"])


def _secret_shield(match: Match, seat: int) -> dict[str, Any]:
    """Give one of `seat`'s robots a raised shield with a deflect: a secret."""
    state = match.state
    robot = next(r for r in state["robots"] if r["seat"] == seat)
    robot.update(active=True, shield=True, deflect="NW")
    Match.objects.filter(pk=match.pk).update(state=state)
    match.refresh_from_db()
    return robot


def test_creating_a_match_puts_the_caller_in_seat_one_and_the_bots_next(api, player):
    response = api.post_json(
        "/matches/", {"seats": 4, "bots": ["random", "random"], "length_ms": 5000}
    )
    assert response.status_code == 201
    body = response.json()
    assert body["seat"] == 1 and body["status"] == "open" and body["state"] is None
    assert [(s["number"], s["player"], s["bot"]) for s in body["seats"]] == [
        (1, "alice", None),
        (2, None, "random"),
        (3, None, "random"),
        (4, None, None),
    ]
    match = Match.objects.get(pk=body["id"])
    assert (match.seat_count, match.length_ms, match.public) == (4, 5000, True)
    assert Seat.objects.get(match=match, number=1).api


def test_an_empty_body_creates_the_default_match(api):
    response = api.post_json("/matches/")
    assert response.status_code == 201
    match = Match.objects.get(pk=response.json()["id"])
    assert (match.seat_count, match.turn_seconds, match.length_ms) == (4, 86400, 600_000)


def test_a_match_full_of_bots_starts_at_once_with_the_callers_view(api):
    response = api.post_json("/matches/", {"seats": 2, "bots": ["random"]})
    body = response.json()
    assert body["status"] == "running" and body["your_turn"] and body["deadline"]
    match = Match.objects.get(pk=body["id"])
    assert body["state"] == engine.view(match.state, 1)
    assert "seed" not in body["state"]


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"seats": 9}, "bad_shape"),
        ({"seats": 5}, "bad_seats"),
        ({"seats": "4"}, "bad_shape"),
        ({"turn_seconds": 10}, "bad_shape"),
        ({"length_ms": 0}, "bad_shape"),
        ({"bots": ["skynet"]}, "bad_shape"),
        ({"seats": 2, "bots": ["random", ""]}, "bad_bots"),
        ({"colour": "red"}, "bad_shape"),
        ([1, 2], "bad_shape"),
        ("not json", "bad_json"),
    ],
)
def test_bad_create_input_is_a_400_error_object_and_creates_nothing(api, body, code):
    if body == "not json":
        response = api.post("/api/v1/matches/", "{nope", content_type="application/json")
    else:
        response = api.post_json("/matches/", body)
    assert_error(response, 400, code)
    assert not Match.objects.exists()


def test_joining_takes_the_lowest_free_seat_and_a_full_match_answers_409(
    api, api_opponent, api_spectator
):
    created = api.post_json("/matches/", {"seats": 3}).json()
    first = api_opponent.post_json(f"/matches/{created['id']}/join/")
    assert first.status_code == 200 and first.json()["seat"] == 2
    assert_error(api_opponent.post_json(f"/matches/{created['id']}/join/"), 409, "already_seated")
    last = api_spectator.post_json(f"/matches/{created['id']}/join/")
    assert last.json()["seat"] == 3 and last.json()["status"] == "running"
    outsider = ApiClient(token_for(services_user("dave")))
    assert_error(outsider.post_json(f"/matches/{created['id']}/join/"), 409, "not_open")
    assert_error(outsider.post_json("/matches/999999/join/"), 404, "not_found")


def services_user(name: str) -> Any:
    from game_factories import UserFactory

    return UserFactory(username=name)


def test_the_list_has_the_callers_matches_with_seat_and_whose_turn(api, api_opponent, duel):
    mine = api.get_json("/matches/").json()
    theirs = api_opponent.get_json("/matches/").json()
    assert [(m["id"], m["seat"], m["your_turn"], m["status"]) for m in mine] == [
        (duel.pk, 1, True, "running")
    ]
    assert [(m["id"], m["seat"], m["your_turn"]) for m in theirs] == [(duel.pk, 3, False)]
    assert api.get_json("/matches/?status=finished").json() == []
    assert_error(api.get_json("/matches/?status=bogus"), 400, "bad_shape")
    assert_error(api.get_json("/matches/?limit=0"), 400, "bad_shape")
    assert_error(api.get_json("/matches/?limt=5"), 400, "bad_shape")


@pytest.mark.parametrize("who", ["player", "opponent", "spectator"])
def test_a_match_is_shown_as_the_callers_view_only(who, api, api_opponent, api_spectator, duel):
    robot = _secret_shield(duel, 3)
    client = {"player": api, "opponent": api_opponent, "spectator": api_spectator}[who]
    seat = {"player": 1, "opponent": 3, "spectator": None}[who]
    body = client.get_json(f"/matches/{duel.pk}/").json()
    assert body["seat"] == seat
    assert body["state"] == engine.view(duel.state, seat)
    shown = next(r for r in body["state"]["robots"] if r["id"] == robot["id"])
    assert ("shield" in shown) == (who == "opponent")
    assert body["your_turn"] == (who == "player")


def test_accepted_orders_answer_202_and_the_worker_resolves_them(api, duel):
    response = api.post_json(
        f"/matches/{duel.pk}/orders/",
        {"seat": 1, "turn": 0, "actions": [{"robot": "1-1", "type": "move", "to": [3, 3]}]},
    )
    assert response.status_code == 202
    body = response.json()
    assert body["status"] == "accepted" and (body["turn"], body["seat"]) == (0, 1)
    row = Orders.objects.get(match=duel, turn_number=0)
    assert row.orders == body["orders"] and row.source == "player"
    drain(duel, emails=False)
    assert duel.turn_number == 1
    events = api.get_json(f"/matches/{duel.pk}/").json()["last_events"]
    assert any(e["type"] == "moved" and e["robot"] == "1-1" for e in events)


def test_seat_may_be_left_out_of_the_orders(api, duel):
    response = api.post_json(f"/matches/{duel.pk}/orders/", {"turn": 0, "actions": []})
    assert response.status_code == 202 and response.json()["orders"]["seat"] == 1


def test_the_same_orders_again_answer_as_the_first_time_did(api, duel):
    orders = {"seat": 1, "turn": 0, "actions": [{"robot": "1-2", "type": "mine"}]}
    first = api.post_json(f"/matches/{duel.pk}/orders/", orders)
    again = api.post_json(f"/matches/{duel.pk}/orders/", orders)
    assert (first.status_code, again.status_code) == (202, 202)
    assert first.json() == again.json()
    drain(duel, emails=False)
    # Still the same answer after the turn was resolved.
    late = api.post_json(f"/matches/{duel.pk}/orders/", orders)
    assert (late.status_code, late.json()) == (202, first.json())
    assert Orders.objects.filter(match=duel).count() == 1


@pytest.mark.parametrize(
    "actions",
    [
        [],
        [{"robot": "1-2", "type": "mine", "to": [3, 3]}],
        [{"robot": "1-1", "type": "fire_laser", "direction": "E"}],  # illegal: not armed
    ],
)
def test_different_orders_for_an_accepted_turn_answer_409(api, duel, actions):
    first = api.post_json(
        f"/matches/{duel.pk}/orders/", {"turn": 0, "actions": [{"robot": "1-2", "type": "mine"}]}
    )
    assert first.status_code == 202
    response = api.post_json(f"/matches/{duel.pk}/orders/", {"turn": 0, "actions": actions})
    assert_error(response, 409, "already_submitted")
    assert Orders.objects.get(match=duel).orders == first.json()["orders"]


@pytest.mark.parametrize(
    ("actions", "code", "action"),
    [
        ([{"robot": "1-1", "type": "fire_laser", "direction": "E"}], "not_armed", 0),
        ([{"robot": "1-1", "type": "move", "to": [19, 19]}], "out_of_range", 0),
        ([{"robot": "1-1", "type": "mine"}, {"robot": "3-1", "type": "mine"}], "not_your_robot", 1),
        ([{"robot": "1-9", "type": "mine"}], "unknown_robot", 0),
        ([{"robot": "1-1", "type": "teleport"}], "bad_shape", 0),
        ([{"robot": "1-1", "type": "mine"}] * 3, "too_many_actions", None),
    ],
)
def test_illegal_orders_answer_400_with_the_engines_error_and_store_nothing(
    api, duel, actions, code, action
):
    response = api.post_json(f"/matches/{duel.pk}/orders/", {"turn": 0, "actions": actions})
    error = assert_error(response, 400, code)
    assert error.get("action") == action
    assert not Orders.objects.exists()


@pytest.mark.parametrize(
    "body",
    [
        "{not json",
        "[1, 2]",
        '{"turn": "0", "actions": []}',
        '{"turn": -1, "actions": []}',
        '{"turn": 99999999999999999999999, "actions": []}',
        '{"turn": 0}',
        '{"turn": 0, "actions": {}}',
        '{"turn": 0, "actions": [], "extra": 1}',
        '{"turn": 0, "actions": [], "seat": "1"}',
        "[" * 100_000 + "]" * 100_000,
    ],
)
def test_malformed_orders_answer_400_and_store_nothing(api, duel, body):
    response = api.post(f"/api/v1/matches/{duel.pk}/orders/", body, content_type="application/json")
    assert response.status_code in (400, 413)
    assert_error(response, response.status_code)
    assert not Orders.objects.exists()


def test_orders_out_of_turn_answer_409(api, api_opponent, duel):
    assert_error(
        api_opponent.post_json(f"/matches/{duel.pk}/orders/", {"turn": 0, "actions": []}),
        409,
        "not_your_turn",
    )
    assert_error(
        api.post_json(f"/matches/{duel.pk}/orders/", {"turn": 5, "actions": []}),
        409,
        "stale_turn",
    )


def test_orders_from_outside_the_match_or_for_another_seat_answer_403(api, api_spectator, duel):
    assert_error(
        api_spectator.post_json(f"/matches/{duel.pk}/orders/", {"turn": 0, "actions": []}),
        403,
        "not_a_player",
    )
    assert_error(
        api.post_json(f"/matches/{duel.pk}/orders/", {"seat": 3, "turn": 0, "actions": []}),
        403,
        "not_your_seat",
    )
    assert not Orders.objects.exists()


def test_orders_for_an_unknown_match_answer_404(api):
    assert_error(api.post_json("/matches/424242/orders/", {"turn": 0, "actions": []}), 404)


def _finish(match: Match, user: Any) -> None:
    for _ in range(300):
        drain(match, emails=False)
        if match.status == Match.Status.FINISHED:
            return
        services.orders_submit(match_id=match.pk, user=user, turn=match.turn_number, actions=[])
    raise AssertionError("the match did not finish")


def test_orders_after_the_end_answer_409_match_over(api, player):
    created = api.post_json("/matches/", {"seats": 2, "bots": ["random"], "length_ms": 2000})
    match = Match.objects.get(pk=created.json()["id"])
    _finish(match, player)
    response = api.post_json(
        f"/matches/{match.pk}/orders/", {"turn": match.turn_number, "actions": []}
    )
    assert_error(response, 409, "match_over")


def test_the_replay_is_404_until_the_match_is_over_then_the_full_record(api, api_spectator, player):
    created = api.post_json("/matches/", {"seats": 2, "bots": ["random"], "length_ms": 2000})
    match = Match.objects.get(pk=created.json()["id"])
    assert_error(api.get_json(f"/matches/{match.pk}/replay/"), 404, "not_over")
    _finish(match, player)
    for client in (api, api_spectator):
        replay = client.get_json(f"/matches/{match.pk}/replay/")
        assert replay.status_code == 200
        assert replay.json() == match.record
        assert set(replay.json()) == {"initial", "turns", "final"}
    body = api.get_json(f"/matches/{match.pk}/").json()
    assert body["status"] == "finished"
    assert body["state"] == {**match.state, "viewer": 1}  # the full state, once over


def test_a_downloaded_replay_file_passes_the_engines_replay_command(api, player, tmp_path):
    """The file from the API and the one the replay page links to both re-resolve,
    turn by turn, to the stored final state with `python -m engine replay`."""
    created = api.post_json("/matches/", {"seats": 2, "bots": ["fighter"], "length_ms": 4000})
    match = Match.objects.get(pk=created.json()["id"])
    _finish(match, player)
    downloads = {
        "api": api.get_json(f"/matches/{match.pk}/replay/").content,
        "page": Client().get(reverse("games:match-replay", args=[match.pk])).content,
    }
    for name, content in downloads.items():
        path = tmp_path / f"{name}.json"
        path.write_bytes(content)
        done = subprocess.run(
            [sys.executable, "-m", "engine", "replay", str(path)],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, (name, done.stdout, done.stderr)
        assert json.loads(done.stdout)["ok"] is True
    # A file changed by one byte of the final state fails the same check.
    record = json.loads(downloads["api"])
    record["final"]["players"][0]["money"] += 1
    (tmp_path / "bad.json").write_text(json.dumps(record))
    bad = subprocess.run(
        [sys.executable, "-m", "engine", "replay", str(tmp_path / "bad.json")],
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert bad.returncode == 1


def test_the_history_shows_each_turn_as_the_caller_may_see_it(
    api, api_opponent, api_spectator, duel, player, opponent
):
    services.orders_submit(match_id=duel.pk, user=player, turn=0, actions=[])
    drain(duel, emails=False)
    services.orders_submit(
        match_id=duel.pk,
        user=opponent,
        turn=1,
        actions=[{"robot": "3-1", "type": "shield", "deflect": "N"}],
    )
    drain(duel, emails=False)
    seen = {}
    for who, client in (("player", api), ("opponent", api_opponent), ("spectator", api_spectator)):
        body = client.get_json(f"/matches/{duel.pk}/history/").json()
        assert body["over"] is False and [t["turn"] for t in body["turns"]] == [0, 1]
        assert all(t["orders"] is None for t in body["turns"])
        seen[who] = [e["type"] for e in body["turns"][1]["events"]]
        text = str(body)
        assert ("'deflect': 'N'" in text) == (who == "opponent")
    assert "shielded" in seen["opponent"]
    assert "shielded" not in seen["player"] and "shielded" not in seen["spectator"]
    since = api.get_json(f"/matches/{duel.pk}/history/?since=1").json()
    assert [t["turn"] for t in since["turns"]] == [1]


def test_the_history_of_a_finished_match_is_complete(api, player):
    created = api.post_json("/matches/", {"seats": 2, "bots": ["random"], "length_ms": 2000})
    match = Match.objects.get(pk=created.json()["id"])
    _finish(match, player)
    body = api.get_json(f"/matches/{match.pk}/history/").json()
    assert body["over"] is True
    assert [t["events"] for t in body["turns"]] == [t["events"] for t in match.record["turns"]]
    assert [t["orders"] for t in body["turns"]] == [t["orders"] for t in match.record["turns"]]


@pytest.mark.parametrize(
    ("method", "path", "status", "code"),
    [
        ("get", "/matches/1/nothing/", 404, "not_found"),
        ("get", "/matches", 404, "not_found"),
        ("post", "/matches", 404, "not_found"),
        ("get", "/matches/abc/", 404, "not_found"),
        ("get", "/matches/99999999999999999999999999/", 404, "not_found"),
        ("delete", "/matches/", 405, "method_not_allowed"),
        ("put", "/matches/1/orders/", 405, "method_not_allowed"),
        ("get", "/matches/1/orders/", 405, "method_not_allowed"),
    ],
)
def test_unknown_paths_and_methods_answer_error_objects(api, method, path, status, code):
    response = getattr(api, method)("/api/v1" + path)
    assert_error(response, status, code)
    if status == 405:
        assert response["Allow"]


def test_the_openapi_description_and_the_docs_are_served_without_a_token(db):
    from django.test import Client

    schema = Client().get("/api/v1/openapi.json")
    assert schema.status_code == 200
    paths = schema.json()["paths"]
    for path in (
        "/api/v1/matches/",
        "/api/v1/matches/{match_id}/",
        "/api/v1/matches/{match_id}/join/",
        "/api/v1/matches/{match_id}/orders/",
        "/api/v1/matches/{match_id}/history/",
        "/api/v1/matches/{match_id}/replay/",
    ):
        assert path in paths
    schemes = schema.json()["components"]["securitySchemes"]
    assert [s["scheme"] for s in schemes.values()] == ["bearer"]
    docs = Client().get("/api/v1/docs")
    assert docs.status_code == 200 and b"openapi.json" in docs.content


def test_the_openapi_description_is_built_once_and_served_the_same_each_time(db, monkeypatch):
    from django.test import Client
    from ninja import main

    from games.api.app import api

    api._descriptions.clear()
    built: list[str] = []
    build = main.get_schema

    def counted(**kwargs):
        built.append(kwargs["path_prefix"])
        return build(**kwargs)

    monkeypatch.setattr(main, "get_schema", counted)
    answers = [Client().get("/api/v1/openapi.json") for _ in range(3)]
    assert [a.status_code for a in answers] == [200] * 3
    assert answers[0].content == answers[1].content == answers[2].content
    assert built == ["/api/v1/"]
