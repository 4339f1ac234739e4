"""The board is never covered: at every common laptop size and on a phone, while a
player plans (Helium 3 with a shield's direction chooser open) and while a turn plays,
no element lies over any of the board's cells, in every game. On a laptop the whole
board is in the window as the page opens; on a phone the board fits the width and,
scrolled to the top, shows its cells under the site's bar. The controls stand beside
the board when there is room and line up with it when they are under it."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from browser_support import open_context, settle_board
from django.conf import settings
from django.test import Client
from game_factories import UserFactory
from playwright.sync_api import Browser, Page, expect
from site_support import drain, play_out

from games import services
from games.errors import Conflict
from games.models import Match

pytestmark = [pytest.mark.worker, pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LAPTOPS = [(1280, 720), (1280, 900), (1920, 1080)]
PHONE = (390, 844)
SIZES = [*LAPTOPS, PHONE]

# The centre of every cell of the board, in the window's pixels: Helium 3's and the
# remake's grid from the root's size and cell, the other games' own cells (Skyport's
# hexagons, Halite's and the arena's squares). For each, whether the element found
# there is the board itself (its SVG or something inside it), and if not what it is.
COVERED_CELLS = """() => {
  const svg = document.querySelector('#board-wrap svg.board');
  const centres = [];
  if (svg.dataset.cell && svg.dataset.w) {
    const c = +svg.dataset.cell, m = +svg.dataset.margin, ctm = svg.getScreenCTM();
    for (let y = 0; y < +svg.dataset.h; y++) for (let x = 0; x < +svg.dataset.w; x++) {
      const p = new DOMPoint(m + (x + .5) * c, m + (y + .5) * c).matrixTransform(ctm);
      centres.push([x, y, p.x, p.y]);
    }
  } else {
    svg.querySelectorAll('polygon.sp-tile, rect[data-x][data-y], use[data-x][data-y]').forEach(e => {
      const r = e.getBoundingClientRect();
      centres.push([e.dataset.x ?? e.dataset.q, e.dataset.y ?? e.dataset.r, r.left + r.width / 2, r.top + r.height / 2]);
    });
  }
  const W = window.innerWidth, H = window.innerHeight, box = svg.getBoundingClientRect();
  let outside = 0, clipped = 0;
  const covered = [];
  for (const [x, y, px, py] of centres) {
    // A zoomed board (a phone's, around the chosen robot) shows only part of its cells.
    if (px < box.left || py < box.top || px > box.right || py > box.bottom) { clipped++; continue; }
    if (px < 0 || py < 0 || px >= W || py >= H) { outside++; continue; }
    const hit = document.elementFromPoint(px, py);
    if (hit && (hit === svg || svg.contains(hit))) continue;
    covered.push(`(${x}, ${y}) under ${hit ? hit.tagName + '#' + hit.id + '.' + hit.className : 'nothing'}`);
  }
  return {cells: centres.length, outside, clipped, zoomed: svg.classList.contains('zoomed'), covered: covered.slice(0, 6), coveredCount: covered.length,
          board: [box.left, box.top, box.right, box.bottom], window: [W, H], scrollY: window.scrollY};
}"""

# The top of the board just under the site's sticky bar, as a phone shows it when
# the player scrolls to it.
BOARD_TO_TOP = """() => {
  const head = document.querySelector('.site-header').getBoundingClientRect().bottom;
  window.scrollBy(0, document.querySelector('#board-wrap').getBoundingClientRect().top - head);
}"""


def signed_in(browser: Browser, user: Any, base: str, size: tuple[int, int], theme: str) -> Page:
    client = Client()
    client.force_login(user)
    context = open_context(browser, viewport={"width": size[0], "height": size[1]})
    cookie = client.cookies[settings.SESSION_COOKIE_NAME]
    context.add_cookies([{"name": cookie.key, "value": cookie.value, "url": base}])
    page = context.new_page()
    page.goto(f"{base}/rules/")
    page.evaluate("theme => localStorage.setItem('h3-theme', theme)", theme)
    return page


def assert_board_uncovered(page: Page, what: str) -> dict[str, Any]:
    """Every cell in the window is the board's; on a laptop every cell is in it."""
    phone = page.viewport_size == {"width": PHONE[0], "height": PHONE[1]}
    if phone:
        page.evaluate(BOARD_TO_TOP)
    seen = page.evaluate(COVERED_CELLS)
    assert seen["cells"] > 0, (what, seen)
    assert not seen["coveredCount"], (what, seen)
    if phone:
        left, _, right, _ = seen["board"]
        assert left >= 0 and right <= seen["window"][0], (
            what,
            "the board is wider than the phone",
            seen,
        )
        # Scrolled to it, the phone shows most of the board (the rest is a scroll away).
        assert seen["outside"] < (seen["cells"] - seen["clipped"]) / 4, (what, seen)
    else:
        # (Cells the board itself leaves out of its frame, as Skyport's cut map, are not counted.)
        assert seen["outside"] == 0, (what, "cells out of the window", seen)
    return seen


def open_match(page: Page, base: str, match: Match) -> None:
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{base}/matches/{match.pk}/")
    expect(page.locator("#panel")).to_contain_text("your move", timeout=60_000)
    settle_board(page)
    expect(page.locator("#planner")).to_be_visible()
    assert not errors, errors


def open_shield_directions(page: Page) -> None:
    """Helium 3's shield for robot 1-5 on a cell, its deflect still to choose."""
    page.locator('#board-wrap svg.board g.rb[data-id="1-5"]').click()
    page.locator('#kinds button[data-kind="shield"]').click()
    cells = page.locator("#board-wrap .hl rect")
    expect(cells.first).to_be_visible()
    cells.last.click()
    expect(page.locator("#dirs")).to_be_visible()
    expect(page.locator("#dirs button").first).to_be_visible()


