"""Challenges in the browser: a person challenges another from their page's dialog,
the other accepts from the navigation's count, both play a short rated match, the end
screen shows both rating changes, and the leaderboard and both profiles show them.
Then the leaderboard, a profile with its chart and the challenge dialog photographed
in both themes on a laptop and a phone (ci-artifacts/screenshots/challenge-*.png)."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from browser_support import match_over, open_context, settle_board
from django.conf import settings
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone
from playwright.sync_api import Browser, Page, expect

pytestmark = [pytest.mark.worker, pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LAPTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
VIEWPORTS = {"laptop": LAPTOP, "phone": PHONE}


def signed_in(browser: Browser, user: Any, base: str, viewport: dict[str, int], theme: str) -> Page:
    """A page of a new browser context signed in as `user`, in `theme`."""
    client = Client()
    client.force_login(user)
    context = open_context(browser, viewport=viewport)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME]
    context.add_cookies([{"name": cookie.key, "value": cookie.value, "url": base}])
    page = context.new_page()
    page.goto(f"{base}/rules/")
    page.evaluate("theme => localStorage.setItem('h3-theme', theme)", theme)
    return page


def watch_errors(page: Page) -> list[str]:
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    return errors


def open_dialog(page: Page, base: str, to: str) -> Any:
    page.goto(f"{base}/players/{to}/")
    page.get_by_role("link", name=f"Challenge {to}").click()
    dialog = page.get_by_role("dialog", name=f"Challenge {to}")
    expect(dialog).to_be_visible()
    expect(dialog.get_by_label("Seats")).to_be_visible()
    return dialog


def my_move_or_end(page: Page) -> str:
    """Wait until the page says it is the player's move or that the match is over."""
    mine = page.get_by_text("your move")
    over = page.get_by_text("The match is over.")
    expect(mine.or_(over).first).to_be_visible(timeout=60_000)
    settle_board(page)
    return "over" if match_over(page) else "move"


