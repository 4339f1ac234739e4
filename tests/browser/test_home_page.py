"""The home page as a visitor meets it, in the system Chromium: the site named for all
its games, each game with its picture, its own "Play now" and, on a new site, a live
match of bots to watch that moves, the site's "Play now" one click away, the live
showcase moving at its bots' pace without a deadline, and the hero's words clear of its moon and readable (axe-core's colour
rules) in every look. Screenshots of the
home page and the lobby, light and dark, laptop and phone
(ci-artifacts/screenshots/home-page-*.png, lobby-page-*.png)."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest
from browser_support import open_context, settle_board
from django.conf import settings
from django.core.cache import cache
from django.test import Client
from game_factories import UserFactory
from playwright.sync_api import Browser, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from test_accessibility import COLOURS, STILL, axe_violations

from games import catalog, services
from games.guests.models import Showcase
from games.guests.showcase import PLAYED_MS, showcase_step
from games.models import Match, Turn
from games.views.home import WATCH_CACHE_KEY

pytestmark = [pytest.mark.worker, pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LOOKS = {"laptop": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}

# Every line box of the hero's heading and pitch against the moon drawn behind the
# hero's corner (its ::after, clipped by the hero): the overlap in px², 0 when clear.
TEXT_OVER_MOON = """() => {
  const hero = document.querySelector('.hero');
  const box = hero.getBoundingClientRect(), moon = getComputedStyle(hero, '::after');
  if (moon.display === 'none' || moon.content === 'none' || parseFloat(moon.opacity) === 0) return 0;
  const w = parseFloat(moon.width), h = parseFloat(moon.height);
  const left = box.right - parseFloat(moon.right) - w, top = box.top + parseFloat(moon.top);
  const m = {l: Math.max(left, box.left), t: Math.max(top, box.top),
             r: Math.min(left + w, box.right), b: Math.min(top + h, box.bottom)};
  let over = 0;
  for (const el of hero.querySelectorAll('h1, .lead')) {
    const range = document.createRange(); range.selectNodeContents(el);
    for (const r of range.getClientRects()) {
      const x = Math.min(r.right, m.r) - Math.max(r.left, m.l), y = Math.min(r.bottom, m.b) - Math.max(r.top, m.t);
      if (x > 0 && y > 0) over += x * y;
    }
  }
  return over;
}"""


def _look(browser: Browser, device: str, theme: str, base: str = "", user: Any = None) -> Page:
    context = open_context(browser, viewport=LOOKS[device])
    context.add_init_script(f"localStorage.setItem('h3-theme', '{theme}')")
    if user is not None:
        client = Client()
        client.force_login(user)
        cookie = client.cookies[settings.SESSION_COOKIE_NAME]
        context.add_cookies([{"name": cookie.key, "value": cookie.value, "url": base}])
    return context.new_page()


def _turn_of(page: Page) -> int:
    return int(page.locator("#board-wrap svg.board").get_attribute("data-turn") or 0)


def _bots_play_until(page: Page, match: Match, past: int) -> None:
    """celery beat's step (every 2 s in production; here as often as the test looks)
    until the page's board shows a turn after `past`."""
    end = time.monotonic() + 90
    while True:
        showcase_step()
        try:
            page.wait_for_function(
                f"() => Number(document.querySelector('#board-wrap svg.board').dataset.turn) > {past}",
                timeout=1000,
            )
            return
        except PlaywrightTimeout:
            match.refresh_from_db()
            assert time.monotonic() < end, f"{match.ruleset}: the board stayed at turn {past}"


