"""After Send, a page whose push channel is open waits to be told: it looks at its
poll once for the page after the orders (the form again, the panel saying they
are in) and then asks only when a `turn` event comes, instead of asking again and
again while the turn waits to be resolved. The resolved turn arrives by the push
and plays as a movie. With the channel shut the page polls as before
(test_push_channel.py's fallback).

The site runs under uvicorn with its push channel (conftest.py's asgi_site). The
match is Halite's, whose seats move at once: the other seat is a person the test
plays, when it chooses, so the turn waits for them as long as the test wants."""

from __future__ import annotations

import time
from typing import Any

import pytest
from browser_support import settle_board, sign_in
from playwright.sync_api import Page, Request, expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Longer than three of the poll's 3 s and than the page's looks after Send without
# the channel (0.3 s to 3 s apart).
QUIET_S = 10.0

PUSHED = """(() => {
  window.pushed_ = [];
  document.addEventListener('h3:push-turn', e => window.pushed_.push(e.detail.turn));
})()"""


class Polls:
    """Every request the page makes to its match's poll, with when it left."""

    def __init__(self, page: Page, match_id: int) -> None:
        self.path = f"/matches/{match_id}/poll/"
        self.sent: list[tuple[float, str]] = []
        page.on("request", self._seen)

    def _seen(self, request: Request) -> None:
        if self.path in request.url:
            self.sent.append((time.monotonic(), request.url))

    def since(self, moment: float) -> list[str]:
        return [url for at, url in self.sent if at >= moment]


def other_moves(match: Any, other: Any) -> None:
    """The other person sends the engine's default orders (standing still); the
    turn is then resolved (here, as the worker would, should none run)."""
    from site_support import drain

    import engine
    from games import services

    match.refresh_from_db()
    assert match.state is not None
    stay = engine.default_orders(match.state, 2)
    services.orders_submit(
        match_id=match.pk,
        user=other,
        turn=match.turn_number,
        orders={k: v for k, v in stay.items() if k not in ("seat", "turn")},
    )
    drain(match, emails=False)


@pytest.mark.slow
def test_after_send_the_page_is_told_the_turn_instead_of_polling(
    asgi_site: str, page: Page
) -> None:
    from game_factories import UserFactory

    from games import services

    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    player, other = UserFactory(username="waiter"), UserFactory(username="other")
    match = services.match_create(
        creator=player,
        seat_count=2,
        turn_seconds=3600,
        bots=[""],
        ruleset="halite",
        options={"width": 10, "height": 10},
    )
    services.seat_join(match_id=match.pk, user=other)
    match.refresh_from_db()
    page.add_init_script(PUSHED)
    sign_in(page, asgi_site, "waiter")
    page.goto(f"{asgi_site}/matches/{match.pk}/")
    expect(page.locator("#panel .your-move")).to_be_visible()
    settle_board(page)
    page.wait_for_function("() => window.h3Push && window.h3Push.up === true", timeout=15_000)
    polls = Polls(page, match.pk)
    sent_turn = match.turn_number

    sent_at = time.monotonic()
    page.locator("#bar-send").click()
    expect(page.locator("html")).to_have_attribute("data-orders-answer", "accepted")
    # The turn waits for the other person: the page is told of nothing more than
    # the orders being in.
    page.wait_for_timeout(QUIET_S * 1000)
    match.refresh_from_db()
    assert match.turn_number == sent_turn
    waited = polls.since(sent_at)
    pushed = page.evaluate("() => window.pushed_.length")
    # The one look after Send, and at most one ask for each turn event heard.
    assert 1 <= len(waited) <= 1 + pushed, (waited, pushed)
    assert "v=sent" in waited[0], waited
    # Nothing asked on a timer: not in the last seconds of the wait.
    late = polls.since(sent_at + QUIET_S - 4)
    assert late == [], (late, waited)

    # The other person moves and the turn is resolved: the page hears of it, plays
    # it and comes back to the player.
    told_at = time.monotonic()
    heard = page.evaluate("() => window.pushed_.length")
    other_moves(match, other)
    match.refresh_from_db()
    assert match.turn_number > sent_turn
    expect(page.locator("#board-wrap svg.board")).to_have_attribute(
        "data-turn", str(match.turn_number), timeout=15_000
    )
    settle_board(page)
    expect(page.locator("#panel .your-move")).to_be_visible()
    pushed_after = page.evaluate("() => window.pushed_.length") - heard
    assert pushed_after >= 1
    # Each ask followed a turn event (an answer still on its way when the next
    # version was pushed is asked once more).
    asked = polls.since(told_at)
    assert 1 <= len(asked) <= 2 * pushed_after, (asked, pushed_after)
    page.wait_for_timeout(4_000)
    assert len(polls.since(told_at)) == len(asked), polls.since(told_at)
    assert not errors, errors
