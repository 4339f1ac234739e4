"""The remake's rules page: written for players, every number read from engine/remake
when the page is built, so a changed constant changes the page."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from engine.remake import mapgen, orders, resolve, state

pytestmark = pytest.mark.django_db


def _rules() -> str:
    response = Client().get(reverse("games:game-rules", args=["helium3-remake"]))
    assert response.status_code == 200
    return response.content.decode()


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_the_page_gives_the_engines_numbers():
    text = _text(_rules())
    assert "How to play Helium 3 remake" in text
    assert f"up to {orders.MAX_ACTIONS} actions" in text
    assert f"Move (up to {orders.MOVE_RANGE['move']} steps)" in text
    for kind in ("mine", "arm_missile", "arm_laser", "shield"):
        assert f"(up to {orders.MOVE_RANGE[kind]} steps)" in text
    assert f"Fire missile (1 to {orders.MISSILE_RANGE} steps)" in text
    assert f"{resolve.MINE_PER_CELL} from each of the nine cells" in text
    assert f"{mapgen.MIN_HOTSPOTS} to {mapgen.MAX_HOTSPOTS} hotspots" in text
    assert f"lays {mapgen.GRAINS * mapgen.GRAIN} helium in grains of {mapgen.GRAIN}" in text
    assert f"lasts {state.DEFAULT_ROUNDS} rounds" in text
    assert f"between {state.MIN_ROUNDS} and {state.MAX_ROUNDS}" in text
    assert (
        "Deflect (a direction)" in text and "Kamikaze (its own cell and the eight around)" in text
    )


def test_the_page_follows_the_engine_when_a_constant_changes(monkeypatch):
    monkeypatch.setitem(orders.MOVE_RANGE, "move", 6)
    monkeypatch.setattr(orders, "MISSILE_RANGE", 9)
    monkeypatch.setattr(orders, "MAX_ACTIONS", 4)
    monkeypatch.setattr(resolve, "MINE_PER_CELL", 150)
    monkeypatch.setattr(state, "DEFAULT_ROUNDS", 30)
    monkeypatch.setattr(mapgen, "MAX_HOTSPOTS", 12)
    text = _text(_rules())
    assert "Move (up to 6 steps)" in text
    assert "Fire missile (1 to 9 steps)" in text
    assert "up to 4 actions" in text
    assert "150 from each of the nine cells" in text
    assert "lasts 30 rounds" in text
    assert "to 12 hotspots" in text


def test_the_diagrams_shade_the_engines_reach():
    html = _rules()
    move = re.search(r'<li id="action-move">(.*?)</li>', html, re.S).group(1)
    reach = orders.MOVE_RANGE["move"]
    # Every cell 1..reach king steps from the centre is shaded, on an empty board.
    assert move.count('class="reach"') == (2 * reach + 1) ** 2 - 1
    missile = re.search(r'<li id="action-fire_missile">(.*?)</li>', html, re.S).group(1)
    assert missile.count('class="target"') == (2 * orders.MISSILE_RANGE + 1) ** 2 - 1


def test_an_unknown_game_has_no_rules_page():
    assert Client().get(reverse("games:game-rules", args=["no-such-game"])).status_code == 404
