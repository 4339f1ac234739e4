"""The pages besides the match page told by the push channel (/push/ on the site's
ASGI application, the conftest's asgi_site): the watch page's list and the home
page's live match show a bot's turn with no request on a timer while the channel
is open, and poll as before, silently, when /push/ is refused; the "your move"
badge and the tab title of a page of no match follow the channel with no request
of their own."""

from __future__ import annotations

import re
import sys
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from browser_support import sign_in
from playwright.sync_api import Page, Request, expect

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "push"))

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Longer than two of the fallback poll's 3 s.
QUIET_MS = 7_000


class Requests:
    """Every request the page makes whose URL holds `part`, with when it left."""

    def __init__(self, page: Page, part: str) -> None:
        self.part = part
        self.sent: list[tuple[float, str]] = []
        page.on("request", self._seen)

    def _seen(self, request: Request) -> None:
        if self.part in request.url:
            self.sent.append((time.monotonic(), request.url))


def channel_up(page: Page) -> None:
    page.wait_for_function("() => window.h3Push && window.h3Push.up === true", timeout=15_000)


def count_pushed(page: Page) -> None:
    """Record each watch event the page's channel hears (window.h3Heard)."""
    page.add_init_script(
        "window.h3Heard = [];"
        "document.addEventListener('h3:push-watch', e => window.h3Heard.push(e.detail.version));"
    )


def bot_match(username: str) -> Any:
    from game_factories import UserFactory

    from games import services

    player = UserFactory(username=username)
    return services.match_create(
        creator=player, seat_count=2, turn_seconds=3600, bots=["random"], title="watched"
    )


def card_turn(page: Page, match: Any) -> Any:
    card = page.locator("#watch-list .match-card", has_text=f"Match {match.pk}")
    return card.locator(".state")


@pytest.mark.slow
def test_the_watch_page_hears_a_bot_turn_and_never_polls_while_the_channel_is_open(
    asgi_site: str, page: Page
) -> None:
    from push_client import pass_turn

    match = bot_match("watched-player")
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    count_pushed(page)
    lists = Requests(page, "part=list")
    channels = Requests(page, "/push/")
    page.goto(f"{asgi_site}/watch/")
    expect(card_turn(page, match)).to_contain_text(f"turn {match.turn_number}")
    channel_up(page)
    page.wait_for_timeout(QUIET_MS)
    assert lists.sent == [], lists.sent
    link = page.locator(f'#watch-list a[href="/matches/{match.pk}/"]')
    link.focus()
    pass_turn(match)
    match.refresh_from_db()
    expect(card_turn(page, match)).to_contain_text(f"turn {match.turn_number}", timeout=10_000)
    # The list was put in place anew; a keyboard's place in it was kept.
    expect(link).to_be_focused()
    heard = page.evaluate("() => window.h3Heard")
    assert heard, "no watch event"
    # The page asked its list only because it was told, and not again after.
    assert 1 <= len(lists.sent) <= 2 * len(heard), (lists.sent, heard)
    page.wait_for_timeout(QUIET_MS)
    assert len(lists.sent) <= 2 * len(page.evaluate("() => window.h3Heard")), lists.sent
    # A new public match joins the list, told the same way.
    other = bot_match("newcomer")
    expect(page.locator("#watch-list .match-card", has_text=f"Match {other.pk}")).to_be_visible(
        timeout=10_000
    )
    assert len(channels.sent) == 1, channels.sent  # one EventSource, never reopened
    assert errors == []


def test_the_watch_page_polls_its_list_when_the_channel_is_refused(
    asgi_site: str, page: Page
) -> None:
    from push_client import pass_turn

    match = bot_match("fallback-player")
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.route("**/push/**", lambda route: route.abort())
    lists = Requests(page, "part=list")
    page.goto(f"{asgi_site}/watch/")
    expect(card_turn(page, match)).to_contain_text(f"turn {match.turn_number}")
    pass_turn(match)
    match.refresh_from_db()
    expect(card_turn(page, match)).to_contain_text(f"turn {match.turn_number}", timeout=10_000)
    assert lists.sent, "the page did not fall back to polling its list"
    assert page.evaluate("() => window.h3Push.up") is False
    # Silently: nothing said to the visitor, no error on the page.
    expect(page.locator(".messages, .warning")).to_have_count(0)
    assert errors == []


