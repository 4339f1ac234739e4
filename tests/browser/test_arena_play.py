"""The robot arena played in the browser against the hunter bot: the robot built on the
part cards (the capacity bar and the robot's numbers follow), then every turn played
one step at a time with the step buttons and clicks on the board (a scan, a walk to a
lit cell, a shot at a cell in range, End turn), each step checked against what the
engine resolved and what the board then shows, to the finished page with the winner;
then the replay page's turn scrubber over the same match."""

from __future__ import annotations

import time
from collections import deque
from pathlib import Path
from typing import Any

import pytest
from browser_support import match_over, orders_accepted, sending_orders, settle_board, sign_in
from playwright.sync_api import Page, expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LAPTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
SHOTS = Path("/tmp")
ME, BOT = 1, 2
BUILD = ["engine2", "radar2", "gun", "shield1"]  # 4 + 4 + 2 + 2 > 10: shield1 is refused
KEPT = ["engine2", "radar2", "gun"]  # 10 of 10
DIRS = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}
Cell = tuple[int, int]


def log_in(page: Page, base: str, username: str) -> Any:
    from game_factories import UserFactory

    player = UserFactory(username=username)
    sign_in(page, base, username)
    return player


def cheb(a: Cell, b: Cell) -> int:
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


class Sight:
    """What seat ME knows, from its own view: its robot and what its scans showed."""

    def __init__(self, view: dict[str, Any]) -> None:
        self.view = view
        self.me = next(r for r in view["robots"] if r["seat"] == ME)
        self.at: Cell = (self.me["x"], self.me["y"])
        self.known = {
            tuple(int(n) for n in k.split(",")): v for k, v in view["knowledge"][str(ME)].items()
        }
        self.size = (view["width"], view["height"])

    def blocked(self, c: Cell) -> bool:
        seen = self.known.get(c)
        return seen is not None and seen[0] in ("obstacle", "robot")

    def reach(self) -> dict[Cell, int]:
        """The cells a walk of the steps left reaches around known obstacles and robots."""
        out = {self.at: 0}
        todo = deque([self.at])
        while todo:
            c = todo.popleft()
            if out[c] >= self.me["steps_left"]:
                continue
            for dx, dy in DIRS.values():
                n = (c[0] + dx, c[1] + dy)
                inside = 0 <= n[0] < self.size[0] and 0 <= n[1] < self.size[1]
                if inside and n not in out and not self.blocked(n):
                    out[n] = out[c] + 1
                    todo.append(n)
        del out[self.at]
        return out

    def enemy(self) -> tuple[Cell, int] | None:
        """Where the bot's robot was last seen, and the turn of that scan."""
        seen = [
            (v[2], v[3], c)
            for c, v in self.known.items()
            if v[0] == "robot" and v[1] == BOT
        ]  # fmt: skip
        if not seen:
            return None
        turn, _step, c = max(seen)
        return c, turn


def cell_point(page: Page, c: Cell) -> list[float]:
    return page.evaluate(
        """([x, y]) => {
          const r = document.querySelector(`#board-wrap svg.board rect.ar-cell[data-x="${x}"][data-y="${y}"]`);
          r.scrollIntoView({block: 'center', inline: 'center'});
          const b = r.getBoundingClientRect();
          return [b.left + b.width / 2, b.top + b.height / 2];
        }""",
        list(c),
    )


def click_cell(page: Page, c: Cell) -> None:
    x, y = cell_point(page, c)
    page.mouse.click(x, y)


def planned(page: Page) -> Any:
    import json

    text = page.locator('#orders-form textarea[name="actions_json"]').input_value()
    return json.loads(text) if text.strip() else None


# One step inside the page: press Skip while a turn plays; done once the step buttons
# are built for the orders form (the viewer's move), or the result is there.
MY_MOVE_OR_END = """() => {
  const skip = document.querySelector('#skip');
  if (skip && !skip.disabled) { skip.click(); return false; }
  if (document.querySelector('#match[data-catching-up]')) return false;
  const status = document.querySelector('#panel .status');
  return (!!document.querySelector('#orders-form textarea[name="actions_json"]')
          && !!document.querySelector('#planner:not([hidden]) #ar-help'))
    || (!!status && status.textContent.includes('The match is over.'));
}"""


