"""Halite played in the browser: a person plans moves on the board against the
planning bot (one piece clicked and sent by an arrow key, a neighbouring cell or a
direction button; a group chosen by dragging a box), each turn's orders reach the
engine as planned, and the match is played to its last turn and its result: the
first turns on the board, the rest the same way through the services while the page
follows them to the end. Every step waits for the state it needs (the form of the
next turn, the answer to the orders, the turn resolved), never for a time."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from browser_support import (
    halite_duel,
    match_over,
    orders_accepted,
    sending_orders,
    settle_board,
    sign_in,
)
from playwright.sync_api import Page, expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LAPTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
DX = [0, 0, 1, 0, -1]
DY = [0, -1, 0, 1, 0]
ARROW_KEY = {1: "ArrowUp", 2: "ArrowRight", 3: "ArrowDown", 4: "ArrowLeft"}
WORD = {1: "north", 2: "east", 3: "south", 4: "west"}
Move = tuple[int, int, int]
# A pinned map: with it this test's way of playing lasts the whole match against the
# planning bot (100 turns), planning on a good many of them.
SEED = 9
# The turns planned on the board (a phone's among them); the page follows the others.
BOARD_TURNS = 24


@pytest.fixture
def fixed_seed(monkeypatch: pytest.MonkeyPatch) -> None:
    from games import services

    monkeypatch.setattr(services.matches.secrets, "randbelow", lambda _n: SEED)


def log_in(page: Page, base: str, username: str) -> Any:
    from game_factories import UserFactory

    player = UserFactory(username=username)
    sign_in(page, base, username)
    return player


def captures(state: dict[str, Any], seat: int) -> list[Move]:
    """For each of the seat's pieces, a move onto the weakest neutral neighbour it
    beats (across the edges too) and no enemy can reach next turn, strongest pieces
    first: how this test plays."""
    width, height = state["width"], state["height"]
    owner, strength = state["owner"], state["strength"]

    def near_enemy(x: int, y: int) -> bool:
        return any(
            owner[(y + dy) % height][(x + dx) % width] not in (0, seat)
            for dx in range(-2, 3)
            for dy in range(-2, 3)
            if abs(dx) + abs(dy) <= 2
        )

    moves = []
    for y in range(height):
        for x in range(width):
            if owner[y][x] != seat:
                continue
            options = []
            for d in (1, 2, 3, 4):
                nx, ny = (x + DX[d]) % width, (y + DY[d]) % height
                if (
                    owner[ny][nx] == 0
                    and strength[ny][nx] < strength[y][x]
                    and not near_enemy(nx, ny)
                ):
                    options.append((strength[ny][nx], d))
            if options:
                moves.append((strength[y][x], (x, y, min(options)[1])))
    return [move for _, move in sorted(moves, reverse=True)]


def own_cells(state: dict[str, Any], seat: int) -> list[tuple[int, int]]:
    return [
        (x, y)
        for y, row in enumerate(state["owner"])
        for x, owner in enumerate(row)
        if owner == seat
    ]


CELL_CENTRE = """([x, y]) => {
  const svg = document.querySelector('#board-wrap svg.board'), d = svg.dataset, box = svg.getBoundingClientRect();
  const vb = svg.viewBox.baseVal, k = box.width / vb.width;
  return [box.left + (+d.margin + (x + 0.5) * +d.cell - vb.x) * k, box.top + (+d.margin + (y + 0.5) * +d.cell - vb.y) * k];
}"""


def click_cell(page: Page, x: int, y: int) -> None:
    """A click at the middle of cell (x, y), whatever is drawn there."""
    px, py = page.evaluate(CELL_CENTRE, [x, y])
    page.mouse.click(px, py)


def piece(page: Page, x: int, y: int) -> Any:
    return page.locator(f'#board-wrap svg.board .hl-piece[data-x="{x}"][data-y="{y}"]')


def planned(page: Page) -> set[Move]:
    text = page.locator('#orders-form textarea[name="moves"]').input_value()
    return {(int(a), int(b), int(c)) for a, b, c in (line.split() for line in text.splitlines())}


def give(page: Page, move: Move, way: int, width: int, height: int) -> None:
    """Click the piece, then send it by an arrow key (way 0), a click on the
    neighbouring cell (1, across the edge when it wraps) or a direction button (2)."""
    x, y, d = move
    piece(page, x, y).click()
    expect(page.locator("#hl-help")).to_contain_text(f"Piece ({x}, {y}) chosen")
    if way == 0:
        page.keyboard.press(ARROW_KEY[d])
    elif way == 1:
        click_cell(page, (x + DX[d]) % width, (y + DY[d]) % height)
    else:
        page.locator("#hl-dirs").get_by_role("button", name=f"Go {WORD[d]}").click()
    expect(page.locator("#hl-help")).to_contain_text(f"goes {WORD[d]}")


def box_select(page: Page, corner: tuple[int, int], other: tuple[int, int]) -> None:
    """Drag a box from the middle of one cell to the middle of another."""
    x0, y0 = page.evaluate(CELL_CENTRE, list(corner))
    x1, y1 = page.evaluate(CELL_CENTRE, list(other))
    page.mouse.move(x0, y0)
    page.mouse.down()
    page.mouse.move((x0 + x1) / 2, (y0 + y1) / 2, steps=4)
    page.mouse.move(x1, y1, steps=4)
    page.mouse.up()


# One step inside the page: press Skip while a turn plays (the orders form waits for
# the board to reach the turn it is for), done once the form or the result is there.
MY_MOVE_OR_END = """() => {
  const skip = document.querySelector('#skip');
  if (skip && !skip.disabled) { skip.click(); return false; }
  const status = document.querySelector('#panel .status');
  return !!document.querySelector('#orders-form textarea[name="moves"]')
    || (!!status && status.textContent.includes('The match is over.'));
}"""


def wait_for_my_move_or_end(page: Page) -> bool:
    """Wait (skipping animations) until the board waits for the player's orders; False
    once the match is over."""
    page.wait_for_function(MY_MOVE_OR_END, timeout=60_000, polling=50)
    settle_board(page)
    expect(page.locator("#skip")).to_be_disabled()
    return not match_over(page)


def resolve_turn(match: Any, turn: int) -> Any:
    """Resolve the turn the player's orders completed (the bot's were in at once), as
    the worker would: here in the test, so the page meets the real poll and services
    without a broker in between. A worker left running by an earlier test may get
    there first; the turn resolves once either way."""
    from site_support import drain, wait_for

    def moved_on() -> Any:
        drain(match, emails=False)
        return match if match.state["turn"] >= turn or match.state["over"] else None

    return wait_for(moved_on, timeout=30, what=f"turn {turn}")


def played_to_the_end(match: Any, player: Any) -> Any:
    """Seat 1 plays this test's way through the services, turn after turn, until the
    match is over (the bot's orders are in at once; each turn resolves here)."""
    from games import services
    from games.models import Match

    for _ in range(200):
        match.refresh_from_db()
        if match.status == Match.Status.FINISHED:
            return match
        moves = [list(move) for move in captures(match.state, 1)[:3]]
        services.orders_submit(
            match_id=match.pk, user=player, turn=match.turn_number, orders={"moves": moves}
        )
        resolve_turn(match, match.state["turn"] + 1)
    raise AssertionError("the match did not end")


def sent_orders(match: Any, turn: int, seat: int) -> set[Move]:
    """The moves the engine resolved for the seat on that turn."""
    from games.models import Resolution

    orders = Resolution.objects.get(match=match, turn_number=turn).orders
    mine = next(o for o in orders if o["seat"] == seat)
    return {(m[0], m[1], m[2]) for m in mine["moves"]}


@pytest.mark.slow
def test_a_halite_match_is_planned_on_the_board_and_played_to_its_end(
    live_server: Any, page: Page, screenshot_dir: Path, fixed_seed: None
) -> None:
    from games.models import Match

    base = live_server.url
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_viewport_size(LAPTOP)
    player = log_in(page, base, "navigator")
    match = halite_duel(player)
    page.goto(f"{base}/matches/{match.pk}/")
    turns_planned = boxed = 0
    while wait_for_my_move_or_end(page):
        match.refresh_from_db()
        state, turn = match.state, match.state["turn"]
        width, height = state["width"], state["height"]
        expect(page.locator("#board-wrap svg.board")).to_have_attribute("data-turn", str(turn))
        if turn >= BOARD_TURNS:
            break
        mine = own_cells(state, 1)
        # A few turns are planned on a phone's screen.
        page.set_viewport_size(PHONE if 6 <= turn < 9 else LAPTOP)
        if not boxed and len(mine) >= 2:
            # A box round every cell of the map chooses all of the player's pieces; one
            # arrow key sends them all, drawn as one arrow each; Escape lets the group
            # go (the plan stays) and Clear forgets the plan.
            box_select(page, (0, 0), (width - 1, height - 1))
            expect(page.locator("#hl-count")).to_contain_text(f"{len(mine)} pieces chosen")
            page.keyboard.press("ArrowDown")
            assert planned(page) == {(x, y, 3) for x, y in mine}
            arrows = page.locator("#board-wrap .hl-plan .hl-shaft")
            assert arrows.get_attribute("d").count("M") == len(mine) + sum(
                1 for _, y in mine if y == height - 1
            )
            page.keyboard.press("Escape")
            expect(page.locator("#hl-count")).not_to_contain_text("chosen")
            assert len(planned(page)) == len(mine)
            page.get_by_role("button", name="Clear").click()
            assert planned(page) == set()
            boxed += 1
        wanted: set[Move] = set()
        for i, move in enumerate(captures(state, 1)[:3]):
            give(page, move, (turn + i) % 3, width, height)
            wanted.add(move)
        assert planned(page) == wanted
        turns_planned += bool(wanted)
        if turn in (4, 7):
            name = "halite_laptop_planned.png" if turn == 4 else "halite_phone_planned.png"
            page.screenshot(path=str(screenshot_dir / name))
        with sending_orders(page):
            page.locator("#bar-send").click()
        orders_accepted(page)
        # The turn resolves (the bot's orders were in already); the engine got the plan.
        match = resolve_turn(match, turn + 1)
        assert sent_orders(match, turn, 1) == wanted

    # The rest of the match, played the same way through the services (as a bot of the
    # API would): the page, waiting for the player's move, follows it to its end.
    match = played_to_the_end(match, player)
    assert not wait_for_my_move_or_end(page)
    assert match.status == Match.Status.FINISHED
    assert turns_planned >= 5 and boxed
    results = page.locator("#panel section.results")
    expect(results).to_be_visible()
    winner = match.state["winners"][0]
    expect(results.locator(f'tr.won[data-seat="{winner}"]')).to_be_visible()
    expect(page.locator("#panel .status")).to_contain_text("The match is over.")
    page.screenshot(path=str(screenshot_dir / "halite_laptop_finished.png"))
    assert not errors, errors
