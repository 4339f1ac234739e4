"""Halite's planner on the torus, and its turn played on the board: moves across an
edge drawn at both edges, the keyboard alone (cursor, choose, direct, keep still,
let go), a box of pieces, Clear, the plan sent as the moves textarea, and the turn's
animation sliding the pieces before the server's next board replaces it."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from browser_support import halite_duel, sending_orders, settle_board
from playwright.sync_api import Page, expect
from test_halite_play import PHONE, box_select, click_cell, log_in, piece, planned

from games import services
from games.models import Match, Orders

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SEED = 2  # seat 1 starts at (1, 2), seat 2 at (8, 2)
# Pieces the test gives seat 1 besides its start: on the corner (it wraps west and
# north), on the east edge and on the south edge.
EDGES = [(0, 0), (9, 5), (4, 9)]


@pytest.fixture(autouse=True)
def fixed_seed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(services.matches.secrets, "randbelow", lambda _n: SEED)


def match_with_pieces_on_the_edges(player: Any) -> Match:
    match = halite_duel(player)
    state = copy.deepcopy(match.state)
    assert state["owner"][2][1] == 1
    for x, y in EDGES:
        state["owner"][y][x], state["strength"][y][x] = 1, 200
    state["scores"]["1"] = 1 + len(EDGES)
    # The match starts from this state: the page's first movie starts from it too.
    Match.objects.filter(pk=match.pk).update(state=state, initial_state=state)
    match.refresh_from_db()
    return match


SHAFTS = """() => { const p = document.querySelector('#board-wrap .hl-plan .hl-shaft');
  return p ? (p.getAttribute('d').match(/M/g) || []).length : 0; }"""

# The turn as it plays: the caption names it, the panel shows that turn and the pieces
# it moves are drawn on the canvas over the board, the board's own pieces hidden under
# the canvas that draws the others (no piece of the board's SVG is moved or restyled).
SLIDING = """() => {
  const cap = document.querySelector('#caption'), status = document.querySelector('#panel .status');
  const moving = document.querySelector('#board-wrap canvas.hl-overlay.hl-moving');
  const still = document.querySelector('#board-wrap canvas.hl-overlay.hl-still');
  const group = document.querySelector('#board-wrap svg.board g.hl-pieces');
  return cap && cap.textContent.startsWith('Turn 0 plays') && moving && still
    && +moving.dataset.moving >= 3 && group.getAttribute('opacity') === '0'
    && !document.querySelector('#board-wrap .hl-piece[style]')
    && status.textContent.startsWith('Showing turn 0');
}"""
# A point of the canvas that moves pieces: is anything drawn there (alpha > 0)?
DRAWN_AT = """([x, y]) => {
  const c = document.querySelector('#board-wrap canvas.hl-overlay.hl-moving');
  if (!c) return null;
  const svg = document.querySelector('#board-wrap svg.board'), vb = svg.viewBox.baseVal, d = svg.dataset;
  const px = (+d.margin + (x + 0.5) * +d.cell) * c.width / vb.width, py = (+d.margin + (y + 0.5) * +d.cell) * c.height / vb.height;
  return c.getContext('2d').getImageData(Math.round(px), Math.round(py), 1, 1).data[3] > 0;
}"""


def test_moves_across_the_edges_planned_by_mouse_keyboard_and_box_reach_the_engine(
    live_server: Any, page: Page, screenshot_dir: Path
) -> None:
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_viewport_size({"width": 1280, "height": 900})
    player = log_in(page, live_server.url, "wrapper")
    match = match_with_pieces_on_the_edges(player)
    page.goto(f"{live_server.url}/matches/{match.pk}/")
    settle_board(page)
    expect(page.locator("#planner")).to_be_visible()
    # Without a plan the plain form's own button is hidden: the bar sends.
    expect(page.locator("#orders-form .send")).to_be_hidden()

    # The corner piece west: one arrow off the west edge, one coming in at the east.
    piece(page, 0, 0).click()
    page.keyboard.press("ArrowLeft")
    assert planned(page) == {(0, 0, 4)}
    assert page.evaluate(SHAFTS) == 2
    # The east edge's piece east, by a click on the cell across the edge.
    piece(page, 9, 5).click()
    click_cell(page, 0, 5)
    assert planned(page) == {(0, 0, 4), (9, 5, 2)}
    assert page.evaluate(SHAFTS) == 4
    # A click on a piece of the other seat chooses nothing.
    piece(page, 8, 2).click()
    expect(page.locator("#hl-count")).not_to_contain_text("chosen")
    expect(page.locator("#cell-info")).to_contain_text("(8, 2): seat 2")

    # The keyboard alone: the board takes focus, Shift and the arrows move its cursor,
    # Enter chooses the piece there, an arrow directs it (across the south edge),
    # the full stop keeps a piece still.
    page.locator("#board-wrap svg.board").focus()
    page.keyboard.press("Escape")
    # From the last cell clicked, (8, 2): four west, three north across the edge.
    for key in ["Shift+ArrowLeft"] * 4 + ["Shift+ArrowUp"] * 3:
        page.keyboard.press(key)
    expect(page.locator("#cell-info")).to_contain_text("(4, 9): seat 1")
    expect(page.locator("#board-wrap .hl-plan .hl-cursor")).to_have_count(1)
    page.keyboard.press("Enter")
    expect(page.locator("#hl-count")).to_contain_text("piece (4, 9) chosen")
    page.keyboard.press("ArrowDown")
    assert planned(page) == {(0, 0, 4), (9, 5, 2), (4, 9, 3)}
    page.keyboard.press("Enter")
    page.keyboard.press(".")
    assert planned(page) == {(0, 0, 4), (9, 5, 2)}
    page.screenshot(path="/tmp/halite_planner_laptop.png")

    # A box round the start piece and the corner one: both go south, the others keep theirs.
    box_select(page, (0, 0), (1, 2))
    expect(page.locator("#hl-count")).to_contain_text("2 pieces chosen")
    page.locator("#hl-dirs").get_by_role("button", name="Go south").click()
    assert planned(page) == {(0, 0, 3), (1, 2, 3), (9, 5, 2)}
    expect(page.locator("#hl-count")).to_contain_text("2 pieces chosen")
    page.keyboard.press("Escape")
    expect(page.locator("#hl-count")).to_have_text("3 moves planned.")
    # Clear forgets it all; the plan typed in the textarea is drawn on the board.
    page.get_by_role("button", name="Clear").click()
    assert planned(page) == set() and page.evaluate(SHAFTS) == 0
    page.locator('#orders-form textarea[name="moves"]').fill("0 0 w\n9 5 2\n1 2 n")
    assert page.evaluate(SHAFTS) == 5
    expect(page.locator("#hl-count")).to_have_text("3 moves planned.")

    page.set_viewport_size(PHONE)
    page.evaluate("window.scrollTo(0, document.querySelector('#board-wrap').offsetTop - 60)")
    page.screenshot(path="/tmp/halite_planner_phone.png")
    page.set_viewport_size({"width": 1280, "height": 900})
    page.locator("#speed").select_option("1")
    with sending_orders(page):
        page.get_by_role("button", name="Send", exact=True).click()
    sent = Orders.objects.get(match=match, turn_number=0, seat=1)
    assert {tuple(m) for m in sent.orders["moves"]} == {(0, 0, 4), (9, 5, 2), (1, 2, 1)}

    # The turn resolves and plays: the pieces slide, then the next board is the server's.
    from site_support import drain

    drain(match, emails=False)
    page.wait_for_function(SLIDING, timeout=15_000, polling="raf")
    # The piece sent north from (1, 2) is drawn on its way, then at (1, 1), on the canvas.
    page.wait_for_function(f"() => ({DRAWN_AT})([1, 1]) === true", timeout=5_000, polling="raf")
    page.screenshot(path="/tmp/halite_animation.png")
    settle_board(page)
    expect(page.locator("#board-wrap svg.board")).to_have_attribute("data-turn", "1")
    match.refresh_from_db()
    for x, y in [(9, 0), (0, 5)]:
        if match.state["owner"][y][x] == 1:
            expect(piece(page, x, y)).to_have_attribute("data-owner", "1")
    expect(page.locator("#board-wrap .hl-piece[style]")).to_have_count(0)
    assert not errors, errors
