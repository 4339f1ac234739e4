"""What the Helium 3 board tells while a turn is planned: a cell's helium by the cell
(clicked or pointed at), what a mine would yield on each of its targets before one is
chosen (and a mine that would take nothing says so), no target that looks chosen
before it is pointed at, the chosen robot ringed, a phone's words ("tap") and whole
captions, and the remake's planner speaking of vehicles. Each planned mine is
photographed, light and dark, laptop and phone."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from browser_support import open_context, settle_board
from django.conf import settings
from django.core.cache import cache, caches
from django.test import Client
from playwright.sync_api import Browser, Page, expect

pytestmark = [pytest.mark.worker, pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LAPTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


def start(ruleset: str = "helium3", mine_near: str | None = None) -> tuple[Any, Any]:
    """A two-seat match against a bot, the player to move. With `mine_near`, that robot
    stands in a bare stretch (two cells each way, where a mine takes nothing) with a
    rich patch three cells away towards the middle (where one takes much)."""
    from game_factories import UserFactory

    from games import services
    from games.models import Match

    player = UserFactory()
    extra: dict[str, Any] = (
        {"ruleset": ruleset, "options": {"rounds": 5}} if ruleset != "helium3" else {}
    )
    match = services.match_create(
        creator=player,
        seat_count=2,
        turn_seconds=3600,
        bots=["prospector" if extra else "random"],
        **extra,
    )
    if mine_near:
        state = match.state
        robot = next(r for r in state["robots"] if r["id"] == mine_near)
        rx, ry = robot["x"], robot["y"]
        sx = 1 if rx < state["width"] / 2 else -1
        sy = 1 if ry < state["height"] / 2 else -1
        for y, row in enumerate(state["helium"]):
            for x in range(len(row)):
                if abs(x - rx) <= 2 and abs(y - ry) <= 2:
                    row[x] = 0
                if abs(x - (rx + 4 * sx)) <= 1 and abs(y - (ry + 4 * sy)) <= 1:
                    row[x] = 800
        Match.objects.filter(pk=match.pk).update(state=state, record=None)
        cache.clear()
        caches["pages"].clear()
    return player, match


def open_page(
    browser: Browser,
    base: str,
    user: Any,
    match: Any,
    viewport: dict[str, int],
    theme: str = "light",
) -> Page:
    client = Client()
    client.force_login(user)
    phone = viewport["width"] < 600
    context = open_context(browser, viewport=viewport, is_mobile=phone, has_touch=phone)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME]
    context.add_cookies([{"name": cookie.key, "value": cookie.value, "url": base}])
    page = context.new_page()
    page.goto(f"{base}/rules/")
    page.evaluate("theme => localStorage.setItem('h3-theme', theme)", theme)
    page.goto(f"{base}/matches/{match.pk}/")
    expect(page.get_by_text("your move")).to_be_visible()
    settle_board(page)
    return page


def robot(page: Page, robot_id: str) -> Any:
    return page.locator(f'#board-wrap svg.board g.rb[data-id="{robot_id}"]')


def choose(page: Page, robot_id: str, action: str) -> None:
    """Choose a robot, then an action, with the pointer (a tap on a phone)."""
    robot(page, robot_id).click()
    page.get_by_role("button", name=re.compile("^" + action)).click()
    expect(page.locator("#board-wrap .hl rect").first).to_be_attached()


def mine_targets(page: Page, match: Any, robot_id: str) -> dict[tuple[int, int], int]:
    """Each cell the page lights for a robot's mine, with what the engine's own mine takes
    there on the match as stored."""
    import engine
    from games.models import Match

    state = Match.objects.get(pk=match.pk).state
    lit = page.locator("#board-wrap .hl rect").evaluate_all(
        "rs => rs.map(r => [+r.dataset.x, +r.dataset.y])"
    )
    out = {}
    for x, y in lit:
        action = {"robot": robot_id, "type": "mine", "to": [x, y]}
        applied = engine.apply(state, {"seat": 1, "turn": state["turn"], "actions": [action]})
        out[(x, y)] = sum(e["amount"] for e in applied.events if e["type"] == "mined")
    return out


def board_helium(page: Page) -> tuple[int, list[int]]:
    svg = page.locator("#board-wrap svg.board")
    return int(svg.get_attribute("data-w") or 0), [
        int(a) for a in (svg.get_attribute("data-helium") or "").split(",")
    ]


def _helium_free_above(state: Any) -> bool:
    robots = {(r["x"], r["y"]) for r in state["robots"]}
    rows = state["helium"][: len(state["helium"]) // 2]
    return any(
        amount > 0 and (x, y) not in robots
        for y, row in enumerate(rows)
        for x, amount in enumerate(row)
    )


def test_a_clicked_cell_tells_its_helium_by_the_cell_and_a_pointed_one_too(
    live_server: Any, celery_worker: Any, browser: Browser
) -> None:
    # A map with a free cell of helium in its upper half (about one map in three
    # thousand has none there: another is made then).
    for _ in range(5):
        user, match = start()
        if _helium_free_above(match.state):
            break
    page = open_page(browser, live_server.url, user, match, LAPTOP)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    w, helium = board_helium(page)
    occupied = page.evaluate(
        "() => [...document.querySelectorAll('#board-wrap .rb')].map(g => +g.dataset.y * "
        f"{w} + +g.dataset.x)"
    )
    # The richest free cell in the board's upper half (the lower rows may lie under the bar).
    upper = [i for i in range(len(helium) // 2) if i not in occupied and helium[i] > 0]
    richest = max(upper, key=lambda i: helium[i])
    x, y = richest % w, richest // w
    cell = page.locator(f"#board-wrap .he rect#c{richest}")
    cell.click()
    shown = page.locator("#board-wrap .cell-tip")
    expect(shown).to_have_count(1)
    expect(shown).to_have_text(f"({x}, {y}) helium {helium[richest]:,}")
    # By the cell and in the window: not a line under the bar.
    tip_box, cell_box = shown.bounding_box(), cell.bounding_box()
    assert tip_box and cell_box
    assert tip_box["y"] >= 0 and tip_box["y"] + tip_box["height"] <= LAPTOP["height"]
    assert abs(tip_box["y"] + tip_box["height"] / 2 - (cell_box["y"] + cell_box["height"] / 2)) < 60
    assert (
        tip_box["x"] <= cell_box["x"] + cell_box["width"]
        and cell_box["x"] <= tip_box["x"] + tip_box["width"]
    )
    # The pointer over another cell shows that one; off the board, the clicked one again.
    other = next(i for i in upper if i != richest)
    page.locator(f"#board-wrap .he rect#c{other}").hover()
    expect(shown).to_have_text(f"({other % w}, {other // w}) helium {helium[other]:,}")
    page.mouse.move(2, 2)
    expect(shown).to_have_text(f"({x}, {y}) helium {helium[richest]:,}")
    assert not errors


def yields_shown(page: Page) -> dict[tuple[int, int], str]:
    texts = page.locator("#board-wrap .plan-top text.yield")
    return {
        (int(t["x"]), int(t["y"])): t["text"]
        for t in texts.evaluate_all(
            "ts => ts.map(t => ({x: t.dataset.x, y: t.dataset.y, text: t.textContent}))"
        )
    }


# The photographs show the board from its top (clicking a button may have scrolled it).
SHOW_BOARD = "() => document.querySelector('#board-wrap').scrollIntoView({block: 'start'})"


def test_mine_tells_what_each_target_yields_and_a_mine_of_nothing_says_so(
    live_server: Any, celery_worker: Any, browser: Browser, screenshot_dir: Path
) -> None:
    user, match = start(mine_near="1-5")
    for theme in ("light", "dark"):
        for name, viewport in (("laptop", LAPTOP), ("phone", PHONE)):
            page = open_page(browser, live_server.url, user, match, viewport, theme)
            errors: list[str] = []
            page.on("pageerror", lambda error, errors=errors: errors.append(str(error)))
            rich = "1-5"
            choose(page, rich, "Mine")
            promised = mine_targets(page, match, rich)
            shown = yields_shown(page)
            # Every lit cell carries its yield, as the engine would mine it.
            lit = page.locator("#board-wrap .hl rect").evaluate_all(
                "rs => rs.map(r => [+r.dataset.x, +r.dataset.y])"
            )
            assert {tuple(c) for c in lit} == set(shown) == set(promised)
            for cell, text in shown.items():
                assert text == (f"+{promised[cell]:,}" if promised[cell] else "0"), (cell, text)
            expect(page.locator("#plan-help")).to_contain_text("what mining there yields")
            best = max(promised, key=lambda c: promised[c])
            assert promised[best] > 0
            page.evaluate(SHOW_BOARD)
            page.screenshot(path=str(screenshot_dir / f"planner-mine-yields-{name}-{theme}.png"))
            page.locator(
                f'#board-wrap .hl rect[data-x="{best[0]}"][data-y="{best[1]}"]'
            ).dispatch_event("click")
            expect(page.locator("#orders-form .summary").first).to_have_text(
                re.compile(rf"^Robot {rich}: mine.*\. It yields \+{promised[best]:,} helium\.$")
            )
            # The board shows the planned mine's take by its cells.
            planned = page.locator("#board-wrap .plan-top text.mine-yield")
            expect(planned).to_have_text(f"+{promised[best]:,}")
            # Robot 1-4 stands in the bare stretch: a mine there would take nothing.
            choose(page, "1-4", "Mine")
            bare = [c for c, n in (yields_shown(page)).items() if n == "0"]
            assert bare
            page.locator(
                f'#board-wrap .hl rect[data-x="{bare[0][0]}"][data-y="{bare[0][1]}"]'
            ).dispatch_event("click")
            expect(page.locator("#orders-form .summary").nth(1)).to_contain_text(
                "It would mine nothing: no helium there or around."
            )
            expect(planned).to_have_text([f"+{promised[best]:,}", "nothing to mine"])
            page.evaluate(SHOW_BOARD)
            page.screenshot(path=str(screenshot_dir / f"planner-mine-planned-{name}-{theme}.png"))
            assert not errors
            page.context.close()


# Where a robot's centre is on the screen (its group is drawn at the cell's centre).
CENTRE = """id => {
  const m = document.querySelector(`#board-wrap svg.board g.rb[data-id="${id}"]`).getScreenCTM();
  return [m.e, m.f];
}"""


def test_no_target_looks_chosen_before_one_is_pointed_at_and_the_chosen_robot_is_ringed(
    live_server: Any, celery_worker: Any, browser: Browser
) -> None:
    user, match = start()
    page = open_page(browser, live_server.url, user, match, LAPTOP)
    choose(page, "1-5", "Move")
    # Nothing looks chosen: no cell has the focus, no path is drawn to one.
    assert page.evaluate("() => !document.activeElement.closest('.hl rect')")
    expect(page.locator("#board-wrap .plan .pv")).to_have_count(0)
    expect(page.locator("#board-wrap .plan .path")).to_have_count(0)
    # The chosen robot is ringed, centred on it.
    ring = page.locator("#board-wrap circle.sel-ring")
    expect(ring).to_have_count(1)
    ring_box = ring.bounding_box()
    cell_box = page.locator("#board-wrap .hl rect").first.bounding_box()
    centre = page.evaluate(CENTRE, "1-5")
    assert ring_box and cell_box
    assert abs(ring_box["x"] + ring_box["width"] / 2 - centre[0]) < 2
    assert abs(ring_box["y"] + ring_box["height"] / 2 - centre[1]) < 2
    assert ring_box["width"] > cell_box["width"]
    # Pointing at a cell draws the move to it; Tab reaches the cells from the board.
    page.locator("#board-wrap .hl rect").last.hover()
    expect(page.locator("#board-wrap .plan .pv .path")).to_have_count(1)
    page.keyboard.press("Tab")
    expect(page.locator("#board-wrap .hl rect").first).to_be_focused()
    # Another robot moves the ring; none chosen, none ringed.
    page.keyboard.press("Escape")
    page.keyboard.press("Escape")
    expect(ring).to_have_count(0)


def test_a_phone_says_tap_and_shows_a_caption_whole(
    live_server: Any, celery_worker: Any, browser: Browser, screenshot_dir: Path
) -> None:
    user, match = start()
    page = open_page(browser, live_server.url, user, match, PHONE)
    help_ = page.locator("#plan-help")
    expect(help_).to_contain_text("tap it")
    choose(page, "1-5", "Move")
    expect(help_).to_contain_text("tap one")
    expect(help_).not_to_contain_text(re.compile("click|Tab|Enter|Escape"))
    # A turn's caption at its longest is shown whole on a phone, never cut mid-sentence.
    long = (
        "Turn 7 · seat 2: Robot 2-3 turned north-east and moved 2 cells to (7, 4). "
        "Robot 2-1 armed a missile and fired it at (9, 6), destroying 1-5 (4,100 helium dropped). "
        "Robot 2-4 raised its shield, deflecting lasers south-west."
    )
    clipped = page.evaluate(
        """text => {
          const player = document.querySelector('#player'), cap = document.querySelector('#caption');
          player.hidden = false; player.classList.add('playing'); cap.textContent = text;
          return cap.scrollHeight - cap.clientHeight;
        }""",
        long,
    )
    assert clipped <= 1, clipped


def test_the_remakes_planner_speaks_of_vehicles(
    live_server: Any, celery_worker: Any, browser: Browser
) -> None:
    user, match = start(ruleset="helium3-remake")
    page = open_page(browser, live_server.url, user, match, LAPTOP)
    said: list[str] = [page.locator("#planner").inner_text()]
    choose(page, "1-5", "Mine")
    said.append(page.locator("#planner").inner_text())
    target = page.locator("#board-wrap .hl rect").first
    target.hover()
    said.append(page.locator("#board-wrap .cell-tip").text_content() or "")
    said.append(target.get_attribute("aria-label") or "")
    target.dispatch_event("click")
    expect(page.locator("#orders-form .summary").first).to_contain_text("Vehicle 1-5: mine")
    said.append(page.locator("#planner").inner_text())
    said.append(page.locator("#orders-form").inner_text())
    page.locator("#board-wrap .he rect").first.click()
    said.append(page.locator("#board-wrap .cell-tip").text_content() or "")
    for text in said:
        assert not re.search(r"\brobots?\b", text, re.I), text