def wait_for_my_move_or_end(page: Page) -> bool:
    page.wait_for_function(MY_MOVE_OR_END, timeout=60_000, polling=50)
    settle_board(page)
    expect(page.locator("#skip")).to_be_disabled()
    return not match_over(page)


def resolve_until_mine(match: Any, after: int) -> Any:
    """Resolve the bot's steps, as the worker would, until the player is awaited
    again (after turn `after`) or the match is over."""
    from site_support import drain, wait_for

    import engine

    def moved_on() -> Any:
        drain(match, emails=False)
        state = match.state
        if state["over"]:
            return match
        return match if state["turn"] > after and ME in engine.awaiting(state) else None

    return wait_for(moved_on, timeout=30, what=f"the turn after {after}")


def last_orders(match: Any) -> dict[str, Any]:
    """The newest orders the engine resolved for seat ME, without seat, turn, step_no
    (a build phase keeps every seat's orders; a step keeps the one seat's)."""
    from games.models import Resolution

    for row in Resolution.objects.filter(match=match).order_by("-turn_number", "-step"):
        orders = row.orders if isinstance(row.orders, list) else [row.orders]
        mine = next((o for o in orders if o["seat"] == ME), None)
        if mine is not None:
            return {k: v for k, v in mine.items() if k not in ("seat", "turn", "step_no")}
    raise AssertionError("no orders of seat 1 resolved")


def accepted(page: Page) -> None:
    """The step came back accepted, or the test says what the page said instead."""
    if page.locator("html").get_attribute("data-orders-answer") != "accepted":
        said = page.locator(".errorlist, .send-error").all_inner_texts()
        raise AssertionError(f"the step was not accepted: {said} {planned(page)}")
    orders_accepted(page)


def send_step(page: Page, match: Any, wanted: dict[str, Any]) -> Any:
    """The page posts the step (the button or the click did); it comes back resolved."""
    accepted(page)
    match.refresh_from_db()
    assert last_orders(match) == wanted
    return match


def build_robot(page: Page) -> None:
    """The cards: one part of each kind within 10; the bar and the numbers follow."""
    expect(page.locator("#ar-cards .ar-card")).to_have_count(11)
    for part in BUILD[:3]:
        page.locator(f"#ar-part-{part}").check()
    expect(page.locator("#ar-used")).to_have_text("10 of 10")
    fill = page.locator("#ar-capacity .ar-fill")
    expect(fill).to_have_attribute("style", "width: 100%;")
    # Full: every part that would go past 10 is refused, a part of a kind chosen may swap.
    expect(page.locator("#ar-part-shield1")).to_be_disabled()
    expect(page.locator("#ar-part-cannon")).to_be_disabled()
    expect(page.locator("#ar-part-engine1")).to_be_enabled()
    page.locator("#ar-part-engine1").check()  # swaps engine2 out
    expect(page.locator("#ar-part-engine2")).not_to_be_checked()
    expect(page.locator("#ar-used")).to_have_text("8 of 10")
    expect(page.locator('#ar-stats dd[data-stat="Steps a turn"]')).to_have_text("2")
    page.locator("#ar-part-shield1").check()
    expect(page.locator('#ar-stats dd[data-stat="Health"]')).to_have_text("12")
    page.locator("#ar-part-shield1").uncheck()
    page.locator("#ar-part-engine2").check()
    expect(page.locator("#ar-used")).to_have_text("10 of 10")
    stats = {
        "Health": "10",
        "Steps a turn": "4",
        "Radar range": "3",
        "Weapons": "gun",
    }
    for name, value in stats.items():
        expect(page.locator(f'#ar-stats dd[data-stat="{name}"]')).to_have_text(value)


