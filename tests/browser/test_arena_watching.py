"""A running arena match as a visitor, the other seat and the seat playing its turn
see it in Chromium: the visitor's board is all grey, with no robot and no build in
the history; the other seat hears of the turn only once it ends, as one entry; the
seat that plays sees its steps at once, listed in one entry of the turn. Each page
is photographed (ci-artifacts/screenshots/arena-watching-*.png)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from browser_support import open_context, settle_board
from django.conf import settings
from django.test import Client
from game_factories import UserFactory
from playwright.sync_api import Browser, Page, expect
from site_support import drain

from games import services
from games.models import Match

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def as_user(browser: Browser, user: Any, base: str) -> Page:
    client = Client()
    client.force_login(user)
    context = open_context(browser, viewport={"width": 1280, "height": 900})
    cookie = client.cookies[settings.SESSION_COOKIE_NAME]
    context.add_cookies([{"name": cookie.key, "value": cookie.value, "url": base}])
    return context.new_page()


def _step(match: Match, user: Any, step: dict[str, Any]) -> None:
    match.refresh_from_db()
    assert match.state is not None
    services.orders_submit(
        match_id=match.pk, user=user, turn=match.turn_number,
        orders={"step_no": match.state["step"], "step": step},
    )  # fmt: skip


def test_a_visitor_and_the_other_seat_learn_of_a_turn_when_it_ends(
    live_server: Any, page: Page, screenshot_dir: Path
) -> None:
    ada, bea = UserFactory(username="ada"), UserFactory(username="bea")
    match = services.match_create(
        creator=ada, seat_count=2, turn_seconds=3600, ruleset="arena", options={"rounds": 10}
    )
    services.seat_join(match_id=match.pk, user=bea)
    for user, build in ((ada, ["engine2", "radar2", "gun"]), (bea, ["engine1", "radar1"])):
        services.orders_submit(match_id=match.pk, user=user, turn=0, orders={"build": build})
    drain(match, emails=False)
    _step(match, ada, {"type": "scan"})
    _step(match, ada, {"type": "scan"})
    base = live_server.url
    url = f"{base}/matches/{match.pk}/"
    errors: list[str] = []

    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(url)  # a visitor, not signed in
    settle_board(page)
    board = page.locator("svg.arena-board")
    expect(board.locator("rect.k-unknown")).to_have_count(100)
    expect(board.locator("g.ar-robot")).to_have_count(0)
    history = page.locator("#history")
    expect(history).to_contain_text("The robots are built.")
    expect(history).not_to_contain_text("radar2")
    expect(history.locator("li.turn")).to_have_count(1)  # the build; the turn goes on
    page.screenshot(path=str(screenshot_dir / "arena-watching-visitor.png"), full_page=True)

    ada_page = as_user(page.context.browser, ada, base)  # type: ignore[arg-type]
    ada_page.on("pageerror", lambda error: errors.append(str(error)))
    ada_page.goto(url)
    settle_board(ada_page)
    own = ada_page.locator("#history li.turn").first
    expect(own).to_have_attribute("data-turn", "1")
    expect(own.locator("li")).to_have_count(2)  # its two scans, in one entry
    ada_page.screenshot(path=str(screenshot_dir / "arena-watching-own-turn.png"), full_page=True)

    bea_page = as_user(page.context.browser, bea, base)  # type: ignore[arg-type]
    bea_page.on("pageerror", lambda error: errors.append(str(error)))
    bea_page.goto(url)
    settle_board(bea_page)
    expect(bea_page.locator("#history li.turn")).to_have_count(1)
    _step(match, ada, {"type": "end"})
    # The poll brings the ended turn, as one entry without its steps.
    ended = bea_page.locator('#history li.turn[data-turn="1"]')
    expect(ended).to_have_count(1, timeout=15_000)
    expect(ended).not_to_contain_text("scan")
    bea_page.screenshot(path=str(screenshot_dir / "arena-watching-other-seat.png"), full_page=True)
    assert not errors, errors