def passed(match: Match, user: Any, turns: int) -> Match:
    """The player passes and the bots play until `turns` turns were played."""
    import engine

    end = time.monotonic() + 60
    while time.monotonic() < end:
        drain(match, emails=False)
        if match.status == Match.Status.FINISHED or match.turn_number >= turns:
            return match
        assert match.state is not None
        if 1 in engine.awaiting(match.state):
            try:
                services.orders_submit(
                    match_id=match.pk, user=user, turn=match.turn_number, actions=[]
                )
                continue
            except Conflict:  # the worker moved the match on meanwhile
                pass
        time.sleep(0.05)  # the worker is playing the bots' seats
    raise AssertionError("the match did not get that far")


@pytest.mark.slow
def test_no_cell_of_a_helium3_board_is_covered_while_planning_a_shield_or_watching_a_turn(
    live_server: Any, celery_worker: Any, browser: Browser
) -> None:
    base = live_server.url
    player = UserFactory(username="shieldbearer")
    match = passed(
        services.match_create(
            creator=player, seat_count=4, turn_seconds=3600, bots=["fighter", "miner", "random"]
        ),
        player,
        turns=3,
    )
    for size in SIZES:
        page = signed_in(browser, player, base, size, "light")
        open_match(page, base, match)
        assert_board_uncovered(page, (size, "your move"))
        open_shield_directions(page)
        assert_board_uncovered(page, (size, "a shield's direction"))
        page.keyboard.press("Escape")
        page.keyboard.press("Escape")

        # A turn plays: the bots' moves show on a board nothing covers.
        turn = match.turn_number
        services.orders_submit(match_id=match.pk, user=player, turn=turn, actions=[])
        page.wait_for_function(
            "() => document.querySelector('#player.playing')", timeout=60_000, polling=20
        )
        assert_board_uncovered(page, (size, "a turn playing"))
        # Seen while it plays; the rest of the movie is skipped (inside the page, as
        # the board allows), and the player's move comes after it.
        settle_board(page)
        expect(page.locator("#panel")).to_contain_text("your move", timeout=60_000)
        match.refresh_from_db()
        page.context.close()


GAMES = {
    "helium3-remake": {"bots": ["prospector"], "options": {"rounds": 5}},
    "halite": {"bots": ["grower"], "options": {"width": 30, "height": 30}},
    "skyport": {"bots": ["prospector"], "options": {"rounds": 5}},
    "arena": {"bots": ["hunter"], "options": {"rounds": 20}},
}


@pytest.mark.parametrize("ruleset", list(GAMES))
def test_no_cell_of_the_board_is_covered_while_planning(
    live_server: Any, celery_worker: Any, browser: Browser, screenshot_dir: Path, ruleset: str
) -> None:
    base = live_server.url
    player = UserFactory(username="planner")
    setup = GAMES[ruleset]
    match = services.match_create(
        creator=player,
        seat_count=2,
        turn_seconds=3600,
        bots=setup["bots"],
        ruleset=ruleset,
        options=setup["options"],
    )
    for size in SIZES:
        page = signed_in(browser, player, base, size, "dark")
        open_match(page, base, match)
        assert_board_uncovered(page, (ruleset, size))
        page.screenshot(path=str(screenshot_dir / f"layout-{ruleset}-{size[0]}x{size[1]}.png"))
        page.context.close()


def controls_beside_or_under(page: Page) -> dict[str, Any]:
    return page.evaluate(
        """() => {
          const r = e => { const b = e.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
          const svg = document.querySelector('#board-wrap svg.board');
          const shown = [...document.querySelectorAll('#board-bar button, #board-bar select')]
            .filter(e => e.checkVisibility());
          return {board: r(svg), controls: shown.map(r), bar: r(document.querySelector('#board-bar')),
                  panel: r(document.querySelector('#panel'))};
        }"""
    )


def test_the_end_screen_keeps_the_controls_by_the_board_and_is_photographed(
    live_server: Any, celery_worker: Any, browser: Browser, screenshot_dir: Path
) -> None:
    base = live_server.url
    player = UserFactory(username="finisher")
    match = services.match_create(
        creator=player, seat_count=4, turn_seconds=3600, bots=["fighter", "miner", "random"]
    )
    middle = passed(
        services.match_create(
            creator=player, seat_count=4, turn_seconds=3600, bots=["fighter", "miner", "random"]
        ),
        player,
        turns=6,
    )
    play_out(match)
    assert match.status == Match.Status.FINISHED
    for device, size in (("laptop", (1280, 900)), ("phone", PHONE)):
        for theme in ("light", "dark"):
            page = signed_in(browser, player, base, size, theme)
            open_match(page, base, middle)
            open_shield_directions(page)
            assert_board_uncovered(page, (device, theme, "mid-turn"))
            page.evaluate("() => window.scrollTo(0, 0)")
            page.screenshot(path=str(screenshot_dir / f"layout-shield-{device}-{theme}.png"))

            page.goto(f"{base}/matches/{match.pk}/")
            expect(page.get_by_text("The match is over.").first).to_be_visible(timeout=60_000)
            settle_board(page)
            seen = controls_beside_or_under(page)
            left, top, right, bottom = seen["board"]
            # A phone shows the player's controls only while a turn plays.
            assert seen["controls"] or device == "phone", seen
            for c in seen["controls"]:
                beside = c[0] >= right and c[1] < bottom
                under = c[1] >= bottom - 1 and c[2] <= right + 1
                assert beside or under, (device, theme, "a control away from the board", seen)
            page.screenshot(path=str(screenshot_dir / f"layout-end-{device}-{theme}.png"))
            page.context.close()