@pytest.mark.slow
def test_an_arena_match_is_played_step_by_step_on_the_board_to_its_end(
    live_server: Any, page: Page
) -> None:
    import engine
    from games import services
    from games.models import Match, Resolution

    base = live_server.url
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_viewport_size(LAPTOP)
    player = log_in(page, base, "builder")
    match = services.match_create(
        creator=player,
        seat_count=2,
        turn_seconds=3600,
        bots=["hunter"],
        ruleset="arena",
        options={"rounds": 10},
    )
    page.goto(f"{base}/matches/{match.pk}/")
    started = time.monotonic()

    assert wait_for_my_move_or_end(page)
    build_robot(page)
    page.screenshot(path=str(SHOTS / "arena_laptop_build.png"), full_page=True)
    page.set_viewport_size(PHONE)
    page.screenshot(path=str(SHOTS / "arena_phone_build.png"), full_page=True)
    page.set_viewport_size(LAPTOP)
    with sending_orders(page):
        page.locator("#bar-send").click()
    accepted(page)
    match = resolve_until_mine(match, 0)
    assert last_orders(match) == {"build": KEPT}
    mine = next(r for r in match.state["robots"] if r["seat"] == ME)
    assert sorted(mine["parts"]) == sorted(KEPT)

    kinds: set[str] = set()
    turns = 0
    shots = {"laptop": False, "phone": False, "scan": False}
    while wait_for_my_move_or_end(page):
        match.refresh_from_db()
        turn = match.state["turn"]
        expect(page.locator("#board-wrap svg.board")).to_have_attribute("data-turn", str(turn))
        phone = turns == 2
        page.set_viewport_size(PHONE if phone else LAPTOP)
        scanned = fired = False
        for _ in range(6):  # scan, shoot or move, scan again, shoot or move, ...
            sight = Sight(engine.view(match.state, ME))
            expect(page.locator("#ar-steps-left")).to_have_text(str(sight.me["steps_left"]))
            enemy = sight.enemy()
            near = enemy is not None and enemy[1] == turn and 0 < cheb(enemy[0], sight.at) <= 3
            if not scanned:
                # Pointing at Scan shows the radar's square; the click sends it.
                page.locator("#ar-scan").hover()
                expect(page.locator("#board-wrap .ar-plan .ar-radar")).to_have_count(1)
                with sending_orders(page):
                    page.locator("#ar-scan").click()
                match = send_step(page, match, {"step": {"type": "scan"}})
                scanned = True
                kinds.add("scan")
                sight = Sight(engine.view(match.state, ME))
                # The scan's result is on the board at once: the square around the robot.
                for c in sight.known:
                    if cheb(c, sight.at) <= 3:
                        cell = page.locator(
                            f'#board-wrap rect.ar-cell[data-x="{c[0]}"][data-y="{c[1]}"]'
                        )
                        expect(cell).to_have_attribute("data-age", "0")
                if not shots["scan"]:
                    page.screenshot(path=str(SHOTS / "arena_laptop_scanned.png"))
                    shots["scan"] = True
                continue
            if near and not fired and not sight.me["shot"]:
                assert enemy is not None
                page.locator("#ar-shoot").click()
                expect(page.locator("#ar-shoot")).to_have_attribute("aria-pressed", "true")
                expect(page.locator("#board-wrap .ar-plan .ar-target").first).to_be_attached()
                target = list(enemy[0])
                with sending_orders(page):
                    click_cell(page, enemy[0])
                match = send_step(page, match, {"step": {"type": "shoot", "target": target}})
                fired = True
                kinds.add("shoot")
                if match.state["over"]:
                    break
                continue
            reach = sight.reach()
            if not reach or sight.me["steps_left"] == 0:
                break
            page.locator("#ar-move").click()
            expect(page.locator("#ar-move")).to_have_attribute("aria-pressed", "true")
            expect(page.locator("#board-wrap .ar-plan .ar-reach")).to_have_count(len(reach))
            goal = enemy[0] if enemy else (9, 9)
            # Cells the scans showed empty, nearest the goal, then the longest walk.
            # Cells this turn's scans showed empty, within the radar's reach of here: a
            # shortest walk there crosses only cells the scan here showed.
            known = [
                c
                for c in reach
                if cheb(c, sight.at) <= 3
                and sight.known.get(c, ["unknown"])[0] == "empty"
                and sight.known[c][2] == turn
            ]
            if not known:
                break
            to = min(known, key=lambda c: (cheb(c, goal) <= 1, cheb(c, goal), -reach[c]))
            if cheb(to, goal) >= cheb(sight.at, goal) and enemy is None:
                break
            if phone and not shots["phone"]:
                page.screenshot(path=str(SHOTS / "arena_phone_move.png"))
                shots["phone"] = True
            elif not phone and not shots["laptop"]:
                page.screenshot(path=str(SHOTS / "arena_laptop_move.png"))
                shots["laptop"] = True
            with sending_orders(page):
                click_cell(page, to)
            accepted(page)
            match.refresh_from_db()
            sent = last_orders(match)
            assert sent["step"]["type"] == "move" and len(sent["step"]["path"]) == reach[to]
            robot = next(r for r in match.state["robots"] if r["seat"] == ME)
            assert (robot["x"], robot["y"]) == to
            # The board the poll brings after the step, its walk played: under a loaded
            # machine that may take longer than an expect's usual 5 s.
            expect(page.locator("#board-wrap g.ar-robot.own")).to_have_attribute(
                "data-x", str(to[0]), timeout=30_000
            )
            kinds.add("move")
            scanned = False  # a new place: look again
        if match.state["over"]:
            break  # the shot destroyed the last other robot
        with sending_orders(page):
            page.locator("#ar-end").click()
        match = send_step(page, match, {"step": {"type": "end"}})
        elapsed = time.monotonic() - started
        assert elapsed < 170, f"too slow: turn {turn} ended after {elapsed:.0f} s"
        match = resolve_until_mine(match, turn)
        turns += 1
        page.set_viewport_size(LAPTOP)

    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert turns >= 3, turns
    assert {"scan", "move"} <= kinds, kinds
    results = page.locator("#panel section.results")
    expect(results).to_be_visible()
    winner = match.state["winners"][0]
    expect(results.locator(f'tr.won[data-seat="{winner}"]')).to_be_visible()
    expect(page.locator("#panel .status")).to_contain_text("The match is over.")
    # Once over, the board is the whole arena: every robot still standing, no fog.
    expect(page.locator("#board-wrap rect.ar-cell.k-unknown")).to_have_count(0)
    page.screenshot(path=str(SHOTS / "arena_laptop_finished.png"), full_page=True)
    page.set_viewport_size(PHONE)
    page.screenshot(path=str(SHOTS / "arena_phone_finished.png"), full_page=True)

    # The replay: the scrubber shows each turn's board as the server drew it, and Play
    # plays every step of each turn with its caption, to the end's board.
    page.set_viewport_size(LAPTOP)
    page.goto(f"{base}/matches/{match.pk}/replay/")
    root = page.locator("#replay-turns[data-ready='1']")
    expect(root).to_be_attached()
    count = int(root.get_attribute("data-turns") or 0)
    # Every turn played, the one cut short by the last robot's destruction included.
    cut_short = Resolution.objects.filter(match=match, turn_number=match.state["turn"]).exists()
    assert count == match.state["turn"] + int(cut_short)
    page.locator("#scrub").fill("2")
    expect(page.locator("#scrub-turn")).to_have_text(f"2 of {count}")
    expect(page.locator("#caption")).to_have_text("The board after turn 1.")
    expect(page.locator("#board-wrap svg.board")).to_have_attribute("data-turn", "2")
    page.locator("#prev").click()
    expect(page.locator("#board-wrap svg.board")).to_have_attribute("data-turn", "1")
    page.locator("#play").click()
    expect(page.locator("#caption")).to_contain_text("plays, seat")
    page.screenshot(path=str(SHOTS / "arena_laptop_replay.png"))
    page.locator("#speed").select_option("16")
    expect(page.locator("#caption")).to_have_text(
        f"The end of the match, after turn {count - 1}.", timeout=60_000
    )
    expect(page.locator("#play")).to_have_text("Play")
    assert not errors, errors
