"""Skyport's pages as its players meet them, photographed on a laptop and a phone in
both themes (ci-artifacts/screenshots/skyport-*.png): the rules page, the new match
form, the loadout step, the board mid-match, the planner with a plan on the board and
the end screen; each checked on the way for a script error, sideways scrolling and
the theme asked for."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from browser_support import settle_board
from game_factories import UserFactory
from playwright.sync_api import Browser, Page, expect
from site_support import drain
from test_screenshots import VIEWPORTS, signed_in

from games import services
from games.models import Match

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

THEMES = ("light", "dark")
DIRECTIONS = ("right-down", "left-down", "down", "right-up", "left-up", "up")


def played_to(match: Match, user: Any, turns: int) -> Match:
    """The player sends the default loadout, then passes while the bots play, until
    `turns` turns were played or the match ends."""
    for _ in range(2000):
        drain(match, emails=False)
        match.refresh_from_db()
        if match.status == Match.Status.FINISHED or match.turn_number >= turns:
            return match
        if 1 not in match.state.get("awaiting", []):
            # The browser tests' worker may still be resolving a bot's turn: wait for it.
            time.sleep(0.05)
            continue
        orders = {"loadout": ["laser", "mortar"]} if match.turn_number == 0 else {"actions": []}
        services.orders_submit(match_id=match.pk, user=user, turn=match.turn_number, orders=orders)
    raise AssertionError("the match did not get that far")


def shoot(page: Page, url: str, name: str, theme: str, folder: Path, plan: bool = False) -> None:
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(url)
    expect(page.locator("html")).to_have_attribute("data-theme", theme)
    if page.locator("#board-wrap svg.board").count():
        settle_board(page)
    if plan:
        # A move and the mortar in hand: the walk, the reach and the mortar's range drawn.
        # The planner enables the directions the robot can take once the board is its
        # turn's: wait for one of them, and click the one found enabled (no state read
        # first and acted on after).
        step = page.locator(", ".join(f"#sp-d-{d}:enabled" for d in DIRECTIONS)).first
        expect(step).to_be_visible()
        step.click()
        expect(page.locator("#board-wrap .sp-plan .sp-walk-end")).to_be_attached()
        page.locator("#sp-w-mortar").click()
        expect(page.locator("#board-wrap .sp-plan .sp-ray").first).to_be_attached()
    page.evaluate("() => window.scrollTo(0, 0)")  # the sticky header at the top of the picture
    width = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert width <= 1, f"{name}: the page scrolls sideways by {width} px"
    page.screenshot(path=str(folder / f"{name}.png"), full_page=True)
    assert not errors, f"{name}: {errors}"


@pytest.mark.slow
def test_skyports_pages_on_a_laptop_and_a_phone_in_both_themes(
    live_server: Any, browser: Browser, screenshot_dir: Path
) -> None:
    base = live_server.url
    player = UserFactory(username="skye")
    create = {"seat_count": 4, "bots": ["prospector", "random", "prospector"]}
    loadout = services.match_create(creator=player, ruleset="skyport", **create)
    middle = played_to(
        services.match_create(creator=player, ruleset="skyport", options={"rounds": 12}, **create),
        player,
        turns=9,
    )
    end = played_to(
        services.match_create(creator=player, ruleset="skyport", options={"rounds": 5}, **create),
        player,
        turns=10_000,
    )
    assert end.status == Match.Status.FINISHED
    pages: dict[str, tuple[str, bool]] = {
        "rules": ("/games/skyport/", False),
        "create": ("/matches/new/?game=skyport", False),
        "loadout": (f"/matches/{loadout.pk}/", False),
        "match-mid": (f"/matches/{middle.pk}/", False),
        "planner": (f"/matches/{middle.pk}/", True),
        "match-end": (f"/matches/{end.pk}/", False),
    }
    for device, viewport in VIEWPORTS.items():
        for theme in THEMES:
            page = signed_in(browser, player, base, viewport, theme)
            for name, (path, plan) in pages.items():
                shoot(
                    page,
                    base + path,
                    f"skyport-{name}-{device}-{theme}",
                    theme,
                    screenshot_dir,
                    plan,
                )
            page.context.close()
