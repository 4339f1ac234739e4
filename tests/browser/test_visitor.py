"""A visitor's first minute in the system Chromium: the home page's live match,
"Play now" as a guest up to a first turn sent, then signing up to keep it."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest
from browser_support import settle_board
from django.core import mail
from playwright.sync_api import Page, expect

from games.guests.models import Showcase
from games.guests.showcase import showcase_step

pytestmark = [pytest.mark.worker, pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "moon-dust-and-helium-3"
LAPTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


def shoot(page: Page, folder: Path, name: str) -> None:
    page.screenshot(path=str(folder / f"{name}.png"), full_page=True)


def test_a_guest_plays_a_first_turn_within_a_minute_then_signs_up_and_keeps_the_match(
    live_server: Any, celery_worker: Any, page: Page
) -> None:
    base = live_server.url
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_viewport_size(LAPTOP)
    started = time.monotonic()
    page.goto(f"{base}/")
    expect(page.get_by_role("heading", name="Robot Turns", exact=True, level=1)).to_be_visible()
    expect(page.locator("#board-wrap svg.board")).to_be_visible()
    page.get_by_role("button", name="Play now", exact=True).click()

    # The match page, the guest's move first: one robot walks, on the board.
    expect(page.locator("#panel .your-move")).to_be_visible()
    expect(page.get_by_text("You are playing as a guest")).to_be_visible()
    settle_board(page)
    page.locator('svg.board g.rb[data-id="1-5"]').click()
    page.get_by_role("button", name=re.compile(r"^Move \(\d+\)$")).click()
    cells = page.locator("svg.board .hl rect")
    expect(cells.first).to_be_visible()
    cells.last.click()
    expect(page.get_by_text(re.compile(r"Robot 1-5: move to \(\d+, \d+\)\."))).to_be_visible()
    page.get_by_role("button", name="Send orders").click()
    expect(page.get_by_text("Orders accepted")).to_be_visible()
    elapsed = time.monotonic() - started
    assert elapsed < 60, f"the first turn took {elapsed:.1f} s"
    match_url = re.sub(r"\?.*$", "", page.url)

    # The guest signs up from the banner: the same account, the match kept.
    page.get_by_role("link", name="sign up to keep your matches").click()
    expect(page.get_by_role("heading", name="Sign up and keep your matches")).to_be_visible()
    page.get_by_label("Email").fill("stella@example.com")
    page.get_by_label("Username").fill("stella")
    page.get_by_label("Password:", exact=True).fill(PASSWORD)
    page.get_by_label("Password (again):", exact=True).fill(PASSWORD)
    page.get_by_role("button", name="Sign up").click()
    # Back in the match, signed in, told to confirm the address from the email.
    expect(page).to_have_url(match_url)
    expect(page.get_by_text("Confirmation email sent to stella@example.com.")).to_be_visible()
    message = next(m for m in reversed(mail.outbox) if "stella@example.com" in m.to)
    link = re.search(r"https?://\S+/accounts/confirm-email/\S+", message.body)
    assert link, message.body
    page.goto(re.sub(r"^https?://[^/]+", base, link.group(0)))
    page.get_by_role("button", name="Confirm").click()
    expect(page).to_have_url(match_url)
    page.goto(f"{base}/")
    # The match waits for its move: the lobby lists it first.
    expect(page.get_by_role("heading", name="Your move")).to_be_visible()
    path = match_url.removeprefix(base)
    mine = page.locator("h2:has-text('Your move') + *")
    expect(mine.locator(f'a[href="{path}"]').first).to_be_visible()
    expect(page.get_by_text("You are playing as a guest")).to_have_count(0)
    assert errors == []


def test_the_home_page_animates_the_showcase_as_its_bots_play_and_the_pages_look_right(
    live_server: Any, celery_worker: Any, page: Page, screenshot_dir: Path
) -> None:
    base = live_server.url
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_viewport_size(LAPTOP)
    page.goto(f"{base}/")
    expect(page.locator("#board-wrap svg.board")).to_have_attribute("data-turn", "0")
    shoot(page, screenshot_dir, "home-laptop")
    # The bots' first turn (celery beat runs this step in production); the worker
    # resolves it and the page's poll brings the movie, which plays on the board.
    assert Showcase.objects.filter(live=True).exists()
    assert showcase_step()
    expect(page.locator("#caption")).to_contain_text("Turn 0", timeout=20_000)
    settle_board(page)
    expect(page.locator("#board-wrap svg.board")).to_have_attribute("data-turn", "1")
    page.set_viewport_size(PHONE)
    page.goto(f"{base}/")
    shoot(page, screenshot_dir, "home-phone")

    page.goto(f"{base}/rules/")
    expect(page.get_by_role("heading", name="How to play Helium 3")).to_be_visible()
    expect(page.locator("svg.rules-diagram").first).to_be_visible()
    shoot(page, screenshot_dir, "rules-phone")
    page.set_viewport_size(LAPTOP)
    page.reload()
    shoot(page, screenshot_dir, "rules-laptop")
    # And in the dark theme (the system's choice).
    page.emulate_media(color_scheme="dark")
    shoot(page, screenshot_dir, "rules-dark-laptop")
    page.goto(f"{base}/")
    shoot(page, screenshot_dir, "home-dark-laptop")
    page.set_viewport_size(PHONE)
    shoot(page, screenshot_dir, "home-dark-phone")
    page.goto(f"{base}/rules/")
    shoot(page, screenshot_dir, "rules-dark-phone")
    assert errors == []