def test_a_challenge_accepted_from_the_navigation_is_played_and_rated(
    live_server: Any, celery_worker: Any, browser: Browser, screenshot_dir: Path
) -> None:
    from game_factories import UserFactory

    from games.compete.models import Challenge, RatingChange

    base = live_server.url
    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    alices = signed_in(browser, alice, base, LAPTOP, "light")
    bobs = signed_in(browser, bob, base, LAPTOP, "light")
    errors = watch_errors(alices) + watch_errors(bobs)

    # Alice challenges Bob from his page: a short rated match of Helium 3, two seats.
    dialog = open_dialog(alices, base, "bob")
    dialog.get_by_label("Game").select_option("helium3")
    expect(dialog.get_by_role("group", name="A match of Helium 3")).to_be_visible()
    dialog.get_by_label("Seats").select_option("2")
    dialog.get_by_label("Time per turn").select_option(label="1 minute")
    dialog.get_by_label("Battle length (minutes)").fill("0.2")
    dialog.get_by_label("Rating").select_option("rated")
    expect(dialog.get_by_label("Player")).to_have_value("bob")
    dialog.get_by_role("button", name="Send the challenge").click()
    expect(alices.get_by_text("Challenge sent to bob")).to_be_visible()
    challenge = Challenge.objects.get()
    assert (challenge.ruleset, challenge.seats, challenge.rated) == ("helium3", 2, True)

    # Bob sees the count in the navigation on any page, follows it and accepts.
    bobs.goto(f"{base}/games/")
    badge = bobs.locator("#challenge-badge")
    expect(badge).to_be_visible()
    expect(badge).to_contain_text("1")
    bobs.get_by_role("link", name=re.compile("Challenges")).click()
    card = bobs.locator(f'li[data-challenge="{challenge.pk}"]')
    expect(card).to_contain_text("alice challenges you: Helium 3, 2 seats, rated")
    card.get_by_role("button", name="Accept").click()
    expect(bobs.get_by_role("heading", name=re.compile(r"Match \d+"))).to_be_visible()
    challenge.refresh_from_db()
    match_id = challenge.match_id
    assert match_id is not None
    expect(bobs).to_have_url(f"{base}/matches/{match_id}/")
    expect(bobs.locator("#challenge-badge")).to_be_hidden()

    # Alice finds the match from her challenges: accepted, with its link.
    alices.goto(f"{base}/challenges/")
    alices.get_by_role("link", name=f"match {match_id}").click()
    expect(alices).to_have_url(f"{base}/matches/{match_id}/")

    # Both play: each sends (empty) orders whenever it is their move, until the end.
    done = {"alice": False, "bob": False}
    for _ in range(40):
        if all(done.values()):
            break
        for name, page in (("alice", alices), ("bob", bobs)):
            if done[name]:
                continue
            if my_move_or_end_quick(page) == "move":
                if name == "alice":
                    mine_if_any(page)  # so that the match has a winner, most times
                page.get_by_role("button", name="Send orders").click()
                expect(page.locator("html")).to_have_attribute(
                    "data-orders-answer", "accepted", timeout=30_000
                )
            elif my_move_or_end_quick(page) == "over":
                done[name] = True
    for page in (alices, bobs):
        assert my_move_or_end(page) == "over"

    # The end screen: both seats' changes.
    changes = {c.rating.user.get_username(): c for c in RatingChange.objects.select_related(
        "rating__user").filter(match_id=match_id)}  # fmt: skip
    assert set(changes) == {"alice", "bob"}
    for page in (alices, bobs):
        page.goto(f"{base}/matches/{match_id}/")
        results = page.locator("section.results")
        expect(results.locator(".rating-change")).to_have_count(2)
        for name, change in changes.items():
            shown = f"{change.delta:+d}" if change.delta else "±0"
            row = results.locator("tbody tr", has_text=name)
            expect(row.locator(".rating-change")).to_have_text(f"rating {shown}")
    alices.locator("section.results").screenshot(
        path=str(screenshot_dir / "challenge-end-laptop.png")
    )

    # The leaderboard shows each their own row (new ratings are provisional: "?").
    for name, page in (("alice", alices), ("bob", bobs)):
        page.goto(f"{base}/games/helium3/leaderboard/")
        own = page.locator("table.leaderboard tr.me")
        expect(own).to_contain_text(f"{name} (you)")
        expect(own).to_contain_text(f"{changes[name].rating_after}?")
    # Both profiles: the rating, its chart, the match with its change.
    for name, change in changes.items():
        alices.goto(f"{base}/players/{name}/")
        ratings = alices.locator("section.ratings")
        expect(ratings.locator(".rating-value")).to_have_text(f"{change.rating_after}?")
        expect(ratings.locator("svg.rating-chart circle")).to_have_count(2)
        expect(ratings.locator(f'table.rated-matches tr[data-match="{match_id}"]')).to_be_visible()
    assert errors == []


def mine_if_any(page: Page) -> None:
    """Robot 1-5 mines the richest cell in its reach, if one holds helium."""
    from test_board_play import best_highlighted_cell, robot

    robot(page, "1-5").click()
    page.get_by_role("button", name="Mine (4)").click()
    cell, amount = best_highlighted_cell(page)
    if amount:
        cell.click()
        expect(page.get_by_text(re.compile(r"Robot 1-5: mine"))).to_be_visible()
    else:
        page.keyboard.press("Escape")
        page.keyboard.press("Escape")


def my_move_or_end_quick(page: Page) -> str:
    """The page's state once it shows one: "move", "over", or "wait" (the other's turn)."""
    mine = page.get_by_text("your move")
    over = page.get_by_text("The match is over.")
    try:
        expect(mine.or_(over).first).to_be_visible(timeout=3_000)
    except AssertionError:
        return "wait"
    settle_board(page)
    if match_over(page):
        return "over"
    # Once the board has settled, "your move" stays; wait for it rather than read it once.
    try:
        expect(mine.first).to_be_visible(timeout=1_000)
    except AssertionError:
        return "wait"
    return "move"


