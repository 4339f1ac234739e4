"""The board's planner beyond a single move: two robots' orders planned on the
board in one turn (the second on the board the first leaves), the Tab key through
the highlighted cells, a past turn replayed from the history and the playback
speed kept for the next visit."""

from __future__ import annotations

import re
from typing import Any

import pytest
from browser_support import sending_orders, settle_board, sign_in
from playwright.sync_api import Page, expect

pytestmark = [pytest.mark.worker, pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def log_in_and_start(page: Page, base: str) -> Any:
    from game_factories import UserFactory

    from games import services

    player = UserFactory(username="planner")
    match = services.match_create(creator=player, seat_count=2, turn_seconds=3600, bots=["random"])
    sign_in(page, base, "planner")
    page.goto(f"{base}/matches/{match.pk}/")
    expect(page.get_by_text("your move")).to_be_visible()
    return match


def robot(page: Page, robot_id: str) -> Any:
    return page.locator(f'#board-wrap svg.board g.rb[data-id="{robot_id}"]')


def plan_a_move(page: Page, robot_id: str) -> tuple[int, int]:
    """Plan a move of `robot_id` to the last highlighted cell, reached with Tab."""
    robot(page, robot_id).click()
    page.get_by_role("button", name="Move (6)").click()
    cells = page.locator("#board-wrap .hl rect")
    # A click chooses no cell: Tab goes on to the first lit one.
    expect(cells.first).not_to_be_focused()
    page.keyboard.press("Tab")
    expect(cells.first).to_be_focused()
    count = cells.count()
    assert count > 1
    for _ in range(count - 1):  # Tab walks the highlighted cells in order
        page.keyboard.press("Tab")
    target = cells.nth(count - 1)
    expect(target).to_be_focused()
    to = (int(target.get_attribute("data-x")), int(target.get_attribute("data-y")))
    page.keyboard.press("Enter")
    return to


def test_two_robots_planned_on_the_board_a_past_turn_replayed_and_the_speed_kept(
    live_server: Any, celery_worker: Any, page: Page
) -> None:
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    log_in_and_start(page, live_server.url)

    first = plan_a_move(page, "1-5")
    expect(page.get_by_text(f"Robot 1-5: move to ({first[0]}, {first[1]}).")).to_be_visible()
    # The second robot's cells come from the board the first move leaves: the
    # first robot's new cell is no longer free, its old one is.
    second = plan_a_move(page, "1-4")
    assert second != first
    expect(page.get_by_text(f"Robot 1-4: move to ({second[0]}, {second[1]}).")).to_be_visible()
    with sending_orders(page):
        page.get_by_role("button", name="Send orders").click()

    # The bot's turn plays out; then both robots stand where they were sent.
    expect(page.locator("#panel .your-move")).to_be_visible(timeout=30_000)
    settle_board(page)
    expect(robot(page, "1-5")).to_have_attribute("data-x", str(first[0]))
    expect(robot(page, "1-5")).to_have_attribute("data-y", str(first[1]))
    expect(robot(page, "1-4")).to_have_attribute("data-x", str(second[0]))
    expect(robot(page, "1-4")).to_have_attribute("data-y", str(second[1]))
    expect(page.locator("#history")).to_contain_text("Robot 1-4 moved")

    # A past turn replayed from the history: the board goes back to it, then returns.
    page.get_by_label("Speed").select_option("2")
    page.get_by_role("button", name=re.compile(r"Replay\s*turn 0")).click()
    expect(page.locator("#caption")).to_contain_text("Turn 0", timeout=10_000)
    expect(page.locator("#caption")).to_have_text("Back to the board as it is now.", timeout=30_000)
    expect(robot(page, "1-5")).to_have_attribute("data-x", str(first[0]))

    # The speed is the browser's choice: it stays for the next visit.
    page.reload()
    expect(page.get_by_label("Speed")).to_have_value("2")

    # On a phone the board fits the screen's width: no sideways scrolling, and a
    # robot can still be picked on it.
    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    widths = page.evaluate(
        "() => [document.documentElement.scrollWidth, window.innerWidth,"
        " document.querySelector('#board-wrap svg.board').getBoundingClientRect().right]"
    )
    wide = page.evaluate(
        "() => [...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > window.innerWidth + 1)"
        ".slice(0, 8).map(e => e.tagName + '#' + e.id + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right))"
    )
    assert widths[0] <= widths[1] and widths[2] <= widths[1], (widths, wide)
    robot(page, "1-3").click()
    expect(page.get_by_role("button", name="Move (6)")).to_be_visible()
    for path in ("/", "/archive/", "/settings/notifications/", "/settings/tokens/"):
        page.goto(live_server.url + path)
        scroll, inner = page.evaluate(
            "() => [document.documentElement.scrollWidth, window.innerWidth]"
        )
        assert scroll <= inner, (path, scroll, inner)
    assert not errors, errors
