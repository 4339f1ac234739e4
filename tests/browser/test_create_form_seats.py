"""The create form in a real browser: exactly as many seat choices as seats chosen,
following the Seats field as it changes (Halite's up to the sixth, Skyport's up to
the eighth), and a bot left in a seat that the count then hid is not sent (the match
is made with the bots of the seats in sight). Photographed as
ci-artifacts/screenshots/create-seats-*.png."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from browser_support import open_context
from django.conf import settings
from django.test import Client
from game_factories import UserFactory
from playwright.sync_api import Browser, Page, expect

from games.forms import SEAT_NAMES, bot_label
from games.models import Match

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def signed_in(browser: Browser, user: Any, base: str) -> Page:
    client = Client()
    client.force_login(user)
    context = open_context(browser, viewport={"width": 1280, "height": 900})
    cookie = client.cookies[settings.SESSION_COOKIE_NAME]
    context.add_cookies([{"name": cookie.key, "value": cookie.value, "url": base}])
    return context.new_page()


def expect_seats(page: Page, count: int, most: int) -> None:
    """Exactly the first `count` of the `most` seat choices are shown, waited for (the
    form's script shows and hides them as the count changes)."""
    for i in range(1, most + 1):
        choice = page.get_by_label(f"{SEAT_NAMES[i - 1]} seat:", exact=True)
        if i <= count:
            expect(choice).to_be_visible()
        else:
            expect(choice).to_be_hidden()


@pytest.mark.parametrize(("game", "most"), [("halite", 6), ("skyport", 8)])
def test_the_seat_choices_follow_the_seat_count(
    live_server: Any, browser: Browser, screenshot_dir: Path, game: str, most: int
) -> None:
    page = signed_in(browser, UserFactory(username="ceres"), live_server.url)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{live_server.url}/matches/new/?game={game}")
    seats = page.get_by_label("Seats:", exact=True)
    expect(seats).to_have_value("2")
    expect_seats(page, 2, most)
    for count in (4, most, 3, 2):
        seats.select_option(str(count))
        expect_seats(page, count, most)
    page.locator("form.form-grid").screenshot(path=str(screenshot_dir / f"create-seats-{game}.png"))
    assert not errors, errors


def test_a_bot_in_a_seat_the_count_then_hid_is_not_sent(live_server: Any, browser: Browser) -> None:
    page = signed_in(browser, UserFactory(username="vesta"), live_server.url)
    page.goto(f"{live_server.url}/matches/new/?game=halite")
    page.get_by_label("Width:", exact=True).fill("10")
    page.get_by_label("Height:", exact=True).fill("10")
    page.get_by_label("Seats:", exact=True).select_option("4")
    page.get_by_label("Second seat:", exact=True).select_option(label=bot_label("grower", "halite"))
    page.get_by_label("Fourth seat:", exact=True).select_option(label=bot_label("random", "halite"))
    page.get_by_label("Seats:", exact=True).select_option("2")
    expect(page.get_by_label("Fourth seat:", exact=True)).to_be_hidden()
    page.get_by_role("button", name="Create the match").click()
    expect(page).to_have_url(re.compile(r"/matches/\d+/$"))
    match = Match.objects.get()
    assert match.seat_count == 2
    assert sorted(match.seats.values_list("bot", flat=True)) == ["", "grower"]
