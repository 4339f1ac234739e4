"""A plan being made survives the page bringing the same turn's orders again. A poll's
answer that left before the turn's form came (or a look after a push, or after Send)
brings the orders of the turn being planned once more, and the game's planner starts
again from the form it brings: what the player changed in the form shown stays, in
Halite's moves box as in Helium 3's rows, and is what Send sends."""

from __future__ import annotations

from typing import Any

import pytest
from browser_support import halite_duel, orders_accepted, sending_orders
from playwright.sync_api import Page, expect
from test_board_planner import log_in_and_start, plan_a_move
from test_halite_play import captures, fixed_seed, give, log_in, planned, wait_for_my_move_or_end

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
__all__ = ["fixed_seed"]  # the pinned Halite map, a fixture of this module too

# The poll asked for the turn the board shows, as an answer on its way since before the
# form came would be: no movie, the panel, history and orders of that turn anew.
SAME_TURN_AGAIN = """() => {
  window.ordersShown = document.querySelector('#orders');
  const page = document.querySelector('#match'), svg = document.querySelector('#board-wrap svg.board');
  htmx.ajax('GET', page.dataset.pollUrl + '?v=again&since=' + svg.dataset.turn, {target: '#poll', swap: 'outerHTML'});
}"""
ORDERS_BROUGHT_AGAIN = """() => !!window.ordersShown && !!document.querySelector('#orders-form')
  && document.querySelector('#orders') !== window.ordersShown"""


def bring_the_same_turn_again(page: Page) -> None:
    turn = page.locator("#board-wrap svg.board").get_attribute("data-turn")
    page.evaluate(SAME_TURN_AGAIN)
    page.wait_for_function(ORDERS_BROUGHT_AGAIN, timeout=15_000, polling=50)
    expect(page.locator('#orders-form input[name="turn"]')).to_have_value(turn or "")


def test_a_halite_plan_stays_when_the_same_turn_is_brought_again(
    live_server: Any, page: Page, fixed_seed: None
) -> None:
    from games.models import Orders

    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    player = log_in(page, live_server.url, "keeper")
    match = halite_duel(player)
    page.goto(f"{live_server.url}/matches/{match.pk}/")
    assert wait_for_my_move_or_end(page)
    state = match.state
    assert state is not None
    move = captures(state, 1)[0]
    give(page, move, 2, state["width"], state["height"])
    assert planned(page) == {move}

    bring_the_same_turn_again(page)
    assert planned(page) == {move}
    x, y, d = move
    assert page.evaluate("() => window.halitePlan().plan") == {f"{x},{y}": d}
    expect(page.locator("#hl-count")).to_have_text("1 move planned.")
    with sending_orders(page):
        page.locator("#bar-send").click()
    orders_accepted(page)
    sent = Orders.objects.get(match=match, turn_number=0, seat=1)
    assert [tuple(m) for m in sent.orders["moves"]] == [move]
    assert not errors, errors


def test_a_helium3_plan_stays_when_the_same_turn_is_brought_again(
    live_server: Any, page: Page
) -> None:
    from games.models import Orders

    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    match = log_in_and_start(page, live_server.url)
    to = plan_a_move(page, "1-5")
    told = page.get_by_text(f"Robot 1-5: move to ({to[0]}, {to[1]}).")
    expect(told).to_be_visible()

    bring_the_same_turn_again(page)
    expect(told).to_be_visible()
    expect(page.locator('#orders-form [name="robot_0"]')).to_have_value("1-5")
    expect(page.locator('#orders-form [name="x_0"]')).to_have_value(str(to[0]))
    with sending_orders(page):
        page.get_by_role("button", name="Send orders").click()
    orders_accepted(page)
    sent = Orders.objects.get(match=match, turn_number=0, seat=1)
    assert sent.orders["actions"][0]["robot"] == "1-5", sent.orders
    assert not errors, errors
