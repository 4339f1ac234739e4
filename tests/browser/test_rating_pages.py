"""Ratings in the browser: the end of a rated match shows each seat's change beside
its place, the leaderboard lists the players with the viewer's own row marked, and
the player page draws the rating's history; on a laptop and a phone."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from browser_support import sign_in
from django.utils import timezone
from playwright.sync_api import Page, expect

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "games"))

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_player_sees_the_change_the_leaderboard_and_the_chart(
    live_server: Any, page: Page, screenshot_dir: Path
) -> None:
    from game_factories import UserFactory
    from site_support import play_out

    from games import services
    from games.compete.models import Kind, Rating, RatingChange

    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    matches = []
    for _ in range(2):
        match = services.match_create(creator=alice, seat_count=2, length_ms=2000)
        services.seat_join(match_id=match.pk, user=bob)
        matches.append(play_out(match))
    for i, name in enumerate(["ceres", "deimos", "europa"]):
        user = UserFactory(username=name)
        Rating.objects.create(game="helium3", user=user, kind=Kind.PERSON, mu=32.0 - 2 * i,
                              sigma=2.5, conservative=24.5 - 2 * i, matches=20 + i,
                              last_played_at=timezone.now())  # fmt: skip
    Rating.objects.filter(user__in=[alice, bob]).update(sigma=3.0)  # settled, for the board
    Rating.objects.create(game="helium3", bot="miner", kind=Kind.BUILTIN_BOT, mu=29.0, sigma=1.5,
                          conservative=24.5, matches=80, last_played_at=timezone.now())  # fmt: skip
    last = matches[-1]
    change = RatingChange.objects.get(match=last, rating__user=alice)

    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_viewport_size({"width": 1280, "height": 900})
    sign_in(page, live_server.url, "alice")
    page.goto(f"{live_server.url}/matches/{last.pk}/")
    mine = page.locator("section.results tbody tr", has_text="alice")
    shown = f"{change.delta:+d}" if change.delta else "±0"
    expect(mine.locator(".rating-change")).to_have_text(f"rating {shown}")
    expect(page.locator("section.results .rating-change")).to_have_count(2)
    page.locator("section.results").screenshot(path=str(screenshot_dir / "rating-end.png"))

    page.goto(f"{live_server.url}/games/helium3/leaderboard/")
    rows = page.locator("table.leaderboard tbody tr")
    expect(rows.first).to_contain_text("ceres")
    expect(page.locator("table.leaderboard tr.me")).to_contain_text("alice (you)")
    expect(page.locator('tr[data-player="bot:miner"]')).to_contain_text("built-in bot")
    page.screenshot(path=str(screenshot_dir / "rating-leaderboard.png"), full_page=True)
    page.get_by_role("link", name="People").click()
    expect(page.locator('tr[data-player="bot:miner"]')).to_have_count(0)

    page.goto(f"{live_server.url}/players/alice/")
    chart = page.locator("svg.rating-chart")
    expect(chart).to_be_visible()
    expect(chart.locator("circle")).to_have_count(3)
    expect(page.locator("table.rated-matches tbody tr")).to_have_count(2)
    page.locator("section.ratings").screenshot(path=str(screenshot_dir / "rating-profile.png"))
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=str(screenshot_dir / "rating-profile-phone.png"), full_page=True)
    page.goto(f"{live_server.url}/games/helium3/leaderboard/")
    page.screenshot(path=str(screenshot_dir / "rating-leaderboard-phone.png"), full_page=True)
    assert errors == []