def test_the_badge_and_the_tab_title_of_a_page_of_no_match_follow_the_channel(
    asgi_site: str, page: Page
) -> None:
    from games import services

    match = bot_match("badged")
    sign_in(page, asgi_site, "badged")
    page.goto(f"{asgi_site}/watch/")
    badge = page.locator("#move-badge")
    expect(badge).to_have_attribute("data-count", "1")
    expect(page).to_have_title(re.compile(r"^\(1\) Watch"))
    channel_up(page)
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if "/push/" not in r.url else None)
    services.match_create(
        creator=match.created_by, seat_count=2, turn_seconds=3600, bots=["random"]
    )
    expect(badge).to_have_attribute("data-count", "2", timeout=10_000)
    expect(badge).to_contain_text("2 matches waiting for your orders")
    expect(page).to_have_title(re.compile(r"^\(2\) Watch"))
    # Told, not asked: the only requests are the list the new match changed.
    assert all("part=list" in url for url in asked), asked


@pytest.mark.slow
def test_the_home_pages_live_match_hears_a_bot_turn_without_polling(
    asgi_site: str, page: Page
) -> None:
    from games import catalog
    from games.guests.models import Showcase

    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.add_init_script(
        "window.h3Turns = [];"
        "document.addEventListener('h3:push-turn', e => window.h3Turns.push(e.detail.turn));"
    )
    page.goto(f"{asgi_site}/")
    board = page.locator("#board-wrap svg.board")
    expect(board).to_have_attribute("data-turn", "0")
    match = Showcase.objects.get(live=True, ruleset=catalog.default()).match
    polls = Requests(page, f"/matches/{match.pk}/poll/")
    channel_up(page)
    page.wait_for_timeout(QUIET_MS)
    assert polls.sent == [], polls.sent
    play_a_turn(match)
    expect(board).to_have_attribute("data-turn", str(match.turn_number), timeout=15_000)
    pushed = page.evaluate("() => window.h3Turns")
    assert pushed and pushed[-1] == match.turn_number, pushed
    # Asked because told: at most the asks of the pushed turns (site.js: until the
    # poll says the version pushed, 10 at most).
    assert 1 <= len(polls.sent) <= 10 * len(pushed), polls.sent
    asked = len(polls.sent)
    page.wait_for_timeout(QUIET_MS)
    if page.evaluate("() => window.h3Turns.length") == len(pushed):  # nothing new told
        assert len(polls.sent) == asked, polls.sent
    assert errors == []


def play_a_turn(match: Any) -> None:
    """celery beat's showcase step, as if the board had had its time, then the turn
    resolved as the worker would (each commit rings the test's bell)."""
    from django.utils import timezone
    from site_support import drain

    from games.guests.showcase import showcase_step

    before = match.turn_number
    end = time.monotonic() + 30
    while match.turn_number == before:
        assert time.monotonic() < end, "the showcase's bots never moved"
        showcase_step(now=timezone.now() + timedelta(seconds=10))
        drain(match, emails=False)


def test_the_home_pages_live_match_polls_when_the_channel_is_refused(
    asgi_site: str, page: Page
) -> None:
    from games import catalog
    from games.guests.models import Showcase

    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.route("**/push/**", lambda route: route.abort())
    page.goto(f"{asgi_site}/")
    board = page.locator("#board-wrap svg.board")
    expect(board).to_have_attribute("data-turn", "0")
    match = Showcase.objects.get(live=True, ruleset=catalog.default()).match
    polls = Requests(page, f"/matches/{match.pk}/poll/")
    play_a_turn(match)
    expect(board).to_have_attribute("data-turn", str(match.turn_number), timeout=15_000)
    assert polls.sent, "the page did not fall back to its poll"
    assert page.evaluate("() => window.h3Push.up") is False
    assert errors == []
