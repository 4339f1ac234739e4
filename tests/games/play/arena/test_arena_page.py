"""The arena's match page as its players read it: a seat the viewer has not seen shows
"?" for its score in the panel (never a score of 0 that reads as destroyed) and its
robot "alive" (which seats are in is public), the legend lists only
the match's seats, the board says whose robot a scan showed on a cell, a view with no
robots and no obstacles (a spectator's while the match runs) is drawn, and the build's
parts and hints are the engine's (gun and cannon are one kind, a weapon)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.urls import reverse
from site_support import client_for, drain

import engine
from engine.arena.orders import WEAPON_RANGE
from engine.arena.state import PARTS
from games import services
from games.models import Match
from games.play.arena import planner_hints
from games.play.arena.board import board
from games.play.arena.forms import build_problem

pytestmark = pytest.mark.django_db

ARENA = "arena"


def _page(client: Any, match: Match) -> str:
    response = client.get(reverse("games:match-detail", args=[match.pk]))
    assert response.status_code == 200
    return response.content.decode()


def _post(client: Any, match: Match, **data: Any) -> Any:
    return client.post(reverse("games:match-orders", args=[match.pk]), data)


def _rows(html: str) -> dict[int, tuple[str, str]]:
    """The panel's seats: seat -> (score, robots) as the page prints them."""
    rows = {}
    for seat, body in re.findall(r'<tr class="[^"]*" data-seat="(\d)">(.*?)</tr>', html, re.S):
        score = re.search(r'<td class="num money">([^<]*)</td>', body)
        robots = re.search(r'<td class="num robots">([^<]*)</td>', body)
        assert score and robots, body
        rows[int(seat)] = (score.group(1).strip(), robots.group(1).strip())
    return rows


@pytest.fixture
def playing(player: Any, opponent: Any) -> Match:
    match = services.match_create(
        creator=player, seat_count=2, turn_seconds=3600, ruleset=ARENA, options={"rounds": 20}
    )
    services.seat_join(match_id=match.pk, user=opponent)
    _post(client_for(player), match, turn=0, parts=["engine2", "radar2", "gun"])
    _post(client_for(opponent), match, turn=0, parts=["engine2", "radar1", "shield1"])
    drain(match, emails=False)
    match.refresh_from_db()
    assert match.state["phase"] == "play"
    return match


def test_a_seat_the_player_has_not_seen_shows_a_question_mark_not_a_score_of_zero(
    playing, player, opponent
):
    rows = _rows(_page(client_for(player), playing))
    assert rows[1] == (str(playing.state["scores"]["1"]), "1")
    assert rows[2] == ("?", "alive")
    theirs = _rows(_page(client_for(opponent), playing))
    assert theirs[1] == ("?", "alive") and theirs[2] == (str(playing.state["scores"]["2"]), "1")


def test_a_view_with_no_robots_and_no_obstacles_is_drawn():
    # A spectator's view of a running match holds only the public facts: no robots, no
    # obstacles, no knowledge, no scores.
    public = {
        "ruleset": ARENA, "width": 10, "height": 10, "phase": "play", "round": 3,
        "rounds": 20, "turn": 5, "step": 0, "awaiting": [2], "robots": [], "knowledge": {},
        "scores": {}, "over": False, "winners": [], "viewer": None,
        "players": [{"seat": 1, "alive": True}, {"seat": 2, "alive": False}],
    }  # fmt: skip
    svg = str(board(public))
    assert svg.count('<rect class="ar-cell ') == 100
    assert (
        not re.search(r'<g class="ar-robot[ "]', svg)
        and "k-obstacle" not in svg.split("</style>")[1]
    )


def test_a_spectator_sees_a_question_mark_for_each_seat_its_view_does_not_hold(playing, spectator):
    view = engine.view(playing.state, None)
    rows = _rows(_page(client_for(spectator), playing))
    for seat, (score, robots) in rows.items():
        if str(seat) in view.get("scores", {}):
            assert score == str(view["scores"][str(seat)]), rows
        else:
            assert (score, robots) == ("?", "alive"), rows


def test_the_legend_lists_only_the_seats_of_the_match(playing, player, opponent, spectator):
    duel = _page(client_for(player), playing)
    legend = re.search(r'<details class="legend ar-legend">.*?</details>', duel, re.S)
    assert legend
    assert "Seat 1: blue" in legend.group(0) and "Seat 2: orange" in legend.group(0)
    assert "Seat 3" not in legend.group(0) and "Seat 4" not in legend.group(0)
    three = services.match_create(
        creator=player, seat_count=3, turn_seconds=3600, ruleset=ARENA, options={"rounds": 10}
    )
    services.seat_join(match_id=three.pk, user=opponent)
    services.seat_join(match_id=three.pk, user=spectator)
    three.refresh_from_db()
    html = _page(client_for(player), three)
    legend = re.search(r'<details class="legend ar-legend">.*?</details>', html, re.S)
    assert legend and "Seat 3: green" in legend.group(0) and "Seat 4" not in legend.group(0)
    assert set(_rows(html)) == {1, 2, 3}


def test_a_cell_where_a_scan_showed_a_robot_says_whose_it_was():
    view = {
        "ruleset": ARENA,
        "width": 10,
        "height": 10,
        "phase": "play",
        "robots": [
            {
                "seat": 1,
                "x": 0,
                "y": 0,
                "health": 10,
                "max_health": 10,
                "alive": True,
                "parts": ["radar2"],
                "steps_left": 0,
                "shot": False,
                "reload": 0,
            }
        ],  # fmt: skip
        "knowledge": {"1": {"1,0": ["empty", None, 2, 0], "2,2": ["robot", 3, 3, 1]}},
        "turn": 5,
        "viewer": 1,
        "over": False,
    }
    svg = str(board(view))
    cell = re.search(r'<rect class="ar-cell k-robot"[^>]*data-x="2" data-y="2"[^>]*>', svg)
    assert cell and 'data-age="2"' in cell.group(0) and 'data-seat="3"' in cell.group(0)
    empty = re.search(r'<rect class="ar-cell k-empty"[^>]*data-x="1" data-y="0"[^>]*>', svg)
    assert empty and "data-seat" not in empty.group(0)


def test_gun_and_cannon_are_one_kind_in_the_engine_the_form_and_the_hints():
    assert PARTS["gun"][0] == PARTS["cannon"][0] == "weapon"
    with pytest.raises(engine.EngineError, match="at most one weapon"):
        engine.apply(
            engine.new_game(seed=1, ruleset=ARENA, seats=2),
            [
                {"seat": 1, "turn": 0, "build": ["gun", "cannon"]},
                {"seat": 2, "turn": 0, "build": []},
            ],
        )
    assert build_problem(["gun", "cannon"]) == (
        "Two parts of one kind: gun and cannon; choose one weapon."
    )
    hints = planner_hints({"viewer": 1, "phase": "build", "turn": 0, "step": 0, "robots": []})
    assert hints is not None
    assert hints["parts"]["gun"]["kind"] == hints["parts"]["cannon"]["kind"] == "weapon"
    assert hints["ranges"] == WEAPON_RANGE
