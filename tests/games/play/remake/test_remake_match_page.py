"""The remake on the match page: its board for every viewer, the plain form (no
JavaScript) taking five actions and the deflect, the planner's hints for five
actions, and no opponent's shield or deflect on any page a viewer gets."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.core.cache import cache, caches
from django.test import Client
from django.urls import reverse
from site_support import client_for, drain

import engine
from engine.remake.orders import MAX_ACTIONS
from games import services
from games.models import Match, Resolution

pytestmark = pytest.mark.django_db

REMAKE = "helium3-remake"
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="[^"]*"')


@pytest.fixture
def remake_match(player: Any, opponent: Any) -> Match:
    """Two people: the player in seat 1 (to move), the opponent in seat 3."""
    match = services.match_create(
        creator=player, seat_count=2, turn_seconds=3600, ruleset=REMAKE, options={"rounds": 5}
    )
    services.seat_join(match_id=match.pk, user=opponent)
    match.refresh_from_db()
    assert match.status == Match.Status.RUNNING and match.ruleset == REMAKE
    return match


def _page(client: Client, match: Match) -> str:
    response = client.get(reverse("games:match-detail", args=[match.pk]))
    assert response.status_code == 200
    return response.content.decode()


def _vehicle(html: str, vid: str) -> str:
    return re.search(rf'<g id="rb-{vid}"[^>]*>', html).group(0)


def _form_post(turn: int, actions: list[dict[str, Any]]) -> dict[str, Any]:
    """The plain form's fields, as a browser without JavaScript sends them."""
    data: dict[str, Any] = {"turn": turn, "actions_json": ""}
    for i in range(MAX_ACTIONS):
        a = actions[i] if i < len(actions) else {}
        cell = a.get("to") or a.get("target") or ["", ""]
        data.update(
            {
                f"robot_{i}": a.get("robot", ""),
                f"type_{i}": a.get("type", ""),
                f"x_{i}": cell[0],
                f"y_{i}": cell[1],
                f"direction_{i}": a.get("direction", ""),
            }
        )
    return data


def _submit(client: Client, match: Match, turn: int, actions: list[dict[str, Any]]) -> Any:
    url = reverse("games:match-orders", args=[match.pk])
    return client.post(url, _form_post(turn, actions))


def test_the_player_to_move_gets_the_remake_board_five_action_rows_and_hints(remake_match, player):
    html = _page(client_for(player), remake_match)
    assert '<svg class="board"' in html and "inactive" not in html
    assert "Vehicle 1-1, your vehicle" in html
    for i in range(MAX_ACTIONS):
        assert f'name="robot_{i}"' in html
    assert f'name="robot_{MAX_ACTIONS}"' not in html
    assert '<option value="deflect">deflect</option>' in html
    assert "Up to 5 actions, one per vehicle" in html
    # The remake's legend (no immunity) and its own rules page.
    assert 'href="/games/helium3-remake/"' in html
    hints = json.loads(
        re.search(r'<script id="hints" type="application/json">(.*?)</script>', html).group(1)
    )
    assert set(hints["robots"]) == {f"1-{n}" for n in range(1, 6)}
    assert hints["ranges"]["move"] == 5 and hints["max_actions"] == MAX_ACTIONS


def test_the_plain_form_plays_a_turn_of_five_actions_one_per_vehicle(remake_match, player):
    client = client_for(player)
    view = engine.view(remake_match.state, 1)
    mine = {r["id"]: (r["x"], r["y"]) for r in view["robots"] if r["seat"] == 1}
    # Each vehicle steps one cell away from the corner (down the board), in an order
    # where each goes to a cell the previous ones left free.
    order = sorted(mine, key=lambda vid: (-mine[vid][1], -mine[vid][0]))
    actions = [
        {"robot": vid, "type": "move", "to": [mine[vid][0], mine[vid][1] + 1]} for vid in order
    ]
    response = _submit(client, remake_match, 0, actions)
    assert response.status_code == 302, response.content.decode()[:2000]
    drain(remake_match, emails=False)
    row = Resolution.objects.get(match=remake_match, turn_number=0)
    assert [a["robot"] for a in row.orders["actions"]] == order
    after = {r["id"]: (r["x"], r["y"]) for r in remake_match.state["robots"] if r["seat"] == 1}
    assert after == {vid: (x, y + 1) for vid, (x, y) in mine.items()}
    html = _page(client, remake_match)
    assert sum(html.count(f"Vehicle {vid} moved 1 cell") for vid in mine) == 5


