"""Choosing a game in a real browser: the lobby's card per game, and a remake match
made from the create form (the game chosen by its link, its rounds and a bot seat)
that lands on its own page. The lobby, the remake's form, the archive filtered by
game and a player's record per game are photographed on a laptop and a phone in
both themes (ci-artifacts/screenshots/game-*.png), none of them scrolling sideways."""

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
from site_support import play_out

import engine
from games import catalog, services
from games.forms import bot_label
from games.models import Match

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

VIEWPORTS = {"laptop": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}
REMAKE = "helium3-remake"


def signed_in(browser: Browser, user: Any, base: str, viewport: dict[str, int], theme: str) -> Page:
    client = Client()
    client.force_login(user)
    context = open_context(browser, viewport=viewport, color_scheme=theme)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME]
    context.add_cookies([{"name": cookie.key, "value": cookie.value, "url": base}])
    return context.new_page()


def shoot(page: Page, name: str, folder: Path) -> None:
    width = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert width <= 1, f"{name}: the page scrolls sideways by {width} px"
    page.screenshot(path=str(folder / f"{name}.png"), full_page=True)


def finished_match(user: Any, name: str) -> Match:
    """A short match of game `name`, the user against one of its bots, played out
    (the user passes, the bot plays)."""
    shortest = {
        o.name: o.minimum
        for o in engine.ruleset(name).options
        if o.kind == "int" and o.minimum is not None and o.name != "length_ms"
    }
    match = services.match_create(
        creator=user,
        seat_count=2,
        bots=[engine.bot_names(name)[-1]],
        length_ms=3000,
        ruleset=name,
        options=shortest,
    )
    return play_out(match)


def test_a_remake_match_is_made_from_the_form_and_lands_on_its_page(
    live_server: Any, browser: Browser
) -> None:
    base = live_server.url
    page = signed_in(browser, UserFactory(username="selene"), base, VIEWPORTS["laptop"], "light")
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{base}/")
    for name in catalog.names():
        card = page.locator(f'article.game-card[data-game="{name}"]')
        expect(card.get_by_role("heading", name=catalog.title(name), exact=True)).to_be_visible()
        expect(card.locator("svg.game-picture")).to_be_visible()
        expect(card.get_by_role("link", name=f"Rules of {catalog.title(name)}")).to_be_visible()

    page.get_by_role("link", name="Create a match", exact=True).click()
    page.get_by_role("link", name=re.compile(r"^Helium 3 remake")).click()
    expect(page).to_have_url(re.compile(r"/matches/new/\?game=helium3-remake$"))
    expect(page.get_by_text("A match of Helium 3 remake")).to_be_visible()
    expect(page.get_by_label("Battle length (minutes)")).to_have_count(0)
    page.get_by_label("Seats").select_option("2")
    page.get_by_label("Rounds").fill("101")
    page.get_by_label("Second seat").select_option(label=bot_label("prospector", REMAKE))
    page.get_by_role("button", name="Create the match").click()
    expect(page.get_by_text("Rounds: from 5 to 100.")).to_be_visible()  # and nothing made
    assert not Match.objects.exists()

    page.get_by_label("Rounds").fill("6")
    page.get_by_role("button", name="Create the match").click()
    expect(page).to_have_url(re.compile(r"/matches/\d+/$"))
    match = Match.objects.get()
    assert match.ruleset == REMAKE and match.options == {"rounds": 6}
    assert page.url.endswith(f"/matches/{match.pk}/")
    expect(page.get_by_role("heading", level=1)).to_contain_text(
        f"Match {match.pk} · Helium 3 remake"
    )
    expect(page.locator("#board-wrap svg.board")).to_be_visible()
    assert not errors, errors


@pytest.mark.slow
def test_the_game_pages_on_a_laptop_and_a_phone(
    live_server: Any, browser: Browser, screenshot_dir: Path
) -> None:
    base = live_server.url
    player = UserFactory(username="tycho")
    for name in catalog.names():
        finished_match(player, name)
    for device, viewport in VIEWPORTS.items():
        for theme in ("light", "dark"):
            page = signed_in(browser, player, base, viewport, theme)
            page.goto(f"{base}/")
            expect(page.locator("article.game-card")).to_have_count(len(catalog.names()))
            page.locator("#games-h").scroll_into_view_if_needed()
            shoot(page, f"game-lobby-{device}-{theme}", screenshot_dir)
            page.goto(f"{base}/matches/new/?game={REMAKE}")
            expect(page.get_by_label("Rounds")).to_be_visible()
            shoot(page, f"game-create-remake-{device}-{theme}", screenshot_dir)
            page.goto(f"{base}/archive/?game={REMAKE}")
            expect(page.locator("table.archive tbody tr")).to_have_count(1)
            shoot(page, f"game-archive-{device}-{theme}", screenshot_dir)
            page.goto(f"{base}/players/tycho/")
            expect(page.locator("section.game-record")).to_have_count(len(catalog.names()))
            shoot(page, f"game-player-{device}-{theme}", screenshot_dir)
            page.context.close()
