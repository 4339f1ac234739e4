"""A poll request that never comes back is given up after a while (the page's poll
timeout), so the asks waiting behind it go and the page still comes back to the
player's move: one ask out at a time must not mean stuck for good behind a lost one."""

from __future__ import annotations

import contextlib

import pytest
from browser_support import halite_duel, orders_accepted, sending_orders
from playwright.sync_api import Page, Route, expect
from test_halite_play import log_in, resolve_turn, wait_for_my_move_or_end

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_poll_answer_that_never_comes_is_given_up_and_the_turn_still_arrives(
    live_server: object, page: Page
) -> None:
    base = live_server.url  # type: ignore[attr-defined]
    player = log_in(page, base, "poll-given-up")
    match = halite_duel(player)
    held: list[Route] = []
    page.goto(f"{base}/matches/{match.pk}/")
    assert wait_for_my_move_or_end(page)
    turn = match.state["turn"]
    # Given up after 1.5 s here (20 s by default).
    page.evaluate(
        "() => { document.querySelector('[data-poll-url]').dataset.pollTimeoutMs = '1500'; }"
    )
    # The first look after Send is never answered.
    page.route(
        lambda url: "/poll/" in url and "v=sent" in url and not held,
        lambda route: held.append(route),
    )
    with sending_orders(page):
        page.locator("#bar-send").click()
    orders_accepted(page)
    for _ in range(200):  # the look has left (and is held)
        if held:
            break
        page.wait_for_timeout(50)
    assert held, "the page did not look after Send"
    match = resolve_turn(match, turn + 1)
    # The asks after the lost one go once it is given up: the next turn arrives.
    assert wait_for_my_move_or_end(page)
    expect(page.locator("#board-wrap svg.board")).to_have_attribute("data-turn", str(turn + 1))
    assert len(held) == 1
    for route in held:
        with contextlib.suppress(Exception):  # the browser already gave it up
            route.abort()
