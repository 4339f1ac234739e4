"""Skyport through the bot API: two programs, each with its own token and seat, play
a whole two-seat match (the loadouts at once, then one seat at a time), each reading
only its own match JSON and answering with what the engine's bots give on that view;
the other seat's loadout is never in a response before both have chosen; illegal
actions are a 400 naming the action."""

from __future__ import annotations

from typing import Any

import pytest
from api_support import ApiClient, assert_error
from site_support import drain

import engine
from games import services
from games.models import Match, Orders, Resolution

pytestmark = pytest.mark.django_db

ROUNDS = 5


class Program:
    """One bot program: its token's client, its seat and the engine bot it asks."""

    def __init__(self, api: ApiClient, bot: str) -> None:
        self.api, self.bot = api, bot
        self.seat: int | None = None
        self.played: list[int] = []

    def look(self, match_id: int) -> dict[str, Any]:
        response = self.api.get_json(f"/matches/{match_id}/")
        assert response.status_code == 200, response.content[:300]
        body: dict[str, Any] = response.json()
        return body

    def play(self, match_id: int) -> bool:
        """Sends its orders when it is its turn; whether it sent."""
        body = self.look(match_id)
        if not body["your_turn"]:
            return False
        view = body["state"]
        self.seat = int(view["viewer"])
        orders = engine.bot_orders(self.bot, view, self.seat)
        orders = {k: v for k, v in orders.items() if k != "seat"}
        sent = self.api.post_json(f"/matches/{match_id}/orders/", orders)
        assert sent.status_code == 202, sent.content[:300]
        self.played.append(int(view["turn"]))
        return True


def _duel(api: ApiClient, api_opponent: ApiClient, **options: Any) -> int:
    created = api.post_json(
        "/matches/",
        {"ruleset": "skyport", "seats": 2, "options": {"rounds": ROUNDS, **options}},
    )
    assert created.status_code == 201, created.content[:300]
    match_id = int(created.json()["id"])
    joined = api_opponent.post_json(f"/matches/{match_id}/join/")
    assert joined.status_code == 200 and joined.json()["status"] == "running"
    return match_id


def test_two_programs_play_a_whole_skyport_match_through_the_api(api, api_opponent, monkeypatch):
    monkeypatch.setattr(services.matches.secrets, "randbelow", lambda _n: 11)
    match_id = _duel(api, api_opponent)
    programs = [Program(api, "prospector"), Program(api_opponent, "random")]
    first = programs[0].look(match_id)
    assert first["state"]["phase"] == "loadout" and first["awaiting"] == [1, 2]
    for _ in range(200):
        sent = [p.play(match_id) for p in programs]
        drain(emails=False)
        if Match.objects.get(pk=match_id).status == Match.Status.FINISHED:
            break
        assert any(sent), "nobody could play"
    match = Match.objects.get(pk=match_id)
    assert match.status == Match.Status.FINISHED and match.state["over"]
    assert match.state["round"] == ROUNDS
    # Both sent the loadout at turn 0, then every turn of their own.
    assert all(p.played[0] == 0 for p in programs)
    turns = sorted(t for p in programs for t in p.played[1:])
    assert turns == list(range(1, len(turns) + 1))
    assert {o.source for o in Orders.objects.filter(match=match)} == {Orders.Source.PLAYER}
    assert Resolution.objects.filter(match=match).count() == len(turns) + 1
    final = programs[0].look(match_id)
    assert final["status"] == "finished" and final["winners"] == match.winners
    assert final["scores"] == match.state["scores"]


def test_a_loadout_is_hidden_from_the_other_program_until_both_have_chosen(api, api_opponent):
    match_id = _duel(api, api_opponent)
    path = f"/matches/{match_id}/"
    sent = api.post_json(f"{path}orders/", {"turn": 0, "loadout": ["droid", "laser"]})
    assert sent.status_code == 202
    mine = api.get_json(path).json()
    assert mine["your_orders"]["loadout"] == ["droid", "laser"] and mine["your_turn"] is False
    theirs = api_opponent.get_json(path)
    assert theirs.json()["your_orders"] is None and theirs.json()["your_turn"] is True
    assert b"droid" not in theirs.content
    for url in (f"{path}history/", "/matches/"):
        assert b"droid" not in api_opponent.get_json(url).content
    assert all(not p["weapons"] for p in theirs.json()["state"]["players"])
    assert (
        api_opponent.post_json(
            f"{path}orders/", {"turn": 0, "loadout": ["mortar", "laser"]}
        ).status_code
        == 202
    )
    drain(emails=False)
    after = api_opponent.get_json(path).json()
    assert after["state"]["phase"] == "play"
    assert {p["seat"]: sorted(p["weapons"]) for p in after["state"]["players"]} == {
        1: ["droid", "laser"],
        2: ["laser", "mortar"],
    }


