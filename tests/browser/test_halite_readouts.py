"""What a Halite player reads off the board and how a click is taken: the cell under
the pointer (or under a tap) says its owner, strength and production as numbers, a
click on another piece of one's own chooses it, and moving onto one's own piece (a
merge) takes Alt with the click, or an arrow key, and is said in the planner's line."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from browser_support import halite_duel, settle_board
from playwright.sync_api import Page, expect
from test_halite_play import CELL_CENTRE, click_cell, log_in, planned

from games import services
from games.models import Match

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SEED = 2  # seat 1 starts at (1, 2), seat 2 at (8, 2)


@pytest.fixture(autouse=True)
def fixed_seed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(services.matches.secrets, "randbelow", lambda _n: SEED)


def match_with_two_pieces_side_by_side(player: Any) -> Match:
    """Seat 1 holds (1, 2) and its east neighbour (2, 2), strength 60."""
    match = halite_duel(player)
    state = copy.deepcopy(match.state)
    assert state["owner"][2][1] == 1 and state["owner"][2][2] == 0
    state["owner"][2][2], state["strength"][2][2] = 1, 60
    state["scores"]["1"] = 2
    Match.objects.filter(pk=match.pk).update(state=state, initial_state=state)
    match.refresh_from_db()
    return match


def hover(page: Page, x: int, y: int) -> None:
    px, py = page.evaluate(CELL_CENTRE, [x, y])
    page.mouse.move(px - 3, py - 3)
    page.mouse.move(px, py, steps=2)


def test_hovering_a_cell_tells_its_owner_strength_and_production(
    live_server: Any, page: Page
) -> None:
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_viewport_size({"width": 1280, "height": 900})
    player = log_in(page, live_server.url, "reader")
    match = match_with_two_pieces_side_by_side(player)
    state = match.state
    page.goto(f"{live_server.url}/matches/{match.pk}/")
    settle_board(page)
    tip = page.locator("#hl-tip")
    hover(page, 1, 2)
    expect(tip).to_be_visible()
    expect(tip).to_have_text(
        f"(1, 2): seat 1 (blue), strength {state['strength'][2][1]}, "
        f"production {state['production'][2][1]}."
    )
    # A neutral cell: its strength and production, as the state has them.
    neutral = next(
        (x, y)
        for y in range(10)
        for x in range(10)
        if state["owner"][y][x] == 0 and state["strength"][y][x] > 0
    )
    hover(page, *neutral)
    x, y = neutral
    expect(tip).to_have_text(
        f"({x}, {y}): neutral, strength {state['strength'][y][x]}, "
        f"production {state['production'][y][x]}."
    )
    expect(page.locator("#board-wrap svg.board rect.hl-hover")).to_have_count(1)
    # Off the board the tip goes.
    page.mouse.move(2, 2)
    expect(tip).to_be_hidden()
    assert not errors, errors


def test_a_click_on_ones_own_neighbour_chooses_it_and_a_merge_takes_alt(
    live_server: Any, page: Page
) -> None:
    page.set_viewport_size({"width": 1280, "height": 900})
    player = log_in(page, live_server.url, "merger")
    match = match_with_two_pieces_side_by_side(player)
    page.goto(f"{live_server.url}/matches/{match.pk}/")
    settle_board(page)
    expect(page.locator("#planner")).to_be_visible()
    click_cell(page, 1, 2)
    expect(page.locator("#hl-count")).to_contain_text("piece (1, 2) chosen")
    # The neighbour is the player's own piece: the click chooses it, no move is planned.
    click_cell(page, 2, 2)
    expect(page.locator("#hl-count")).to_contain_text("piece (2, 2) chosen")
    assert planned(page) == set()
    expect(page.locator("#hl-help")).to_contain_text("Alt-click")
    # A neutral neighbour still takes the direction at one click.
    click_cell(page, 2, 3)
    assert planned(page) == {(2, 2, 3)}
    # Alt with the click sends the chosen piece onto its own neighbour, and says so.
    click_cell(page, 1, 2)
    px, py = page.evaluate(CELL_CENTRE, [2, 2])
    page.keyboard.down("Alt")
    page.mouse.click(px, py)
    page.keyboard.up("Alt")
    assert planned(page) == {(2, 2, 3), (1, 2, 2)}
    expect(page.locator("#hl-help")).to_contain_text(
        "The piece at (1, 2) goes east onto your piece at (2, 2): they merge"
    )
    expect(page.locator("#hl-count")).to_contain_text("2 moves planned (1 merge onto your own")
    # An arrow key is as deliberate: (2, 2) west onto (1, 2).
    click_cell(page, 2, 2)
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#hl-help")).to_contain_text("onto your piece at (1, 2): they merge")
    assert planned(page) == {(2, 2, 4), (1, 2, 2)}
