"""The match page told of a turn by the push channel (/push/, served by the site's
ASGI application as `make run` and production's stream process serve it: the
conftest's asgi_site): the bot's turn arrives without the page polling, and a
channel cut mid-match leaves the page to its poll, then reconnects with
Last-Event-ID, each turn played once."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import pytest
from browser_support import settle_board, sign_in
from playwright.sync_api import Page, Request, expect

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "api"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "push"))

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Each frame a movie plays: the movie's turn (window.helium3Now); and when each
# pushed turn arrived (performance.now()).
RECORD = """(() => {
  window.h3Frames = []; window.h3Pushed = [];
  document.addEventListener('h3:push-turn', e => window.h3Pushed.push([performance.now(), e.detail.turn]));
  const rec = () => {
    const now = window.helium3Now ? window.helium3Now() : null;
    if (now) window.h3Frames.push(now.turn);
    requestAnimationFrame(rec);
  };
  requestAnimationFrame(rec);
})()"""


def start(page: Page, base: str) -> Any:
    from game_factories import UserFactory

    from games import services

    player = UserFactory(username="listener")
    match = services.match_create(creator=player, seat_count=2, turn_seconds=3600, bots=["random"])
    page.add_init_script(RECORD)
    sign_in(page, base, "listener")
    page.goto(f"{base}/matches/{match.pk}/")
    expect(page.locator("#panel")).to_contain_text("your move")
    page.wait_for_function("() => window.h3Push && window.h3Push.up === true", timeout=15_000)
    return match


def pass_turn(match: Any) -> None:
    from push_client import pass_turn as passing

    passing(match)


class Polls:
    """Every request the page makes to its match's poll, with when it left."""

    def __init__(self, page: Page, match_id: int) -> None:
        self.page = page
        self.path = f"/matches/{match_id}/poll/"
        self.sent: list[tuple[float, str]] = []
        page.on("request", self._seen)

    def _seen(self, request: Request) -> None:
        if self.path in request.url:
            self.sent.append((time.monotonic(), request.url))


def played_once_each(frames: list[int]) -> list[int]:
    """The turns the movies played, in order, each run of frames once."""
    runs: list[int] = []
    for turn in frames:
        if not runs or runs[-1] != turn:
            runs.append(turn)
    return runs


@pytest.mark.slow
def test_a_bot_turn_arrives_pushed_and_the_page_never_polls_on_its_timer(
    asgi_site: str, page: Page
) -> None:
    match = start(page, asgi_site)
    first_turn = match.turn_number
    polls = Polls(page, match.pk)
    # Longer than two of the poll's 3 s: with the channel open it asks nothing.
    page.wait_for_timeout(7_000)
    assert polls.sent == [], polls.sent
    pass_turn(match)
    match.refresh_from_db()
    expect(page.locator("#board-wrap svg.board")).to_have_attribute(
        "data-turn", str(match.turn_number), timeout=15_000
    )
    settle_board(page)
    pushed = page.evaluate("() => window.h3Pushed")
    assert pushed and pushed[-1][1] == match.turn_number, pushed
    # The page asked its view only because it was told: each ask after a push.
    assert 1 <= len(polls.sent) <= 2 * len(pushed), polls.sent
    page.wait_for_timeout(4_000)
    assert len(polls.sent) <= 2 * len(pushed), polls.sent
    played = played_once_each(page.evaluate("() => window.h3Frames"))
    assert played == list(range(first_turn, match.turn_number)), played


def test_a_channel_cut_mid_match_falls_back_to_the_poll_and_resumes_with_each_turn_once(
    asgi_site: str, page: Page
) -> None:
    import asyncio

    from games.push.asgi import Hub

    match = start(page, asgi_site)
    first_turn = match.turn_number
    polls = Polls(page, match.pk)
    reconnects: list[str] = []
    page.on(
        "request",
        lambda r: (
            reconnects.append(r.headers.get("last-event-id") or r.url)
            if "/push/" in r.url
            else None
        ),
    )
    # The cut: the server ends every open channel, and the way back stays shut a while.
    page.route("**/push/**", lambda route: route.abort())
    for loop, hub in list(Hub._hubs.items()):
        if isinstance(loop, asyncio.AbstractEventLoop) and not loop.is_closed():
            loop.call_soon_threadsafe(lambda h=hub: [x.close() for x in list(h.listeners)])
    page.wait_for_function("() => window.h3Push.up === false", timeout=10_000)
    pass_turn(match)
    pass_turn(match)
    match.refresh_from_db()
    cut_turn = match.turn_number
    # The page polls again meanwhile, and shows the turns played.
    expect(page.locator("#board-wrap svg.board")).to_have_attribute(
        "data-turn", str(cut_turn), timeout=20_000
    )
    assert polls.sent, "the page did not fall back to its poll"
    page.unroute("**/push/**")
    page.wait_for_function("() => window.h3Push.up === true", timeout=15_000)
    # The browser came back saying what it was last told (Last-Event-ID, or `last`
    # once the browser gave up and the page opened a new channel).
    assert "running." in reconnects[-1], reconnects[-1]
    settle_board(page)
    pass_turn(match)
    match.refresh_from_db()
    expect(page.locator("#board-wrap svg.board")).to_have_attribute(
        "data-turn", str(match.turn_number), timeout=15_000
    )
    shown = match.turn_number
    settle_board(page)
    played = played_once_each(page.evaluate("() => window.h3Frames"))
    # Every turn since the page opened played, once, in order: none lost, none twice
    # (the match's bots may have played a turn more meanwhile; the page then shows it too).
    match.refresh_from_db()
    assert played == list(range(first_turn, first_turn + len(played))), played
    assert shown - 1 <= played[-1] <= match.turn_number - 1, (played, shown, match.turn_number)