def test_the_plain_form_raises_a_shield_and_points_it_with_a_deflect_next_turn(
    remake_match, player, opponent
):
    client = client_for(player)
    assert _submit(client, remake_match, 0, [{"robot": "1-1", "type": "shield"}]).status_code == 302
    drain(remake_match, emails=False)
    services.orders_submit(match_id=remake_match.pk, user=opponent, turn=1, actions=[])
    drain(remake_match, emails=False)
    deflect = [{"robot": "1-1", "type": "deflect", "direction": "N"}]
    assert _submit(client, remake_match, 2, deflect).status_code == 302
    drain(remake_match, emails=False)
    robot = next(r for r in remake_match.state["robots"] if r["id"] == "1-1")
    assert robot["shield"] and robot["deflect"] == "N"
    html = _page(client, remake_match)
    assert "Vehicle 1-1 set its shield to deflect north." in html
    assert "Vehicle 1-1 raised its shield." in html
    assert " sd dd" in _vehicle(html, "1-1")  # the owner sees the deflect's arrow
    opponent_html = _page(client_for(opponent), remake_match)
    assert (
        " sd" not in _vehicle(opponent_html, "1-1")
        and "deflect" not in opponent_html.split('id="history"')[-1].split("</section>")[0]
    )


def test_the_plain_form_refuses_a_deflect_without_a_shield_next_to_its_action(remake_match, player):
    response = _submit(
        client_for(player), remake_match, 0, [{"robot": "1-2", "type": "deflect", "direction": "E"}]
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert "has no shield up" in html and 'class="action-error"' in html
    assert not Resolution.objects.filter(match=remake_match).exists()


def test_the_plain_form_says_a_shield_takes_no_direction_and_a_deflect_needs_one(
    remake_match, player
):
    client = client_for(player)
    with_direction = [{"robot": "1-1", "type": "shield", "direction": "N"}]
    html = _submit(client, remake_match, 0, with_direction).content.decode()
    assert "A shield is raised without a direction" in html
    html = _submit(client, remake_match, 0, [{"robot": "1-1", "type": "deflect"}]).content.decode()
    assert "A deflect needs a direction." in html


def test_six_actions_as_json_are_refused_with_the_engines_words(remake_match, player):
    view = engine.view(remake_match.state, 1)
    ids = [r["id"] for r in view["robots"] if r["seat"] == 1]
    actions = [{"robot": vid, "type": "mine"} for vid in ids] + [{"robot": ids[0], "type": "mine"}]
    url = reverse("games:match-orders", args=[remake_match.pk])
    response = client_for(player).post(url, {"turn": 0, "actions_json": json.dumps(actions)})
    assert response.status_code == 400
    assert "at most 5 actions" in response.content.decode()


def test_the_planner_gets_hints_for_each_action_on_the_board_the_previous_leave(
    remake_match, player
):
    client = client_for(player)
    url = reverse("games:match-hints", args=[remake_match.pk])
    planned: list[dict[str, Any]] = []
    hints = client.get(url).json()
    for step in range(MAX_ACTIONS - 1):
        vid = sorted(hints["robots"])[0]
        robot = hints["robots"][vid]
        cell = robot["reach"].index("1")  # a cell one step away, free on this board
        planned.append(
            {"robot": vid, "type": "move", "to": [cell % hints["w"], cell // hints["w"]]}
        )
        response = client.get(url, {"first": json.dumps(planned)})
        assert response.status_code == 200, response.json()
        hints = response.json()
        assert len(hints["robots"]) == MAX_ACTIONS - 1 - step
        moved = {r["id"]: [r["x"], r["y"]] for r in hints["first"]["robots"]}
        assert all(moved[a["robot"]] == a["to"] for a in planned)
        # The cell the last vehicle moved to is taken on the board the next one plans on.
        for other in hints["robots"].values():
            x, y = planned[-1]["to"]
            assert other["reach"][y * hints["w"] + x] == "."
    planned.append({"robot": sorted(hints["robots"])[0], "type": "mine"})
    refused = client.get(url, {"first": json.dumps(planned)})
    assert refused.status_code == 400 and refused.json()["error"]["code"] == "too_many_actions"


def _rewrite_hidden(match: Match) -> None:
    """Turn every hidden deflect of seat 1 another way in every stored copy, as the
    engine would have stored it had seat 1 chosen so."""

    def turned(value: Any) -> Any:
        if isinstance(value, dict):
            out = {k: turned(v) for k, v in value.items()}
            if out.get("deflect") == "N" and (
                out.get("seat") == 1 or str(out.get("robot", out.get("id", ""))).startswith("1-")
            ):
                out["deflect"] = "SW"
            if out.get("direction") == "N" and out.get("type") == "deflect":
                out["direction"] = "SW"
            return out
        if isinstance(value, list):
            return [turned(v) for v in value]
        return value

    Match.objects.filter(pk=match.pk).update(state=turned(match.state), record=None)
    for row in Resolution.objects.filter(match=match):
        row.events = turned(row.events)
        row.orders = turned(row.orders)
        row.state = turned(row.state)
        row.save(update_fields=["events", "orders", "state"])
    cache.clear()
    caches["pages"].clear()


def test_no_page_shows_another_seats_shield_or_deflect(remake_match, player, opponent, spectator):
    client = client_for(player)
    _submit(client, remake_match, 0, [{"robot": "1-1", "type": "shield"}])
    drain(remake_match, emails=False)
    services.orders_submit(match_id=remake_match.pk, user=opponent, turn=1, actions=[])
    drain(remake_match, emails=False)
    deflect = [{"robot": "1-1", "type": "deflect", "direction": "N"}]
    _submit(client, remake_match, 2, deflect)
    drain(remake_match, emails=False)
    viewers = {"opponent": client_for(opponent), "spectator": client_for(spectator)}
    pages = ["match-detail", "match-poll"]

    def read(c: Client) -> dict[str, str]:
        got = {}
        for name in pages:
            response = c.get(reverse(f"games:{name}", args=[remake_match.pk]))
            assert response.status_code == 200
            got[name] = CSRF.sub("", response.content.decode())
        movie = c.get(reverse("games:match-turn-movie", args=[remake_match.pk, 2]))
        got["movie"] = movie.content.decode()
        return got

    before = {who: read(c) for who, c in viewers.items()}
    owner_before = read(client)
    remake_match.refresh_from_db()
    _rewrite_hidden(remake_match)
    remake_match.refresh_from_db()
    assert next(r for r in remake_match.state["robots"] if r["id"] == "1-1")["deflect"] == "SW"
    for who, c in viewers.items():
        assert read(c) == before[who], f"the {who} can tell the hidden deflect"
    # The owner's own page does change: the rewrite touched what the pages are built from.
    assert read(client)["match-detail"] != owner_before["match-detail"]


def test_the_your_turn_email_tells_the_turns_since_as_the_recipients_copy(
    remake_match, player, opponent, mailoutbox
):
    actions = [
        {"robot": "1-1", "type": "shield"},
        {"robot": "1-2", "type": "shield", "to": [1, 0]},
    ]
    services.orders_submit(match_id=remake_match.pk, user=player, turn=0, actions=actions)
    drain(remake_match)
    mail = next(m for m in mailoutbox if m.to == [opponent.email] and "your turn" in m.body)
    assert "Since your last turn:\nTurn 0:\n- Vehicle 1-2 moved 1 cell to (1, 0)." in mail.body
    assert "shield" not in mail.body and "shield" not in mail.alternatives[0][0]
    services.orders_submit(match_id=remake_match.pk, user=opponent, turn=1, actions=[])
    drain(remake_match)
    mine = [m for m in mailoutbox if m.to == [player.email] and "your turn" in m.body]
    assert mine and "Turn 1:\n- Seat 3 passed." in mine[-1].body


def test_a_finished_remake_match_replays_with_its_board_movie_and_history(player, spectator):
    match = services.match_create(
        creator=player,
        seat_count=2,
        bots=["prospector", "random"],
        ruleset=REMAKE,
        options={"rounds": 5},
    )
    drain(match, emails=False)
    assert match.status == Match.Status.FINISHED
    watcher = client_for(spectator)
    replay = watcher.get(reverse("games:match-replay-page", args=[match.pk]))
    assert replay.status_code == 200
    html = replay.content.decode()
    assert '<svg class="board"' in html and 'href="/games/helium3-remake/"' in html
    last = int(match.state["turn"]) - 1
    movie = watcher.get(reverse("games:match-turn-movie", args=[match.pk, last]))
    assert movie.status_code == 200 and "The match is over" in movie.content.decode()
    page = _page(watcher, match)
    assert "The match is over (the last round was played)" in page or "one seat was left" in page


def test_the_remake_is_counted_in_rounds_not_by_the_battle_clock(remake_match, player):
    """The remake ends after its rounds: its page says the round, where Helium 3's
    shows the battle clock."""
    html = _page(client_for(player), remake_match)
    rounds = remake_match.options["rounds"]
    assert f"Round 1 of {rounds}." in html
    assert f"round 1 of {rounds}." in html  # the line under the heading
    assert "Battle clock" not in html and "battle of" not in html
    helium3 = services.match_create(creator=player, seat_count=2, bots=["random"])
    assert "Battle clock" in _page(client_for(player), helium3)
