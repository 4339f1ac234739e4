"""The ladder in the browser: an owner puts their API bot on the Helium 3 ladder from
the tokens page, the matchmaker's round makes its matches, and the leaderboard lists
them (newest first) with a link to watch; both pages photographed in both themes on
a laptop and a phone (ci-artifacts/screenshots/ladder-*.png)."""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

import pytest
from browser_support import sign_in
from playwright.sync_api import Page, expect

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "games"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "api"))

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_an_owner_puts_a_bot_on_the_ladder_and_the_leaderboard_lists_its_matches(
    live_server: Any, page: Page, screenshot_dir: Path
) -> None:
    from api_support import token_for
    from game_factories import UserFactory

    from games.ladder import services
    from games.ladder.models import LadderEntry

    alice = UserFactory(username="alice")
    token_for(alice)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_viewport_size({"width": 1280, "height": 900})
    sign_in(page, live_server.url, "alice")
    page.goto(f"{live_server.url}/settings/tokens/")
    page.get_by_role("button", name="Put on the Helium 3 ladder").click()
    expect(page.get_by_text("Your bot is on the Helium 3 ladder.")).to_be_visible()
    expect(page.get_by_role("button", name="Take off the Helium 3 ladder")).to_be_visible()
    assert LadderEntry.objects.get(user=alice, game="helium3").on
    page.locator("#ladder").scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_dir / "ladder-tokens.png"), full_page=True)

    made = services.ladder_round(game="helium3", rng=random.Random(3))
    assert made
    page.goto(f"{live_server.url}/games/helium3/leaderboard/")
    rows = page.locator("section.ladder-matches tbody tr")
    expect(rows).to_have_count(len(made))
    expect(rows.first).to_contain_text(f"#{made[-1].pk}")
    expect(rows.first).to_contain_text("alice")
    page.locator("section.ladder-matches").screenshot(
        path=str(screenshot_dir / "ladder-matches.png")
    )
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=str(screenshot_dir / "ladder-leaderboard-phone.png"), full_page=True)
    rows.first.get_by_role("link").click()
    expect(page).to_have_url(f"{live_server.url}/matches/{made[-1].pk}/")

    # Both pages in both themes, on a laptop and a phone.
    for theme in ("light", "dark"):
        page.evaluate("theme => localStorage.setItem('h3-theme', theme)", theme)
        for device, size in {"laptop": (1280, 900), "phone": (390, 844)}.items():
            page.set_viewport_size({"width": size[0], "height": size[1]})
            for name, path in {
                "tokens": "/settings/tokens/",
                "leaderboard": "/games/helium3/leaderboard/",
            }.items():
                page.goto(f"{live_server.url}{path}")
                expect(page.locator("html")).to_have_attribute("data-theme", theme)
                expect(page.locator("#ladder, #ladder-matches").first).to_be_visible()
                shot = screenshot_dir / f"ladder-{name}-{device}-{theme}.png"
                page.screenshot(path=str(shot), full_page=True)
    assert errors == []
