"""The end of a match in the browser: the results, the clock that ran past the end
(as the page's script writes it too), each player's place in the lobby and the
archive, a new match and a rematch, on a laptop and a phone."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest
from browser_support import open_context
from playwright.sync_api import Browser, Page, expect

from games.models import Match

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "games"))
from test_results import final_state, finished_match  # noqa: E402

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def log_in(page: Page, base: str, username: str) -> None:
    from game_factories import PASSWORD

    page.goto(f"{base}/accounts/login/")
    page.get_by_label("Login:").fill(username)
    page.get_by_label("Password:").fill(PASSWORD)
    page.get_by_role("button", name="Sign In").click()
    expect(page.get_by_text(f"Successfully signed in as {username}.")).to_be_visible()


def check_the_lists(page: Page, base: str, match: Match, result: str) -> None:
    """The lobby's finished matches and the archive give the player's own result."""
    page.goto(f"{base}/")
    card = page.locator("section", has=page.locator("#done-h"))
    expect(card.locator(".result")).to_have_text(result)
    page.goto(f"{base}/archive/")
    row = page.locator(
        "table.archive tbody tr", has=page.locator(f'a[href="/matches/{match.pk}/"]')
    )
    expect(row.locator('td[data-label="Result"]')).to_have_text(result)


def test_a_player_reads_the_results_and_asks_for_a_rematch(
    live_server: Any, page: Page, browser: Browser, screenshot_dir: Path
) -> None:
    from game_factories import UserFactory

    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    state = final_state({1: 300, 2: 1240, 3: 980, 4: 50}, {1: 2, 2: 1, 3: 4, 4: 5}, [2])
    match = finished_match(
        state, {1: alice, 2: bob, 3: "miner", 4: "random"}, destroyed={2: 3}, turn_seconds=600
    )
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_viewport_size({"width": 1280, "height": 900})
    log_in(page, live_server.url, "alice")
    # Each player is told their own place where their matches are listed.
    check_the_lists(page, live_server.url, match, "You came 3rd")
    other = open_context(browser, viewport={"width": 1280, "height": 900})
    bobs = other.new_page()
    log_in(bobs, live_server.url, "bob")
    check_the_lists(bobs, live_server.url, match, "You won")
    other.close()

    page.goto(f"{live_server.url}/matches/{match.pk}/")

    results = page.locator("section.results")
    expect(results.get_by_text("You came 3rd.")).to_be_visible()
    expect(results).to_contain_text(
        "Seat 2 (bob) won on money: 1,240 to 980 when the battle clock ran out."
    )
    expect(results.locator("tbody tr")).to_have_count(4)
    expect(results.locator("tbody tr").first).to_contain_text("1st")
    # The script rewrites the clock once the board is drawn: it keeps the wording.
    page.wait_for_timeout(500)
    expect(page.locator("#clock-text")).to_have_text(
        "10:00 of 10:00 · the last turn ran 0:04 past the end"
    )
    page.screenshot(path=str(screenshot_dir / "match-end-laptop.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=str(screenshot_dir / "match-end-phone.png"), full_page=True)

    page.get_by_role("button", name="Rematch").click()
    rematch = Match.objects.exclude(pk=match.pk).get()
    expect(page).to_have_url(f"{live_server.url}/matches/{rematch.pk}/")
    expect(page.get_by_text("You play seat 1.")).to_be_visible()
    expect(page.get_by_text("it starts when the other players' seats are taken")).to_be_visible()

    # A new match from the results: the form, then the match it makes.
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{live_server.url}/matches/{match.pk}/")
    page.get_by_role("button", name="New match").click()
    expect(page).to_have_url(re.compile(r"/matches/new/"))
    page.get_by_role("button", name="Create the match").click()
    created = Match.objects.exclude(pk__in=[match.pk, rematch.pk]).get()
    expect(page).to_have_url(f"{live_server.url}/matches/{created.pk}/")
    expect(page.get_by_text("You play seat 1.")).to_be_visible()
    assert errors == []
