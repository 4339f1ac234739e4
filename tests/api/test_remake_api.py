"""Two programs play a whole helium3-remake match through the bot API: each reads its
seat's view, picks legal orders with the remake's random bot on what it believes
(up to five actions a turn, a deflect whenever one of its shields is up and a vehicle
is free for it), posts them, and never sees the other seat's shields or deflects
while the match runs; the match JSON and the history agree with what was played."""

from __future__ import annotations

from typing import Any

from api_support import ApiClient
from site_support import drain

import engine
from games.models import Match

REMAKE = "helium3-remake"
ACTIONS_MOST = 5


def believed(view: dict[str, Any]) -> dict[str, Any]:
    """A state a program can hand to the engine's bots: its view, with a seed of its
    own and the other seat's hidden shields believed down."""
    robots = [{"shield": False, "deflect": None, **robot} for robot in view["robots"]]
    known = {key: value for key, value in view.items() if key != "viewer"}
    return dict(known, seed=0, robots=robots)


def choose(view: dict[str, Any], seat: int) -> list[dict[str, Any]]:
    """The random bot's actions, and a deflect for a free vehicle of ours whose shield
    is up when the engine finds it legal after them."""
    state = believed(view)
    actions = list(engine.bot_orders("random", state, seat)["actions"])
    acted = {action["robot"] for action in actions}
    shielded = [
        r["id"]
        for r in view["robots"]
        if r["seat"] == seat and r["alive"] and r["shield"] and r["id"] not in acted
    ]
    if shielded and len(actions) < ACTIONS_MOST:
        deflect = {"robot": shielded[0], "type": "deflect", "direction": "N"}
        try:
            engine.check(
                state, {"seat": seat, "turn": view["turn"], "actions": [*actions, deflect]}
            )
        except engine.EngineError:
            pass
        else:
            actions.append(deflect)
    return actions


def assert_fogged(body: dict[str, Any], seat: int) -> None:
    """No robot of the other seat shows its shield or deflect; no event of the
    other seat's raising or turning a shield."""
    others = [r for r in body["state"]["robots"] if r["seat"] != seat]
    assert others and all("shield" not in r and "deflect" not in r for r in others), others
    mine = [r for r in body["state"]["robots"] if r["seat"] == seat]
    assert mine and all("shield" in r and "deflect" in r for r in mine)
    assert not [e for e in body["last_events"] if e["type"] == "shielded" and e.get("seat") != seat]


def test_two_programs_play_a_remake_match_to_the_end_through_the_api(
    api: ApiClient, api_opponent: ApiClient
) -> None:
    created = api.post_json("/matches/", {"ruleset": REMAKE, "seats": 2, "options": {"rounds": 5}})
    assert created.status_code == 201, created.content[:300]
    match_id = created.json()["id"]
    assert api_opponent.post_json(f"/matches/{match_id}/join/").status_code == 200
    path = f"/matches/{match_id}/"
    programs = {}
    for client in (api, api_opponent):
        body = client.get_json(path).json()
        programs[body["seat"]] = client
    assert len(programs) == 2

    played: list[tuple[int, int, list[dict[str, Any]]]] = []
    hidden_shields_seen = 0
    while True:
        bodies = {seat: client.get_json(path).json() for seat, client in programs.items()}
        first = next(iter(bodies.values()))
        if first["status"] == "finished":
            break
        full = Match.objects.get(pk=match_id).state
        assert full is not None
        for seat, body in bodies.items():
            assert (body["ruleset"], body["options"]) == (REMAKE, {"rounds": 5})
            assert body["status"] == "running" and body["seat"] == seat
            assert body["awaiting"] == [full["to_move"]]
            assert body["scores"] == engine.scores(full)
            assert body["your_turn"] is (seat == full["to_move"])
            assert "seed" not in body["state"]
            assert_fogged(body, seat)
            hidden_shields_seen += sum(
                1 for r in full["robots"] if r["seat"] != seat and r["shield"]
            )
            history = programs[seat].get_json(f"{path}history/").json()
            assert history["over"] is False
            for turn in history["turns"]:
                assert turn["orders"] is None
                assert not [
                    e for e in turn["events"] if e["type"] == "shielded" and e.get("seat") != seat
                ]
        seat = full["to_move"]
        view = bodies[seat]["state"]
        actions = choose(view, seat)
        assert len(actions) <= ACTIONS_MOST
        sent = programs[seat].post_json(
            f"{path}orders/", {"turn": view["turn"], "actions": actions}
        )
        assert sent.status_code == 202, sent.content[:300]
        played.append((view["turn"], seat, actions))
        drain(Match.objects.get(pk=match_id))

    # Ten turns: five rounds of two seats, deflects among them, shields hidden meanwhile.
    assert [turn for turn, _, _ in played] == list(range(10))
    kinds = [a["type"] for _, _, actions in played for a in actions]
    assert "deflect" in kinds and max(len(a) for _, _, a in played) == ACTIONS_MOST
    assert hidden_shields_seen > 0
    match = Match.objects.get(pk=match_id)
    assert match.state is not None
    for client in programs.values():
        body = client.get_json(path).json()
        assert (body["ruleset"], body["options"], body["status"]) == (
            REMAKE,
            {"rounds": 5},
            "finished",
        )
        assert body["awaiting"] == [] and body["your_turn"] is False
        assert body["scores"] == engine.scores(match.state) == match.final_money
        # Over: everything is public, the seed and every shield.
        assert "seed" in body["state"]
        assert all("shield" in r for r in body["state"]["robots"])
        history = client.get_json(f"{path}history/").json()
        assert history["over"] is True
        turns = [(t["turn"], t["seat"], t["orders"]["actions"]) for t in history["turns"]]
        assert turns == played
        shield_events = [
            e for t in history["turns"] for e in t["events"] if e["type"] == "shielded"
        ]
        assert shield_events
