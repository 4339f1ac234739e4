"""What Skyport's match page and rules page tell a player: the orders' note of the
phase being played, every player's health, resources and weapon levels in the panel
(loadouts only once all have chosen), a history without the engine's timings, a map
cropped to its ground, the coordinates left to a switch, and the rules page's compass
and worked example computed by the engine."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from site_support import client_for, drain
from test_skyport_site import _page, _post, _text

import engine
from engine.skyport import resolve as sk
from engine.skyport.hexgrid import DIRECTIONS
from games import services
from games.models import Match
from games.play.skyport import board, diagrams, panel
from games.play.skyport.forms import LOADOUT_NOTE, PLAY_NOTE

pytestmark = pytest.mark.django_db

SKYPORT = "skyport"


@pytest.fixture
def duel(player: Any, opponent: Any) -> Match:
    match = services.match_create(
        creator=player, seat_count=2, turn_seconds=3600, ruleset=SKYPORT, options={"rounds": 5}
    )
    services.seat_join(match_id=match.pk, user=opponent)
    match.refresh_from_db()
    return match


def _robots(html: str) -> dict[str, list[str]]:
    """The panel's table of robots: each seat's cells as text."""
    table = re.search(r'<table class="sp-seats".*?</table>', html, re.S)
    assert table, "no table of robots in the panel"
    rows = re.findall(r'<tr data-seat="(\d)"[^>]*>(.*?)</tr>', table.group(0), re.S)
    return {
        seat: [_text(c).strip() for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S)]
        for seat, row in rows
    }


def _loadouts(duel: Match, player: Any, opponent: Any) -> None:
    _post(client_for(player), duel, turn=0, loadout_1="droid", loadout_2="laser")
    _post(client_for(opponent), duel, turn=0, loadout_1="mortar", loadout_2="droid")
    drain(duel, emails=False)
    assert duel.state["phase"] == "play"


def test_the_orders_note_is_the_loadouts_only_in_the_loadout_phase(duel, player, opponent):
    html = _page(client_for(player), duel)
    assert LOADOUT_NOTE in html and PLAY_NOTE not in html
    _loadouts(duel, player, opponent)
    seat = engine.awaiting(duel.state)[0]
    mover = player if seat == 1 else opponent
    html = _page(client_for(mover), duel)
    assert PLAY_NOTE in html and 'name="type_0"' in html
    assert "choose two" not in html.lower() and LOADOUT_NOTE not in html


def test_the_panel_gives_every_players_health_resources_and_weapons_once_revealed(
    duel, player, opponent, spectator
):
    _post(client_for(player), duel, turn=0, loadout_1="droid", loadout_2="laser")
    # Seat 1 has chosen; seat 2 not yet: nobody's weapons are in anybody's panel.
    for who in (player, opponent, spectator):
        rows = _robots(_page(client_for(who), duel))
        assert set(rows) == {"1", "2"}
        assert all(cells[-1] == "not known yet" for cells in rows.values()), rows
        assert "droid" not in str(rows)
    _post(client_for(opponent), duel, turn=0, loadout_1="mortar", loadout_2="droid")
    drain(duel, emails=False)
    # Numbers a turn can change: seat 1 hurt and holding resources.
    state = duel.state
    state["players"][0].update(health=64, resources={"rubidium": 3, "explosium": 1, "scrap": 5})
    state["players"][0]["weapons"]["droid"] = 2
    state["players"][1].update(dead=True, health=0)
    duel.state = state
    duel.save(update_fields=["state"])
    from django.core.cache import cache

    cache.clear()
    for who in (player, opponent, spectator):
        rows = _robots(_page(client_for(who), duel))
        assert rows["1"][1:] == ["64", "3", "1", "5", "laser 1, droid 2"], rows
        assert rows["2"][1:] == ["dead", "0", "0", "0", "mortar 1, droid 1"], rows


def test_the_panel_of_a_view_is_drawn_from_that_view_alone():
    start = engine.new_game(seed=3, seats=3, ruleset=SKYPORT)
    html = str(panel.seat_details(engine.view(start, 2)))
    assert html.count('<tr data-seat="') == 3 and '<tr data-seat="2" class="me">' in html
    assert "Every loadout is shown once all seats have chosen." in html


def test_the_history_gives_no_engine_timings(duel, player, opponent):
    _loadouts(duel, player, opponent)
    for who in (player, opponent):
        html = _page(client_for(who), duel)
        history = re.search(r'<section id="history".*?</section>', html, re.S)
        assert history and "The loadouts are revealed" in history.group(0)
        assert not re.search(r"\d\s*ms\b", history.group(0)), history.group(0)[:400]
        poll = client_for(who).get(reverse("games:match-history", args=[duel.pk]))
        assert not re.search(r"\d\s*ms\b", poll.content.decode())


def test_a_map_ringed_by_void_is_cropped_to_its_ground():
    tiles = ["VVVVV", "VSGGV", "VGGRV", "VGGSV", "VVVVV"]
    view = {
        "size": 5,
        "phase": "play",
        "tiles": tiles,
        "resources": {"2,3": 2},
        "players": [],
        "turn": 1,
        "viewer": None,
    }
    svg = str(board.board(view))
    shown = [float(v) for v in re.search(r'viewBox="([^"]+)"', svg).group(1).split()]
    whole = [float(v) for v in re.search(r'data-whole="([^"]+)"', svg).group(1).split()]
    assert re.search(r'data-box="([^"]+)"', svg).group(1) == " ".join(board._num(v) for v in shown)
    # The ground's tiles, (1, 1) to (3, 3), and a little margin around them.
    xs = [board.centre(j, k, 5)[0] for j in range(1, 4) for k in range(1, 4)]
    ys = [board.centre(j, k, 5)[1] for j in range(1, 4) for k in range(1, 4)]
    assert shown[0] <= min(xs) - board.R and shown[0] + shown[2] >= max(xs) + board.R
    assert shown[1] <= min(ys) - board.H and shown[1] + shown[3] >= max(ys) + board.H
    assert shown[2] <= max(xs) - min(xs) + 3 * board.R + 0.2  # one decimal
    assert shown[3] <= max(ys) - min(ys) + 2 * board.H + board.R + 0.2
    assert shown[2] * shown[3] < 0.5 * whole[2] * whole[3]
    ratio = float(re.search(r"--sp-ratio:([\d.]+)", svg).group(1))
    assert abs(ratio - shown[2] / shown[3]) < 0.01


def test_the_coordinates_are_hidden_unless_the_page_asks_for_them():
    svg = str(board.board(engine.view(engine.new_game(seed=1, ruleset=SKYPORT), None)))
    assert "svg.skyport-board .sp-axis{display:none}" in svg
    assert ".sp-coords svg.skyport-board .sp-axis{display:inline}" in svg


def test_the_rules_page_draws_the_six_directions_on_a_compass():
    html = Client().get("/games/skyport/").content.decode()
    compass = re.search(r'<svg class="sp-compass".*?</svg>', html, re.S)
    assert compass
    for name, (dj, dk) in DIRECTIONS.items():
        assert f'class="name">{name}</text>' in compass.group(0)
        assert f'class="step">({dj}, {dk})</text>' in compass.group(0)
    assert compass.group(0).count('class="nb"') == 6


def test_the_rules_pages_example_is_played_by_the_engine_and_told_as_the_history_tells_it():
    steps = diagrams.worked_example()
    assert [s["weapon"] for s in steps] == [None, "laser", "mortar", "droid"]
    # The same turns played here, one by one, give the same sentences.
    state = diagrams.example_state()
    from games.play.skyport import sentences

    for step, (seat, _weapon, action) in zip(steps[1:], diagrams.EXAMPLE_TURNS, strict=True):
        applied = engine.apply(state, {"seat": seat, "turn": state["turn"], "actions": [action]})
        state = applied.state
        assert step["lines"] == sentences.sentences(applied.events)
        assert step["lines"][0].startswith(f"Seat {seat} ")
        assert "sp-mark" in str(step["board"])
    # Each shot was the turn's only action: its damage is the level-1 damage with two
    # actions unused, as the engine's formula gives it.
    laser, mortar, droid = (s["lines"][0] for s in steps[1:])
    assert f"seat 2 took {sk.damage(sk.LASER_DAMAGE[1], 0, 2)}" in laser
    assert f"seat 3 took {sk.damage(sk.MORTAR_DAMAGE[1], 0, 2)}" in mortar
    assert f"seat 1 took {sk.damage(0, sk.DROID_AREA, 2)}" in droid
    html = Client().get("/games/skyport/").content.decode()
    text = _text(html)
    for step in steps[1:]:
        for line in step["lines"]:
            assert line in text
    assert html.count('class="board skyport-board"') >= 4
