"""A guest who signs up stays in its match: it plays a few turns of Helium 3 against
bots, signs up, is still the match's seat while the email waits, confirms the address
from the mail and lands back in the match. The account pages wear the site's look."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest
from browser_support import open_context, settle_board
from django.core import mail
from playwright.sync_api import Browser, Page, expect

from games.models import Match

pytestmark = [pytest.mark.worker, pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "moon-dust-and-helium-3"
SIZES = {"laptop": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}


def shoot(page: Page, folder: Path, name: str) -> None:
    page.screenshot(path=str(folder / f"guest-signup-{name}.png"), full_page=True)


def play_a_turn(page: Page, match_id: int) -> None:
    """Send the turn's orders (none: the robots wait) and wait for the bots' answer."""
    # The bots play their seats' turns one after another: wait for this seat's move.
    expect(page.locator("#panel .your-move")).to_be_visible(timeout=60_000)
    settle_board(page)
    expect(page.locator("#panel .your-move")).to_be_visible()
    turn = Match.objects.get(pk=match_id).turn_number
    page.locator("button.send:visible").first.click()
    end = time.monotonic() + 60
    while Match.objects.get(pk=match_id).turn_number <= turn:
        assert time.monotonic() < end, f"match {match_id} stayed at turn {turn}"
        time.sleep(0.1)
    settle_board(page)


@pytest.mark.slow
def test_a_guest_signs_up_stays_in_its_match_and_comes_back_to_it_after_confirming(
    live_server: Any, celery_worker: Any, browser: Browser, screenshot_dir: Path
) -> None:
    base = live_server.url
    context = open_context(browser, viewport=SIZES["laptop"], color_scheme="light")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{base}/")
    page.get_by_role("button", name="Play now", exact=True).click()
    expect(page.locator("#panel .your-move")).to_be_visible()
    match_url = re.sub(r"\?.*$", "", page.url)
    match_id = int(re.search(r"/matches/(\d+)/", match_url).group(1))  # type: ignore[union-attr]
    for _ in range(3):
        play_a_turn(page, match_id)
    played = Match.objects.get(pk=match_id).turn_number
    assert played >= 3
    # A guest's menu has no settings a guest cannot use.
    page.locator(".user-menu summary").click()
    menu = page.locator(".user-menu ul")
    expect(menu.get_by_role("link", name="Sign up to keep your matches")).to_be_visible()
    for unusable in ("Settings", "API tokens", "Email", "Password"):
        expect(menu.get_by_role("link", name=unusable, exact=True)).to_have_count(0)
    shoot(page, screenshot_dir, "guest-menu-laptop-light")
    page.locator(".user-menu summary").click()

    page.get_by_role("link", name="sign up to keep your matches").click()
    expect(page.get_by_role("heading", name="Sign up and keep your matches")).to_be_visible()
    shoot(page, screenshot_dir, "form-laptop-light")
    page.get_by_label("Email").fill("stella@example.com")
    page.get_by_label("Username").fill("stella")
    page.get_by_label("Password:", exact=True).fill(PASSWORD)
    page.get_by_label("Password (again):", exact=True).fill(PASSWORD)
    page.get_by_role("button", name="Sign up").click()

    # Back in the match, signed in as the new account, still its seat, told about the mail.
    expect(page).to_have_url(match_url)
    expect(page.get_by_text("Open the link in that email to confirm the address.")).to_be_visible()
    expect(page.locator(".user-menu .who")).to_have_text("stella")
    expect(page.get_by_text("You play seat 1.")).to_be_visible()
    expect(page.get_by_text("You are playing as a guest")).to_have_count(0)
    shoot(page, screenshot_dir, "back-in-the-match-laptop-light")
    # Unconfirmed, it still plays its turns.
    play_a_turn(page, match_id)
    assert Match.objects.get(pk=match_id).turn_number > played

    # The confirmation goes out by the worker's email queue: wait for it to be sent.
    deadline = time.monotonic() + 30
    while not any("stella@example.com" in m.to for m in mail.outbox):
        assert time.monotonic() < deadline, "no confirmation email was sent"
        time.sleep(0.1)
    message = next(m for m in reversed(mail.outbox) if "stella@example.com" in m.to)
    link = re.search(r"https?://\S+/accounts/confirm-email/\S+", message.body)
    assert link, message.body
    page.goto(re.sub(r"^https?://[^/]+", base, link.group(0)))
    shoot(page, screenshot_dir, "confirm-laptop-light")
    page.get_by_role("button", name="Confirm").click()
    expect(page).to_have_url(match_url)
    expect(page.get_by_text("You play seat 1.")).to_be_visible()
    expect(page.locator(".user-menu .who")).to_have_text("stella")
    # The bots may still be answering the turn played above, and the page playing
    # their turns (under load, longer than expect's five seconds): wait for the move.
    expect(page.locator("#panel .your-move")).to_be_visible(timeout=60_000)
    settle_board(page)
    expect(page.locator("#panel .your-move")).to_be_visible()
    assert errors == []
    context.close()


ACCOUNT_PAGES = {
    "login": "/accounts/login/",
    "signup": "/accounts/signup/",
    "password-reset": "/accounts/password/reset/",
}


def test_the_account_pages_wear_the_sites_look_in_both_themes_on_laptop_and_phone(
    live_server: Any, browser: Browser, screenshot_dir: Path
) -> None:
    for size, viewport in SIZES.items():
        for theme in ("light", "dark"):
            context = open_context(browser, viewport=viewport, color_scheme=theme)
            page = context.new_page()
            for name, path in ACCOUNT_PAGES.items():
                page.goto(f"{live_server.url}{path}")
                # The site's own header and footer around allauth's form.
                expect(page.locator("header.site-header .brand")).to_be_visible()
                expect(page.locator("footer")).to_be_visible()
                expect(page.locator("main form").first).to_be_visible()
                page.screenshot(
                    path=str(screenshot_dir / f"account-{name}-{size}-{theme}.png"), full_page=True
                )
            context.close()
