"""The arena's table of players says what the viewer's view says of each seat: a
seat not seen has "?" for its score (never a 0 that reads as destroyed) and, as
every viewer knows which seats are still in, "alive" or "out" for its robot."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest
from django.test import Client
from game_factories import UserFactory
from site_support import client_for, drain

from games import services
from games.models import Match

pytestmark = pytest.mark.django_db


def _cells(html: str, seat: int) -> tuple[str, str]:
    row = re.search(rf'<tr[^>]*data-seat="{seat}">(.*?)</tr>', html, re.S)
    assert row, f"no row for seat {seat}"
    money = re.search(r'<td class="num money">(.*?)</td>', row.group(1), re.S)
    robots = re.search(r'<td class="num robots">(.*?)</td>', row.group(1), re.S)
    assert money and robots
    return money.group(1).strip(), robots.group(1).strip()


def _running_with_seat_3_out() -> tuple[Match, list[Any]]:
    people = [UserFactory(username=name) for name in ("ada", "bea", "cyd")]
    match = services.match_create(
        creator=people[0], seat_count=3, turn_seconds=3600, ruleset="arena", options={"rounds": 20}
    )
    for other in people[1:]:
        services.seat_join(match_id=match.pk, user=other)
    for user, parts in zip(
        people, (["engine2", "radar2", "gun"], ["engine1", "gun"], ["engine1", "gun"]), strict=True
    ):
        services.orders_submit(match_id=match.pk, user=user, turn=0, orders={"build": parts})
    drain(match, emails=False)
    match.refresh_from_db()
    assert match.status == Match.Status.RUNNING and match.state["phase"] == "play"
    # Seat 3's robot was destroyed (every seat perceives a destruction): it is out.
    state = copy.deepcopy(match.state)
    robot = next(r for r in state["robots"] if r["seat"] == 3)
    robot["alive"], robot["health"] = False, 0
    Match.objects.filter(pk=match.pk).update(state=state)
    return match, people


def test_a_spectator_sees_each_seat_alive_or_out_and_no_score() -> None:
    match, _ = _running_with_seat_3_out()
    html = Client().get(f"/matches/{match.pk}/").content.decode()
    assert _cells(html, 1) == ("?", "alive")
    assert _cells(html, 2) == ("?", "alive")
    assert _cells(html, 3) == ("?", "out")


def test_a_seat_sees_its_own_score_and_robot_and_the_others_alive_or_out() -> None:
    match, people = _running_with_seat_3_out()
    html = client_for(people[1]).get(f"/matches/{match.pk}/").content.decode()
    own = _cells(html, 2)
    assert own == (str(match.state["scores"]["2"]), "1")
    assert _cells(html, 1) == ("?", "alive")
    assert _cells(html, 3) == ("?", "out")
