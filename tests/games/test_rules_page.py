"""The rules page: written for players, every number read from the engine."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse
from site_support import client_for

from engine.helium3 import api, mapgen, orders, resolve, timing

pytestmark = pytest.mark.django_db


def _rules() -> str:
    response = Client().get(reverse("games:rules"))
    assert response.status_code == 200
    return response.content.decode()


def _item(html: str, action: str) -> str:
    return re.search(rf'<li id="action-{action}">(.*?)</li>', html, re.S).group(1)


def _cells_within(low: int, high: int, radius: int) -> int:
    side = 2 * radius + 1
    return sum(
        1
        for y in range(side)
        for x in range(side)
        if low <= max(abs(x - radius), abs(y - radius)) <= high
    )


def test_each_moving_action_shows_the_engines_range_in_words_and_on_its_diagram():
    html = _rules()
    radius = max([*orders.MOVE_RANGE.values(), orders.MISSILE_RANGE]) + 1
    moving = [a for a, r in orders.MOVE_RANGE.items() if r > 0]
    assert moving == ["move", "mine", "arm_missile", "arm_laser", "shield"]
    for action in moving:
        item = _item(html, action)
        reach = orders.MOVE_RANGE[action]
        assert f"(up to {reach} step" in item
        low = 1 if action == "move" else 0
        assert item.count('class="reach"') == _cells_within(low, reach, radius), action
        assert re.search(r'<svg class="rules-diagram"[^>]*role="img" aria-label="[^"]+"', item)


def test_the_firing_actions_mining_and_the_deflect_have_their_diagrams():
    html = _rules()
    radius = max([*orders.MOVE_RANGE.values(), orders.MISSILE_RANGE]) + 1
    missile = _item(html, "fire_missile")
    assert f"1 to {orders.MISSILE_RANGE} steps" in missile
    assert missile.count('class="target"') == _cells_within(1, orders.MISSILE_RANGE, radius)
    assert _item(html, "fire_laser").count('class="beam"') == 8
    assert _item(html, "kamikaze").count('class="blast"') == 8
    mining = _item(html, "mining")
    assert (
        f">{resolve.MINE_CENTRE}</text>" in mining
        and mining.count(f">{resolve.MINE_AROUND}</text>") == 8
    )
    shields = re.search(r'<section id="shields">(.*?)</section>', html, re.S).group(1)
    assert "deflect" in shields and shields.count('class="beam"') == 1


def test_the_board_the_clock_and_how_to_win_are_told_with_the_engines_numbers():
    html = _rules()
    assert f"{mapgen.WIDTH} × {mapgen.HEIGHT} cells" in html
    assert f"never less than {timing.MIN_TURN_MS // 1000} s" in html
    assert f"lasts {api.DEFAULT_LENGTH_MS // 60_000} minutes of battle time" in html
    for heading in (
        "Your turn",
        "The actions",
        "Hits",
        "Shields and deflects",
        "The clock",
        "How to win",
    ):
        assert f">{heading}</h2>" in html


def test_changing_a_constant_in_the_engine_changes_the_page(monkeypatch):
    before = _item(_rules(), "move")
    monkeypatch.setitem(orders.MOVE_RANGE, "move", 3)
    monkeypatch.setattr(orders, "MISSILE_RANGE", 5)
    monkeypatch.setattr(resolve, "MINE_CENTRE", 444)
    monkeypatch.setattr(timing, "MIN_TURN_MS", 7000)
    html = _rules()
    after = _item(html, "move")
    assert after != before and "(up to 3 steps)" in after
    radius = max([*orders.MOVE_RANGE.values(), orders.MISSILE_RANGE]) + 1
    assert after.count('class="reach"') == _cells_within(1, 3, radius)
    assert "1 to 5 steps" in html and ">444</text>" in html and "never less than 7 s" in html


def test_the_rules_are_linked_from_the_match_legend_the_home_page_and_the_navigation(
    running_match, player
):
    rules = reverse("games:rules")
    match_page = client_for(player).get(reverse("games:match-detail", args=[running_match.pk]))
    legend = re.search(
        r'<details class="legend">(.*?)</details>', match_page.content.decode(), re.S
    )
    assert f'href="{rules}"' in legend.group(1)
    home = Client().get("/").content.decode()
    # The navigation leads to every game's rules: the games page, which links them.
    nav = re.search(r"<nav[^>]*>(.*?)</nav>", home, re.S).group(1)
    assert f'href="{reverse("games:games")}"' in nav
    games = Client().get(reverse("games:games")).content.decode()
    assert f'href="{reverse("games:game-rules", args=["helium3"])}"' in games
    assert f'href="{rules}"' in home.split("</nav>", 1)[1]
