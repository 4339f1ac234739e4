"""The words a player reads while playing, as the board script writes them: the
remake's vehicles (never "robot"), and numbers with their thousands separated as
the server writes them ("10,198"), in the panel the movie updates."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from browser_support import open_context, settle_board
from playwright.sync_api import Browser, Page, expect
from test_remake_play import LAPTOP, log_in, vehicle

pytestmark = [pytest.mark.worker, pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_remakes_planner_and_panel_say_vehicle(
    live_server: Any, celery_worker: Any, page: Page, screenshot_dir: Path
) -> None:
    from games import services

    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_viewport_size(LAPTOP)
    player = log_in(page, live_server.url, "wheels")
    match = services.match_create(
        creator=player,
        seat_count=2,
        turn_seconds=3600,
        bots=["prospector"],
        ruleset="helium3-remake",
        options={"rounds": 5},
    )
    page.goto(f"{live_server.url}/matches/{match.pk}/")
    expect(page.get_by_text("your move")).to_be_visible()
    settle_board(page)

    panel = page.locator("#panel")
    expect(panel.locator("table.seats th").nth(3)).to_have_text("Vehicles")
    expect(panel.locator("table.mine caption")).to_have_text("Your vehicles")

    vehicle(page, "1-5").click()
    expect(page.locator("#plan-help")).to_have_text("Vehicle 1-5 chosen. Pick its action.")
    page.get_by_role("button", name="Move (5)").click()
    target = page.locator("#board-wrap .hl rect").first
    expect(target).to_be_visible()
    target.focus()
    page.keyboard.press("Enter")
    expect(page.locator("#plan-help")).to_contain_text("choose a second vehicle")
    page.screenshot(path=str(screenshot_dir / "remake-planner-vehicle-words.png"))

    said = page.locator("#planner").inner_text() + panel.inner_text()
    assert "robot" not in said.lower(), said
    assert not errors, errors


def test_the_movie_writes_the_panels_money_with_separators(
    live_server: Any, celery_worker: Any, page: Page
) -> None:
    """The panel's money, written "10,198" by the server, is read back and written the
    same way by the board script as a turn plays (it read "10,198" as NaN)."""
    from games import services
    from games.models import Match

    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_viewport_size(LAPTOP)
    player = log_in(page, live_server.url, "banker")
    match = services.match_create(
        creator=player, seat_count=2, turn_seconds=3600, bots=["miner"], length_ms=600_000
    )
    # Rich players: the money the panel shows has thousands to separate.
    state = match.state
    for p in state["players"]:
        p["money"] = 10_198
    Match.objects.filter(pk=match.pk).update(state=state, initial_state=state)

    page.goto(f"{live_server.url}/matches/{match.pk}/")
    expect(page.get_by_text("your move")).to_be_visible()
    settle_board(page)
    money = page.locator("#panel table.seats td.money")
    expect(money.first).to_have_text("10,198")

    page.get_by_role("button", name="Send orders").click()  # a pass: the bot moves after
    expect(page.get_by_text("your move")).to_be_visible(timeout=60_000)
    settle_board(page)
    texts = money.all_inner_texts()
    assert all(t.replace(",", "").isdigit() and int(t.replace(",", "")) >= 10_198 for t in texts)
    assert all("," in t for t in texts), texts
    assert not errors, errors


def _signed_in(browser: Browser, live_server: Any, user: Any, viewport: dict[str, int]) -> Any:
    from django.conf import settings
    from django.test import Client

    client = Client()
    client.force_login(user)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME]
    context = open_context(browser, viewport=viewport)
    context.add_cookies([{"name": cookie.key, "value": cookie.value, "url": live_server.url}])
    return context


def test_the_lobby_shows_the_matches_waiting_for_your_move_before_the_games(
    live_server: Any, browser: Browser, screenshot_dir: Path
) -> None:
    from game_factories import UserFactory

    from games import services

    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    waiting = services.match_create(creator=alice, seat_count=2, bots=["fighter"])
    theirs = services.match_create(creator=bob, seat_count=2)
    services.seat_join(match_id=theirs.pk, user=alice)
    for name, viewport in (("laptop", LAPTOP), ("phone", {"width": 390, "height": 844})):
        context = _signed_in(browser, live_server, alice, viewport)
        page = context.new_page()
        page.goto(f"{live_server.url}/")
        first = page.locator("section.your-move-list")
        expect(first.get_by_role("link", name=f"Match {waiting.pk}")).to_be_visible()
        expect(first.get_by_text("bot fighter")).to_be_visible()
        top = first.bounding_box()
        games = page.locator("#games-h").bounding_box()
        assert top is not None and games is not None and top["y"] < games["y"]
        assert top["y"] < viewport["height"], top  # in sight without scrolling
        page.screenshot(path=str(screenshot_dir / f"lobby-your-move-first-{name}.png"))
        context.close()


def test_the_admins_match_page_folds_its_turns_away(
    live_server: Any, browser: Browser, screenshot_dir: Path
) -> None:
    from django.utils import timezone
    from game_factories import UserFactory

    from games import services
    from games.models import Match, Turn

    alice = UserFactory(username="alice")
    match = services.match_create(creator=alice, seat_count=4, bots=["random"] * 3)
    now = timezone.now()
    Turn.objects.bulk_create(
        Turn(match=match, number=n, seat=1, started_at=now, status="resolved")
        for n in range(1, 300)
    )
    Match.objects.filter(pk=match.pk).update(turn_number=299)
    staff = UserFactory(username="root")
    staff.is_staff = staff.is_superuser = True
    staff.save()
    context = _signed_in(browser, live_server, staff, LAPTOP)
    page = context.new_page()
    page.goto(f"{live_server.url}/admin/games/match/{match.pk}/change/")

    expect(page.get_by_text("1 day", exact=True)).to_be_visible()
    turns = page.locator("details", has_text="Turns (the latest 20)")
    expect(turns).to_have_count(1)
    height = page.evaluate("document.documentElement.scrollHeight")
    assert height < 3000, height  # 300 turns listed in full made it 6,000 px and more
    page.screenshot(path=str(screenshot_dir / "admin-match-words.png"), full_page=True)
    turns.locator("summary").click()
    expect(turns.locator("tbody tr.has_original")).to_have_count(20)
    context.close()
