"""A Helium 3 player's pages, photographed on a laptop and a phone in both themes
(ci-artifacts/screenshots/page-*.png), each checked on the way for what a person
would see first: no script error, no sideways scrolling, the theme asked for. Among
them the new match form, a match at its start, mid-turn with a shield's direction to
choose (page-match-shield-*), the end screen (page-match-end-*), its replay and a
guest's sign-up form (page-guest-signup-*). The platform's other pages (the home
page, the lobby, the archive, the rules, the settings, the watch page) are
photographed and checked the same way, in the same four looks, by the accessibility
sweep (test_accessibility.py, a11y-*.jpg)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from browser_support import open_context, settle_board
from django.conf import settings
from django.test import Client
from django.urls import reverse
from game_factories import UserFactory
from playwright.sync_api import Browser, Page, expect
from site_support import drain

from games import services
from games.models import Match

pytestmark = [pytest.mark.worker, pytest.mark.browser, pytest.mark.django_db(transaction=True)]

VIEWPORTS = {"laptop": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}
THEMES = ("light", "dark")


def played_to(match: Match, user: Any, turns: int) -> Match:
    """The player passes and the bots play until `turns` turns were played or it ends."""
    for _ in range(400):
        drain(match, emails=False)
        if match.status == Match.Status.FINISHED or match.turn_number >= turns:
            return match
        services.orders_submit(match_id=match.pk, user=user, turn=match.turn_number, actions=[])
    raise AssertionError("the match did not get that far")


def signed_in(browser: Browser, user: Any, base: str, viewport: dict[str, int], theme: str) -> Page:
    client = Client()
    client.force_login(user)
    context = open_context(browser, viewport=viewport)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME]
    context.add_cookies([{"name": cookie.key, "value": cookie.value, "url": base}])
    return themed(context.new_page(), base, theme)


def themed(page: Page, base: str, theme: str) -> Page:
    page.goto(f"{base}/rules/")
    page.evaluate("theme => localStorage.setItem('h3-theme', theme)", theme)
    return page


def shoot(page: Page, url: str, name: str, theme: str, folder: Path) -> None:
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(url)
    expect(page.locator("html")).to_have_attribute("data-theme", theme)
    if page.locator("#board-wrap svg.board").count():
        settle_board(page)
    width = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert width <= 1, f"{name}: the page scrolls sideways by {width} px"
    page.screenshot(path=str(folder / f"{name}.png"), full_page=True)
    assert not errors, f"{name}: {errors}"


def shoot_shield_open(page: Page, url: str, name: str, folder: Path) -> None:
    """A Helium 3 match mid-turn, the player's robot 1-5 shielding a cell and the
    shield's direction still to choose: the planner at its busiest."""
    page.goto(url)
    expect(page.locator("#panel .your-move")).to_be_visible(timeout=60_000)
    settle_board(page)
    page.locator('#board-wrap svg.board g.rb[data-id="1-5"]').click()
    page.locator('#kinds button[data-kind="shield"]').click()
    cells = page.locator("#board-wrap .hl rect")
    expect(cells.first).to_be_visible()
    cells.last.click()
    expect(page.locator("#dirs button").first).to_be_visible()
    page.screenshot(path=str(folder / f"{name}.png"))
    page.screenshot(path=str(folder / f"{name}-whole.png"), full_page=True)


def shoot_guest_signup(
    browser: Browser, base: str, name: str, viewport: Any, theme: str, folder: Path
) -> None:
    """A visitor presses "Play now", plays as a guest and opens the sign-up form
    from the guest's banner."""
    page = themed(open_context(browser, viewport=viewport).new_page(), base, theme)
    page.goto(f"{base}/")
    page.locator(".hero").get_by_role("button", name="Play now", exact=True).click()
    expect(page.locator("#panel .your-move")).to_be_visible(timeout=60_000)
    page.locator(".guest-banner a").click()
    expect(page.get_by_label("Username")).to_be_visible()
    expect(page.locator("html")).to_have_attribute("data-theme", theme)
    page.screenshot(path=str(folder / f"{name}.png"), full_page=True)
    page.context.close()


@pytest.mark.slow
def test_every_page_on_a_laptop_and_a_phone_in_both_themes(
    live_server: Any, celery_worker: Any, browser: Browser, screenshot_dir: Path
) -> None:
    base = live_server.url
    player = UserFactory(username="luna")
    start = services.match_create(
        creator=player, seat_count=4, bots=["fighter", "miner", "random"], title="First light"
    )
    middle = played_to(
        services.match_create(creator=player, seat_count=4, bots=["fighter", "miner", "random"]),
        player,
        turns=13,
    )
    end = played_to(
        services.match_create(
            creator=player, seat_count=2, bots=["fighter"], length_ms=60_000, title="Short duel"
        ),
        player,
        turns=10_000,
    )
    assert end.status == Match.Status.FINISHED
    start.refresh_from_db()
    pages = {
        "create": reverse("games:match-create"),
        "match-start": f"/matches/{start.pk}/",
        "match-mid": f"/matches/{middle.pk}/",
        "match-end": f"/matches/{end.pk}/",
        "replay": f"/matches/{end.pk}/replay/",
    }
    for device, viewport in VIEWPORTS.items():
        for theme in THEMES:
            page = signed_in(browser, player, base, viewport, theme)
            for name, path in pages.items():
                shoot(page, base + path, f"page-{name}-{device}-{theme}", theme, screenshot_dir)
            shoot_shield_open(
                page,
                base + pages["match-mid"],
                f"page-match-shield-{device}-{theme}",
                screenshot_dir,
            )
            page.context.close()
            shoot_guest_signup(
                browser,
                base,
                f"page-guest-signup-{device}-{theme}",
                viewport,
                theme,
                screenshot_dir,
            )
