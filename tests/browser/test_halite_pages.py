"""Halite's pages as its players see them, on a laptop (1280 x 900) and a phone (390 x
844), in the light theme and the dark one: the rules page, the create form, a 10 x 10
board mid-match with the planner's selection, a six-seat 50 x 50 board, the replay with
its charts and the end screen. Each is photographed into ci-artifacts/screenshots/,
and every piece of text on each passes WCAG AA contrast (4.5:1, 3:1 for large text)
against what is behind it. The 50 x 50 map takes the laptop's width, and on a phone it
zooms and pans in its own frame, where a tap chooses a piece."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from game_factories import UserFactory
from playwright.sync_api import Browser, Page, expect
from site_support import drain
from test_halite_play import CELL_CENTRE
from test_site_look import signed_in

import engine
from games import services
from games.errors import ServiceError
from games.models import Match, Orders, Seat

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LAPTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
SEED = 3

# Every visible piece of text whose contrast with what is behind it is under WCAG AA:
# the colour (its alpha and the opacities above it blended in) against the backgrounds
# of its ancestors, laid one over the other up to the first opaque one. Text drawn in
# an SVG is checked in tests/games/play/halite/ against the board's own ground; text of
# a disabled control is exempt (WCAG 1.4.3).
LOW_CONTRAST = """() => {
  const parse = c => { const m = /rgba?\\(([^)]+)\\)/.exec(c); if (!m) return null;
    const p = m[1].split(/[\\s,\\/]+/).filter(Boolean).map(Number); return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; };
  const blend = (t, b) => [0, 1, 2].map(i => t[i] * t[3] + b[i] * (1 - t[3])).concat([1]);
  const lum = c => { const f = v => { v /= 255; return v <= 0.04045 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); };
  const ground = el => { const layers = [];
    for (let e = el; e; e = e.parentElement) { const c = parse(getComputedStyle(e).backgroundColor);
      if (c && c[3] > 0) { layers.push(c); if (c[3] >= 1) break; } }
    let bg = [255, 255, 255, 1]; for (let i = layers.length - 1; i >= 0; i--) bg = blend(layers[i], bg); return bg; };
  const bad = [], seen = new Set(), walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walk.nextNode()) {
    const node = walk.currentNode, el = node.parentElement;
    if (!node.textContent.trim() || !el || seen.has(el)) continue;
    seen.add(el);
    if (el.closest('svg, script, style, template, noscript, [hidden], .vh, option, :disabled')) continue;
    const box = el.getBoundingClientRect(), cs = getComputedStyle(el);
    if (!box.width || !box.height || cs.visibility !== 'visible') continue;
    let opacity = 1; for (let e = el; e; e = e.parentElement) opacity *= +getComputedStyle(e).opacity;
    if (!opacity) continue;
    const bg = ground(el), fg0 = parse(cs.color), fg = blend([fg0[0], fg0[1], fg0[2], fg0[3] * opacity], bg);
    const a = lum(fg), b = lum(bg), ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    const size = parseFloat(cs.fontSize), large = size >= 24 || (+cs.fontWeight >= 700 && size >= 18.66);
    if (ratio < (large ? 3 : 4.5)) bad.push(`${el.tagName.toLowerCase()}.${el.className} "${node.textContent.trim().slice(0, 30)}" ${ratio.toFixed(2)}: ${cs.color} on rgb(${bg.slice(0, 3).map(Math.round)})`);
  }
  return bad;
}"""
BOARD_SIZE = """() => {
  const svg = document.querySelector('#board-wrap svg.board'), box = svg.getBoundingClientRect();
  return {width: box.width, cell: box.width / svg.viewBox.baseVal.width * +svg.dataset.cell};
}"""


@pytest.fixture(autouse=True)
def fixed_seed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(services.matches.secrets, "randbelow", lambda _n: SEED)


def advance(match: Match, turns: int) -> None:
    """`turns` turns: each person passes, the bots play (resolved here, or by the browser
    tests' worker should it claim a turn first)."""
    for _ in range(turns):
        drain(match, emails=False)
        if match.status != Match.Status.RUNNING:
            return
        number = match.turn_number
        awaited = set(engine.awaiting(match.state))
        sent = set(
            Orders.objects.filter(match=match, turn_number=number).values_list("seat", flat=True)
        )
        for seat in Seat.objects.filter(match=match, number__in=awaited - sent, user__isnull=False):
            try:
                services.orders_submit(
                    match_id=match.pk, user=seat.user, turn=number, orders={"moves": []}
                )
            except ServiceError:
                break  # resolved meanwhile
        deadline = time.monotonic() + 60
        while match.turn_number == number and match.status == Match.Status.RUNNING:
            assert time.monotonic() < deadline, "the turn was not resolved"
            time.sleep(0.05)
            drain(match, emails=False)


def finished(match: Match) -> Match:
    deadline = time.monotonic() + 120
    while match.status != Match.Status.FINISHED:
        assert time.monotonic() < deadline, match.status
        advance(match, 20)
    return match


@pytest.fixture
def matches(live_server: Any) -> dict[str, Any]:
    """alice plays seat 1 of a 10 x 10 duel 12 turns in and of a six-seat 50 x 50 match 40
    turns in; she watched two bots play a 10 x 10 match to its end."""
    alice = UserFactory(username="alice")
    duel = services.match_create(
        creator=alice, seat_count=2, bots=["grower"], ruleset="halite",
        options={"width": 10, "height": 10},
    )  # fmt: skip
    advance(duel, 12)
    big = services.match_create(
        creator=alice, seat_count=6, bots=["grower"] * 5, ruleset="halite",
        options={"width": 50, "height": 50},
    )  # fmt: skip
    advance(big, 40)
    bots = services.match_create(
        creator=alice, seat_count=2, bots=["grower", "grower"], ruleset="halite",
        options={"width": 10, "height": 10},
    )  # fmt: skip
    finished(bots)
    return {"alice": alice, "duel": duel, "big": big, "over": bots}


def _settled(page: Page) -> None:
    page.wait_for_function("() => !window.matchPage || !window.matchPage.playing()")


def _look(page: Page, name: str, screenshot_dir: Path, problems: list[str]) -> None:
    expect(page.locator("h1")).to_be_visible()
    sideways = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    if sideways > 0:
        problems.append(f"{name}: scrolls {sideways} px sideways")
    problems.extend(f"{name}: {bad}" for bad in page.evaluate(LOW_CONTRAST))
    page.screenshot(path=str(screenshot_dir / f"halite-{name}.png"), full_page=True)


@pytest.mark.parametrize("size", ["laptop", "phone"])
@pytest.mark.slow
def test_every_halite_page_in_both_themes_passes_contrast_and_is_photographed(
    page: Page, live_server: Any, matches: dict[str, Any], screenshot_dir: Path, size: str
) -> None:
    base, browser = live_server.url, page.context.browser
    assert browser is not None
    viewport = LAPTOP if size == "laptop" else PHONE
    problems: list[str] = []
    errors: list[str] = []
    for theme in ("light", "dark"):
        shot = browser_page(browser, matches["alice"], base, viewport, theme)
        shot.on("pageerror", lambda error: errors.append(str(error)))
        tag = f"{theme}-{size}"
        shot.goto(f"{base}/games/halite/")
        _look(shot, f"rules-{tag}", screenshot_dir, problems)
        shot.goto(f"{base}/matches/new/?game=halite")
        _look(shot, f"create-{tag}", screenshot_dir, problems)

        duel = matches["duel"]
        shot.goto(f"{base}/matches/{duel.pk}/")
        _settled(shot)
        shot.locator("details.legend > summary").click()
        _look(shot, f"board-10x10-{tag}", screenshot_dir, problems)
        # The planner with a piece chosen.
        mine = next(
            (x, y)
            for y, row in enumerate(duel.state["owner"])
            for x, owner in enumerate(row)
            if owner == 1
        )
        # The planner's bar is there once the board shows the turn to play.
        expect(shot.locator("#planner")).to_be_visible()
        _settled(shot)
        shot.evaluate("() => window.scrollTo(0, 0)")
        px, py = shot.evaluate(CELL_CENTRE, list(mine))
        shot.mouse.click(px, py)
        expect(shot.locator("#hl-count")).to_contain_text(f"piece ({mine[0]}, {mine[1]}) chosen")
        _look(shot, f"planner-{tag}", screenshot_dir, problems)

        shot.goto(f"{base}/matches/{matches['big'].pk}/")
        _settled(shot)
        _look(shot, f"board-50x50-{tag}", screenshot_dir, problems)

        over = matches["over"]
        shot.goto(f"{base}/matches/{over.pk}/replay/")
        expect(shot.locator("#replay-turns")).to_have_attribute("data-ready", "1")
        middle = over.state["turn"] // 2
        shot.locator("#scrub").fill(str(middle))
        expect(shot.locator(f'#board-wrap svg.board[data-turn="{middle}"]')).to_be_attached()
        expect(shot.locator("#hl-stats")).to_have_attribute("data-turn", str(middle))
        expect(shot.locator("svg.hl-chart .hl-now")).to_have_count(3)
        _look(shot, f"replay-{tag}", screenshot_dir, problems)
        shot.goto(f"{base}/matches/{over.pk}/")
        _settled(shot)
        expect(shot.locator("#panel .status")).to_contain_text("The match is over.")
        _look(shot, f"end-{tag}", screenshot_dir, problems)
        shot.context.close()
    assert not errors, errors
    assert not problems, "\n".join(problems)


def browser_page(
    browser: Browser, user: Any, base: str, viewport: dict[str, int], theme: str
) -> Page:
    return signed_in(
        browser, user, base, viewport=viewport, color_scheme=theme, has_touch=viewport is PHONE
    )


def test_the_50_by_50_map_takes_a_laptops_width_on_the_match_and_replay_pages(
    page: Page, live_server: Any, matches: dict[str, Any]
) -> None:
    shot = browser_page(page.context.browser, matches["alice"], live_server.url, LAPTOP, "light")
    shot.goto(f"{live_server.url}/matches/{matches['big'].pk}/")
    _settled(shot)
    size = shot.evaluate(BOARD_SIZE)
    # It was 548 px (11 px a cell): now as large as the window's height below the title
    # allows (the platform's layout: nothing lies over the board).
    assert size["width"] >= 640 and size["cell"] >= 12.5, size
    panel = shot.locator("#panel").bounding_box()
    assert panel is not None and panel["x"] + panel["width"] <= LAPTOP["width"]
    # The replay page's board takes what its panel leaves.
    big = matches["big"]
    Match.objects.filter(pk=big.pk).update(status=Match.Status.FINISHED)
    shot.goto(f"{live_server.url}/matches/{big.pk}/replay/")
    expect(shot.locator("#replay-turns")).to_have_attribute("data-ready", "1")
    size = shot.evaluate(BOARD_SIZE)
    assert size["width"] >= 800 and size["cell"] >= 15, size
    shot.context.close()


def test_on_a_phone_the_big_map_zooms_and_pans_and_a_tap_chooses_a_piece(
    page: Page, live_server: Any, matches: dict[str, Any], screenshot_dir: Path
) -> None:
    big = matches["big"]
    shot = browser_page(page.context.browser, matches["alice"], live_server.url, PHONE, "light")
    shot.goto(f"{live_server.url}/matches/{big.pk}/")
    _settled(shot)
    assert shot.evaluate(BOARD_SIZE)["cell"] < 8
    zoom_in = shot.get_by_role("button", name="Zoom in")
    zoom_in.click()
    zoom_in.click()
    zoom_in.click()
    expect(shot.locator("#hl-zoom-level")).to_have_text("3×")
    size = shot.evaluate(BOARD_SIZE)
    assert size["cell"] >= 20, size
    frame = "document.querySelector('#board-wrap')"
    assert shot.evaluate(f"{frame}.scrollWidth > {frame}.clientWidth + 100")
    # Bring one of alice's pieces into the frame, and tap it.
    mine = next(
        (x, y)
        for y, row in enumerate(big.state["owner"])
        for x, owner in enumerate(row)
        if owner == 1 and big.state["strength"][y][x] > 0
    )
    piece = shot.locator(f'#board-wrap svg.board .hl-piece[data-x="{mine[0]}"][data-y="{mine[1]}"]')
    piece.scroll_into_view_if_needed()
    px, py = shot.evaluate(CELL_CENTRE, list(mine))
    shot.touchscreen.tap(px, py)
    expect(shot.locator("#hl-count")).to_contain_text(f"piece ({mine[0]}, {mine[1]}) chosen")
    expect(shot.locator("#hl-tip")).to_contain_text(f"({mine[0]}, {mine[1]}): seat 1 (blue)")
    shot.screenshot(path=str(screenshot_dir / "halite-phone-zoomed-tap.png"))
    # The zoom holds when the map is drawn again (the frame carries it).
    shot.locator("#board-wrap svg.board").evaluate("svg => svg.replaceWith(svg.cloneNode(true))")
    assert shot.evaluate(BOARD_SIZE)["cell"] >= 20
    shot.context.close()