def _rated_world() -> Any:
    """A leaderboard of a few settled players, and alice's history of rated matches."""
    from game_factories import UserFactory
    from site_support import play_out

    from games import services
    from games.compete.models import Kind, Rating, RatingChange
    from games.models import Match

    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    for _ in range(3):
        match = services.match_create(creator=alice, seat_count=2, length_ms=2000)
        services.seat_join(match_id=match.pk, user=bob)
        play_out(match)
    for i, name in enumerate(["ceres", "deimos", "europa", "ganymede-the-long-named"]):
        user = UserFactory(username=name)
        Rating.objects.create(game="helium3", user=user, kind=Kind.PERSON, mu=32.0 - 2 * i,
                              sigma=2.5, conservative=24.5 - 2 * i, matches=20 + i,
                              last_played_at=timezone.now())  # fmt: skip
    Rating.objects.create(game="helium3", bot="miner", kind=Kind.BUILTIN_BOT, mu=29.0, sigma=1.5,
                          conservative=24.5, matches=80, last_played_at=timezone.now())  # fmt: skip
    Rating.objects.filter(user__in=[alice, bob]).update(sigma=3.0)
    # Bob's history goes up and down: eight more rated matches, as rows.
    rating = Rating.objects.get(game="helium3", user=bob)
    mu, sigma, start = rating.mu, rating.sigma, timezone.now() - timedelta(days=9)
    RatingChange.objects.filter(rating=rating).update(created_at=start)  # the real ones first
    for day, step in enumerate([1.4, 0.9, -1.2, 1.8, -0.6, 1.1, 2.0, -0.8], start=1):
        when = start + timedelta(days=day)
        match = Match.objects.create(ruleset="helium3", status=Match.Status.FINISHED, seat_count=2,
                                     seed=day, state={"over": True}, finished_at=when, rated=True)  # fmt: skip
        RatingChange.objects.create(rating=rating, match=match, seat=3, place=1 if step > 0 else 2,
                                    mu_before=mu, sigma_before=sigma, mu_after=mu + step,
                                    sigma_after=sigma * 0.97, created_at=when)  # fmt: skip
        mu, sigma = mu + step, sigma * 0.97
    Rating.objects.filter(pk=rating.pk).update(
        mu=mu, sigma=sigma, conservative=mu - 3 * sigma, matches=rating.matches + 8
    )
    return alice


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("size", ["laptop", "phone"])
def test_the_leaderboard_a_profile_and_the_challenge_dialog_photographed(
    live_server: Any, browser: Browser, screenshot_dir: Path, size: str, theme: str
) -> None:
    alice = _rated_world()
    base = live_server.url
    page = signed_in(browser, alice, base, VIEWPORTS[size], theme)
    errors = watch_errors(page)

    def shoot(name: str, **kw: Any) -> None:
        expect(page.locator("html")).to_have_attribute("data-theme", theme)
        width = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
        assert width <= 1, f"{name}: the page scrolls sideways by {width} px"
        page.screenshot(path=str(screenshot_dir / f"challenge-{name}-{size}-{theme}.png"), **kw)

    page.goto(f"{base}/games/helium3/leaderboard/")
    expect(page.locator("table.leaderboard tr.me")).to_contain_text("alice (you)")
    shoot("leaderboard", full_page=True)
    page.goto(f"{base}/players/bob/")
    expect(page.locator("section.ratings svg.rating-chart")).to_be_visible()
    shoot("profile", full_page=True)
    dialog = open_dialog(page, base, "bob")
    dialog.get_by_label("Game").select_option("halite")
    expect(dialog.get_by_role("group", name="A match of Halite")).to_be_visible()
    dialog.get_by_label("Seats").select_option("3")
    expect(dialog.get_by_label("Third seat")).to_be_visible()
    shoot("dialog")
    # The dialog fits the window: its head and the first fields are in sight.
    box = dialog.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= VIEWPORTS[size]["width"]
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    # Alice's challenges: one for her (the navigation counts it), one she sent.
    from games.compete import challenges

    for frm, to in (("bob", "alice"), ("alice", "ceres")):
        challenges.challenge_create(challenger=User.objects.get(username=frm), to=to,
                                    ruleset="halite", seats=3, bots=["grower"])  # fmt: skip
    page.goto(f"{base}/challenges/")
    expect(page.locator("#challenge-badge")).to_contain_text("1")
    expect(page.locator(".challenge-list li")).to_have_count(2)
    shoot("list", full_page=True)
    assert errors == []
