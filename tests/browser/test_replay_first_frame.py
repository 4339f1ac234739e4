"""The replay's first frame is the board before anybody acted: a robot whose action
starts the first turn is drawn inactive until that action has begun."""

from __future__ import annotations

import re
from typing import Any

import pytest
from game_factories import UserFactory
from playwright.sync_api import Page, expect
from site_support import drain

from games import services
from games.models import Match

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

IDLE = re.compile(r"\bidle\b")


def finished_match_opened_by_1_5() -> Match:
    """Two people; robot 1-5 mines in place at the very start of turn 0 (its event
    at 0 ms), then both pass until the battle clock runs out."""
    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    match = services.match_create(creator=alice, seat_count=2, length_ms=30_000)
    services.seat_join(match_id=match.pk, user=bob)
    for _ in range(100):
        match.refresh_from_db()
        if match.status == Match.Status.FINISHED:
            return match
        user = alice if match.to_move == 1 else bob
        actions = [{"robot": "1-5", "type": "mine"}] if match.turn_number == 0 else []
        services.orders_submit(
            match_id=match.pk, user=user, turn=match.turn_number, actions=actions
        )
        drain(match, emails=False)
    raise AssertionError("the match did not finish")


def robot(page: Page, robot_id: str) -> Any:
    return page.locator(f'svg.board g.rb[data-id="{robot_id}"]')


def test_the_replays_first_frame_shows_every_robot_inactive_before_it_acts(
    live_server: Any, page: Page
) -> None:
    match = finished_match_opened_by_1_5()
    first = match.resolutions.get(turn_number=0).events
    assert first[0]["robot"] == "1-5" and first[0]["t_ms"] == 0
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{live_server.url}/matches/{match.pk}/replay/")
    expect(page.locator("#replay[data-ready='1']")).to_be_attached()
    expect(page.locator("#caption")).to_contain_text("Turn 0 of")
    assert page.locator("#scrub").input_value() == "0"
    for n in range(1, 6):
        expect(robot(page, f"1-{n}")).to_have_class(IDLE)
    # Once its action has begun (and after), 1-5 is active; the others still idle.
    scrub = page.get_by_label("Battle clock")
    scrub.evaluate("el => { el.value = 100; el.dispatchEvent(new Event('input')); }")
    expect(robot(page, "1-5")).not_to_have_class(IDLE)
    expect(robot(page, "1-4")).to_have_class(IDLE)
    page.get_by_role("button", name="Next turn").click()
    expect(page.locator("#caption")).to_contain_text("Turn 1 of")
    expect(robot(page, "1-5")).not_to_have_class(IDLE)
    assert not errors, errors
