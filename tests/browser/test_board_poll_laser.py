"""A player who sends orders with a laser armed watches the other seat's turn come in: the
page and every poll it makes answer without a server error while the turn is
another seat's, and the laser's hints are back when the turn is the player's again.

The poll used to ask the engine for the laser's hints on a board whose turn had
moved on, and the engine's refusal ("It is seat 3's turn") became a 500."""

from __future__ import annotations

from typing import Any

import pytest
from browser_support import settle_board
from django.conf import settings
from django.test import Client
from game_factories import UserFactory
from playwright.sync_api import Browser, Response, expect
from site_support import drain

from games import services
from games.models import Match, Turn

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_polls_after_sending_with_a_laser_armed_never_answer_500(
    live_server: Any, browser: Browser
) -> None:
    base = live_server.url
    player, opponent = UserFactory(username="laserfan"), UserFactory(username="rival")
    match = services.match_create(creator=player, seat_count=2, turn_seconds=3600)
    services.seat_join(match_id=match.pk, user=opponent)
    services.orders_submit(
        match_id=match.pk, user=player, turn=0, actions=[{"robot": "1-5", "type": "arm_laser"}]
    )
    # The player's turn is resolved and the other seat's waits (a person's, so a
    # worker left running by an earlier test cannot play it): the moment the page's
    # polls met the 500.
    drain(match, emails=False)
    assert Turn.objects.get(match=match, number=1).status == Turn.Status.WAITING

    client = Client()
    client.force_login(player)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME]
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_cookies([{"name": cookie.key, "value": cookie.value, "url": base}])
    page = context.new_page()
    answers: list[tuple[int, str]] = []

    def seen(response: Response) -> None:
        if f"/matches/{match.pk}/" in response.url:
            answers.append((response.status, response.url))

    page.on("response", seen)
    page.goto(f"{base}/matches/{match.pk}/")
    expect(page.locator("#board-wrap svg.board")).to_be_visible()
    # Two rounds of the page's poll (every 3 s) while the other seat's turn waits.
    polls = f"/matches/{match.pk}/poll/"
    with page.expect_response(lambda r: polls in r.url, timeout=10_000):
        pass
    with page.expect_response(lambda r: polls in r.url, timeout=10_000):
        pass
    assert page.locator("#hints").count() == 0, "no hints on another seat's turn"

    # The other seat passes; the poll brings its turn and the player's move, with hints.
    services.orders_submit(match_id=match.pk, user=opponent, turn=1, actions=[])
    drain(match, emails=False)
    match.refresh_from_db()
    assert match.status == Match.Status.RUNNING and match.state["to_move"] == 1
    expect(page.get_by_text("your move")).to_be_visible(timeout=30_000)
    settle_board(page)
    assert page.locator("#hints").count() == 1
    failures = [(status, url) for status, url in answers if status >= 500]
    assert not failures, failures
    assert any(polls in url for _, url in answers)
    context.close()