@pytest.mark.slow
def test_a_new_sites_home_page_shows_a_live_match_of_each_of_its_five_games(
    live_server: Any, celery_worker: Any, browser: Browser, screenshot_dir: Path
) -> None:
    cache.delete(WATCH_CACHE_KEY)
    assert not Match.objects.exists()  # a new site: nobody has played yet
    page = _look(browser, "laptop", "light")
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{live_server.url}/")
    expect(page).to_have_title(re.compile(r"^Robot Turns · "))
    expect(page.get_by_role("heading", name="Robot Turns", level=1)).to_be_visible()
    expect(page.locator(".site-header .brand")).to_have_text("Robot Turns")
    cards = page.locator(".game-card")
    expect(cards).to_have_count(5)
    expect(page.get_by_text("No match to watch yet")).to_have_count(0)
    live = {row.ruleset: row.match for row in Showcase.objects.filter(live=True)}
    for name in catalog.names():
        card = page.locator(f'.game-card[data-game="{name}"]')
        art = card.locator(".game-art svg")
        expect(art).to_be_visible()
        assert art.bounding_box()["width"] > 60, name  # type: ignore[index]
        expect(card.get_by_role("button", name=re.compile(r"^Play now against"))).to_be_visible()
        link = card.locator(".game-watch a")
        expect(link).to_contain_text("Watch live")
        expect(link).to_have_attribute("href", f"/matches/{live[name].pk}/")
    # The first game's showcase plays on the home page itself.
    expect(page.locator("#board-wrap svg.board")).to_be_visible()
    expect(page.locator("#showcase-h")).to_contain_text(
        f"Live now: {catalog.title(catalog.default())}"
    )
    page.screenshot(path=str(screenshot_dir / "home-page-laptop-light.png"), full_page=True)
    # Each game's card opens its match as a spectator sees it: a board the bots move
    # every few seconds, and no deadline.
    for name in catalog.names():
        page.locator(f'.game-card[data-game="{name}"] .game-watch a').click()
        expect(page).to_have_url(re.compile(rf"/matches/{live[name].pk}/$"))
        expect(page.locator("#board-wrap svg.board")).to_be_visible()
        expect(page.get_by_text("You are watching")).to_be_visible()
        status = page.locator("#panel .status")
        expect(status).to_contain_text("The bots move every few seconds.")
        expect(status).not_to_contain_text("Deadline")
        settle_board(page)
        _bots_play_until(page, live[name], _turn_of(page))
        expect(status).not_to_contain_text("Deadline")
        page.go_back()
        expect(page.locator(".game-card")).to_have_count(5)
    # "Play now": one click from the home page to the guest's own move.
    page.locator(".hero").get_by_role("button", name="Play now", exact=True).click()
    expect(page.locator("#panel .your-move")).to_be_visible()
    assert errors == []


def test_the_showcase_moves_at_the_bots_pace_and_shows_no_deadline(
    live_server: Any, celery_worker: Any, browser: Browser
) -> None:
    page = _look(browser, "laptop", "light")
    page.goto(f"{live_server.url}/")
    board = page.locator("#board-wrap svg.board")
    expect(board).to_have_attribute("data-turn", "0")
    status = page.locator("#panel .status")
    expect(status).to_contain_text("The bots move every few seconds.")
    expect(status).not_to_contain_text("Deadline")
    match = Showcase.objects.get(live=True, ruleset=catalog.default()).match
    # celery beat runs the step every 2 s in production: the test steps as often
    # (each step plays every game's showcase whose turn is due).
    seen: list[float] = []
    for number in (1, 2, 3):
        begun = time.monotonic()
        while Turn.objects.filter(match=match, number=number).count() == 0:
            assert time.monotonic() - begun < 15, f"the bots never moved for turn {number}"
            if not showcase_step():
                time.sleep(0.5)
        expect(board).to_have_attribute("data-turn", str(number), timeout=20_000)
        seen.append(time.monotonic() - begun)
        expect(status).not_to_contain_text("Deadline")
        expect(status).to_contain_text("The bots move every few seconds.")
    settle_board(page)
    # Each turn followed the last within the time the board takes to play one and a
    # poll, not after the turn's whole battle time.
    assert all(s < PLAYED_MS / 1000 + 6 for s in seen[1:]), seen
    assert Turn.objects.filter(match=match, status=Turn.Status.RESOLVED).count() >= 3


@pytest.mark.parametrize("device", ["laptop", "phone"])
@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_hero_words_never_run_over_the_moon_and_the_pages_are_photographed(
    live_server: Any, browser: Browser, screenshot_dir: Path, device: str, theme: str
) -> None:
    page = _look(browser, device, theme)
    page.goto(f"{live_server.url}/")
    expect(page.locator("html")).to_have_attribute("data-theme", theme)
    expect(page.locator("#board-wrap svg.board")).to_be_visible()
    assert page.evaluate(TEXT_OVER_MOON) == 0
    page.wait_for_function(STILL)
    assert axe_violations(page, COLOURS) == []
    page.screenshot(path=str(screenshot_dir / f"home-page-{device}-{theme}.png"), full_page=True)
    page.screenshot(path=str(screenshot_dir / f"home-page-{device}-{theme}-first-screen.png"))
    page.context.close()
    player = UserFactory()
    services.match_play_now(user=player, ruleset="helium3")
    page = _look(browser, device, theme, live_server.url, player)
    page.goto(f"{live_server.url}/")
    expect(page.get_by_role("heading", name="Lobby", level=1)).to_be_visible()
    assert page.evaluate(TEXT_OVER_MOON) == 0
    page.wait_for_function(STILL)
    assert axe_violations(page, COLOURS) == []
    page.screenshot(path=str(screenshot_dir / f"lobby-page-{device}-{theme}.png"), full_page=True)
    page.context.close()