@pytest.fixture
def in_play(api: ApiClient, api_opponent: ApiClient) -> tuple[int, ApiClient, dict[str, Any]]:
    match_id = _duel(api, api_opponent)
    for client, loadout in ((api, ["laser", "mortar"]), (api_opponent, ["mortar", "droid"])):
        client.post_json(f"/matches/{match_id}/orders/", {"turn": 0, "loadout": loadout})
    drain(emails=False)
    for client in (api, api_opponent):
        body = client.get_json(f"/matches/{match_id}/").json()
        if body["your_turn"]:
            return match_id, client, body["state"]
    raise AssertionError("nobody's turn")


def _open_step(view: dict[str, Any]) -> str:
    """A direction the mover may step in from its spawn (onto open ground)."""
    from engine.skyport.hexgrid import DIRECTIONS

    me = next(p for p in view["players"] if p["seat"] == view["viewer"])
    taken = {(p["j"], p["k"]) for p in view["players"]}
    for name, (dj, dk) in DIRECTIONS.items():
        j, k = me["j"] + dj, me["k"] + dk
        on_map = 0 <= j < view["size"] and 0 <= k < view["size"]
        if on_map and view["tiles"][j][k] in "GERC" and (j, k) not in taken:
            return name
    raise AssertionError("a spawn with no open tile beside it")


STEP = {"type": "move", "direction": "STEP"}


@pytest.mark.parametrize(
    ("actions", "code", "index"),
    [
        ([{"type": "mine"}], "illegal_action", 0),  # a spawn holds no resource
        ([{"type": "droid", "sequence": []}], "illegal_action", 0),  # no attack from a spawn
        ([STEP, {"type": "upgrade", "weapon": "laser"}], "illegal_action", 1),  # no rubidium
        ([STEP, {"type": "upgrade", "weapon": "droid"}], "illegal_action", 1),  # not carried
        ([STEP, {"type": "laser", "direction": "sideways"}], None, 1),
        ([STEP, {"type": "laser", "direction": "up"}, {"type": "mine"}], None, 2),
        ([STEP, {"type": "mortar", "target": [9, 0]}], "illegal_action", 1),  # out of range
        ([{"type": "mine"}] * 4, "too_many_actions", None),
        ([{"type": "fly"}], "bad_shape", 0),
    ],
)
def test_illegal_actions_are_a_400_naming_the_action_and_change_nothing(
    in_play, actions, code, index
):
    match_id, client, view = in_play
    step = _open_step(view)
    actions = [{**a, "direction": step} if a is STEP else a for a in actions]
    before = Match.objects.get(pk=match_id).state
    response = client.post_json(
        f"/matches/{match_id}/orders/", {"turn": view["turn"], "actions": actions}
    )
    error = assert_error(response, 400, code)
    assert error.get("action") == index, error
    if index is not None:
        assert f"Action {index + 1}" in error["message"]
    assert Match.objects.get(pk=match_id).state == before
    assert not Orders.objects.filter(match_id=match_id, turn_number=view["turn"]).exists()


def test_a_map_takes_seats_up_to_its_spawn_count_and_more_is_a_400_creating_nothing(api):
    response = api.post_json(
        "/matches/", {"ruleset": "skyport", "seats": 4, "options": {"map": "triangle-3"}}
    )
    error = assert_error(response, 400)
    assert "triangle-3 has 3 spawn tiles: it takes 2 to 3 players, not 4" in error["message"]
    assert not Match.objects.exists()
    for seats in (2, 3, 8):  # fewer than ring-8's eight spawns, as the 2013 server seated
        body = {"ruleset": "skyport", "seats": seats, "options": {"map": "ring-8"}}
        created = api.post_json("/matches/", body)
        assert created.status_code == 201, created.content[:300]
        assert Match.objects.get(pk=created.json()["id"]).seat_count == seats
