"""The order form works without JavaScript: a plain form, the engine's refusal
next to the action with the orders kept, and the board drawn by the server."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from games.forms import bot_label

pytestmark = [pytest.mark.worker, pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def reload_until(page: Page, text: str, timeout: float = 30.0) -> None:
    """Without JavaScript nothing polls: a person reloads until the turn is resolved."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            expect(page.get_by_text(text).first).to_be_visible(timeout=1_000)
            return
        except AssertionError:
            assert time.monotonic() < deadline, f"{text!r} never appeared"
            page.reload()


def test_a_player_without_javascript_plays_with_the_plain_form(
    live_server: Any, celery_worker: Any, browser: Browser, screenshot_dir: Path
) -> None:
    from game_factories import PASSWORD, UserFactory

    UserFactory(username="plainform")
    context = browser.new_context(
        java_script_enabled=False, viewport={"width": 1024, "height": 900}
    )
    page = context.new_page()
    base = live_server.url
    page.goto(f"{base}/accounts/login/")
    page.get_by_label("Login:").fill("plainform")
    page.get_by_label("Password:").fill(PASSWORD)
    page.get_by_role("button", name="Sign In").click()
    page.get_by_role("link", name="Create a match").click()
    page.get_by_label("Seats").select_option("4")
    page.get_by_label("Time per turn").select_option(label="1 minute")
    page.get_by_label("Battle length (minutes)").fill("0.5")
    for name in ("Second seat", "Third seat", "Fourth seat"):
        page.get_by_label(name).select_option(label=bot_label("random"))
    page.get_by_role("button", name=re.compile("Create")).click()
    expect(page.get_by_text("your move")).to_be_visible()
    expect(page.locator("#planner")).to_be_hidden()  # the board planner needs the script
    first = page.locator("fieldset.action").first

    # An order the engine refuses: the reason stands next to the action, the orders stay.
    first.get_by_label("Robot:").select_option("1-1")
    first.get_by_label("Action:").select_option("move")
    first.get_by_label("x:").fill("15")
    first.get_by_label("y:").fill("5")
    page.get_by_role("button", name="Send orders").click()
    expect(first.locator(".action-error")).to_have_text(
        "A move moves at most 6 cells; [15, 5] is 13 away."
    )
    expect(first.get_by_label("Robot:")).to_have_value("1-1")
    expect(first.get_by_label("x:")).to_have_value("15")

    # Corrected, it is accepted and the worker resolves it with the bots' turns.
    first.get_by_label("x:").fill("2")
    page.get_by_role("button", name="Send orders").click()
    expect(page.get_by_text("Orders accepted.")).to_be_visible()
    reload_until(page, "Robot 1-1 moved 5 cells to (2, 5).")
    expect(page.locator('svg.board g.rb[data-id="1-1"]')).to_have_attribute("data-y", "5")
    page.screenshot(path=str(screenshot_dir / "board-no-javascript.png"), full_page=True)
    context.close()
