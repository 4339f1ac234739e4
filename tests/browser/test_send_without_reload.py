"""Sending orders keeps the page: it is not loaded again, stays where it was
scrolled, says the orders are in until their turn is resolved, then plays that
turn as a movie; a refusal shows beside the planner and the plan stays drawn."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from browser_support import settle_board, sign_in
from playwright.sync_api import Page, expect

pytestmark = [pytest.mark.worker, pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ACCEPTED = "Orders accepted. The turn is being resolved."
LAPTOP = {"width": 1280, "height": 720}


def log_in_and_start(page: Page, base: str, username: str) -> Any:
    from game_factories import UserFactory

    from games import services

    player = UserFactory(username=username)
    match = services.match_create(creator=player, seat_count=2, turn_seconds=3600, bots=["random"])
    sign_in(page, base, username)
    page.goto(f"{base}/matches/{match.pk}/")
    expect(page.get_by_text("your move")).to_be_visible()
    return match


def plan_a_move(page: Page, robot_id: str) -> str:
    page.locator(f'#board-wrap svg.board g.rb[data-id="{robot_id}"]').click()
    page.get_by_role("button", name="Move (6)").click()
    target = page.locator("#board-wrap .hl rect").last
    x, y = target.get_attribute("data-x"), target.get_attribute("data-y")
    target.click()
    said = f"Robot {robot_id}: move to ({x}, {y})."
    expect(page.get_by_text(said)).to_be_visible()
    return said


def scroll_to(page: Page, y: int) -> None:
    page.evaluate(f"() => window.scrollTo(0, {y})")
    page.wait_for_function(f"() => Math.round(window.scrollY) === {y}")


def test_send_keeps_the_page_and_its_scroll_and_the_note_goes_once_the_turn_is_resolved(
    live_server: Any, celery_worker: Any, page: Page
) -> None:
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_viewport_size(LAPTOP)
    match = log_in_and_start(page, live_server.url, "sender")
    plan_a_move(page, "1-5")
    scroll_to(page, 160)
    # A mark on the window: a page loaded again would not have it.
    page.evaluate("() => { window.sameDocument = true; }")
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)

    page.locator("#bar-send").click()

    # The bot plays, the turn resolves and the page comes back to "your move".
    expect(page.locator("#board-wrap svg.board")).to_have_attribute(
        "data-turn", "2", timeout=30_000
    )
    settle_board(page)
    expect(page.locator("#panel")).to_contain_text("your move")
    assert page.evaluate("() => window.sameDocument === true"), "the page was loaded again"
    assert round(page.evaluate("() => window.scrollY")) == 160
    assert posts == [f"{live_server.url}/matches/{match.pk}/orders/"]
    # The note said the orders were in; the turn is resolved now, so it is gone.
    expect(page.get_by_text(ACCEPTED)).to_have_count(0)
    # The robot stands where it was sent, and the next plan can begin.
    page.locator('#board-wrap svg.board g.rb[data-id="1-5"]').click()
    expect(page.get_by_role("button", name="Move (6)")).to_be_visible()
    assert not errors, errors


def test_the_note_stays_while_the_turn_is_resolved_and_goes_with_its_movie(
    live_server: Any, celery_worker: Any, page: Page, screenshot_dir: Path
) -> None:
    from games.models import Match

    match = log_in_and_start(page, live_server.url, "waiter")
    plan_a_move(page, "1-5")
    # While the bot plays, the poll answers "nothing changed" (a 304): the note
    # shows beside the planner meanwhile, and goes once the turn has played.
    hold = {"on": True}

    def poll(route: Any) -> None:
        if hold["on"]:
            route.fulfill(status=304)
        else:
            route.continue_()

    page.route(f"**/matches/{match.pk}/poll/**", poll)
    page.locator("#bar-send").click()
    note = page.locator("#board-bar").get_by_text(ACCEPTED)
    expect(note).to_be_visible()
    for _ in range(100):
        if Match.objects.get(pk=match.pk).turn_number >= 2:
            break
        page.wait_for_timeout(100)
    page.wait_for_timeout(500)
    expect(note).to_be_visible()
    page.screenshot(path=str(screenshot_dir / "send-orders-accepted-laptop.png"))
    # The note is told by a live region and is an item of a list that is a list.
    from test_accessibility import axe_violations

    only = {"type": "rule", "values": ["list", "listitem", "aria-allowed-role"]}
    assert not axe_violations(page, only)
    expect(page.locator("[role=status]").filter(has_text=ACCEPTED)).to_have_count(1)
    hold["on"] = False
    # The movie of the two turns plays; the note goes when the board has shown them.
    page.wait_for_function(
        "() => (document.querySelector('#caption') || {}).dataset.turn !== undefined",
        timeout=30_000,
    )
    expect(note).to_be_visible()
    expect(page.locator("#board-wrap svg.board")).to_have_attribute(
        "data-turn", "2", timeout=30_000
    )
    expect(note).to_have_count(0)
    expect(page.locator("#panel")).to_contain_text("your move")


def test_a_refusal_shows_beside_the_planner_and_the_plan_stays(
    live_server: Any, celery_worker: Any, page: Page, screenshot_dir: Path
) -> None:
    log_in_and_start(page, live_server.url, "refused")
    said = plan_a_move(page, "1-5")
    page.evaluate("() => { window.sameDocument = true; }")
    # Orders for a turn that is not the match's (a page left open too long): refused.
    page.evaluate("() => { document.querySelector('#orders-form [name=turn]').value = '7'; }")
    page.locator("#bar-send").click()
    refusal = page.locator("#board-bar .send-error")
    expect(refusal).to_be_visible()
    page.screenshot(path=str(screenshot_dir / "send-orders-refused-laptop.png"))
    expect(refusal).not_to_be_empty()
    assert page.evaluate("() => window.sameDocument === true")
    expect(page.get_by_text(said)).to_be_visible()
    expect(page.locator("#bar-send")).to_be_enabled()
    expect(page.get_by_text(ACCEPTED)).to_have_count(0)
    # Sent again for the right turn, it is accepted and the refusal goes.
    page.evaluate("() => { document.querySelector('#orders-form [name=turn]').value = '0'; }")
    page.locator("#bar-send").click()
    expect(refusal).to_have_count(0)
    expect(page.locator("#panel")).to_contain_text("your move", timeout=30_000)
