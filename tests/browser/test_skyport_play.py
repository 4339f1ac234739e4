"""Skyport played in the browser against a built-in bot: the loadout chosen on the
weapon cards, then each turn's actions built by clicking (a neighbouring tile to
move, Mine, Upgrade, a weapon and its target), checked against the JSON the page
sends and the orders the engine resolved, to the finished page with the winner; then
the replay page's turn scrubber over the same match."""

from __future__ import annotations

import time
from collections import deque
from pathlib import Path
from typing import Any

import pytest
from browser_support import match_over, settle_board, sign_in
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LAPTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
SHOTS = Path("/tmp")
ME, BOT = 1, 2
STEP = {
    "up": (-1, -1),
    "down": (1, 1),
    "right-up": (-1, 0),
    "right-down": (0, 1),
    "left-up": (0, -1),
    "left-down": (1, 0),
}
MORTAR_RANGE = {1: 2, 2: 3, 3: 4}
LASER_RANGE = {1: 5, 2: 6, 3: 7}
UPGRADE_COST = {2: 4, 3: 5}
RESOURCE = {"R": "rubidium", "E": "explosium", "C": "scrap"}
Tile = tuple[int, int]


def log_in(page: Page, base: str, username: str) -> Any:
    from game_factories import UserFactory

    player = UserFactory(username=username)
    sign_in(page, base, username)
    return player


def distance(a: Tile, b: Tile) -> int:
    dj, dk = b[0] - a[0], b[1] - a[1]
    if (dj >= 0) == (dk >= 0) or dj == 0 or dk == 0:
        return max(abs(dj), abs(dk))
    return abs(dj) + abs(dk)


def add(c: Tile, d: str) -> Tile:
    return c[0] + STEP[d][0], c[1] + STEP[d][1]


class Board:
    """The state as this test reads it: tiles, who stands where, the player's own."""

    def __init__(self, state: dict[str, Any]) -> None:
        self.size = state["size"]
        self.tiles = state["tiles"]
        self.left = dict(state["resources"])
        players = {p["seat"]: p for p in state["players"]}
        self.me = players[ME]
        self.enemy = players[BOT]
        self.taken = {(p["j"], p["k"]) for p in state["players"] if p["seat"] != ME}
        self.here = (self.me["j"], self.me["k"])

    def letter(self, c: Tile) -> str:
        j, k = c
        return self.tiles[j][k] if 0 <= j < self.size and 0 <= k < self.size else ""

    def enterable(self, c: Tile) -> bool:
        return self.letter(c) not in ("", "V", "O", "S") and c not in self.taken

    def distances(self, goal: Tile) -> dict[Tile, int]:
        """Steps from each tile it can reach to a tile next to `goal`."""
        todo = deque(n for n in (add(goal, d) for d in STEP) if self.enterable(n) or n == self.here)
        out = dict.fromkeys(todo, 0)
        while todo:
            c = todo.popleft()
            for d in STEP:
                n = add(c, d)
                if n not in out and (self.enterable(n) or n == self.here):
                    out[n] = out[c] + 1
                    todo.append(n)
        return out

    def step_to(self, pos: Tile, goal: Tile, mined: dict[str, int]) -> str | None:
        """A step toward a tile next to `goal`, onto a resource tile where one is on
        the way (or beside it); None once there."""
        far = self.distances(goal)
        here = far.get(pos)
        if not here:
            return None
        options = []
        for d in STEP:
            n = add(pos, d)
            if not self.enterable(n) or n not in far or far[n] > here:
                continue
            key = f"{n[0]},{n[1]}"
            rich = self.letter(n) in RESOURCE and self.left.get(key, 0) - mined.get(key, 0) > 0
            options.append((far[n] - here + (0 if rich else 1), d))
        return min(options)[1] if options else None

    def laser_line(self, start: Tile, level: int, target: Tile) -> str | None:
        for d in STEP:
            c = start
            for _ in range(LASER_RANGE[level]):
                c = add(c, d)
                if self.letter(c) in ("", "O"):
                    break
                if c == target:
                    return d
        return None


def plan(state: dict[str, Any], turn: int) -> list[tuple[str, Any, dict[str, Any]]]:
    """This test's way of playing: up to three steps (what to click, the action it
    plans): an upgrade when affordable, a mine on a resource tile, steps toward the
    bot, and a shot once it is in reach (the laser on some turns, the mortar on others)."""
    b = Board(state)
    me, enemy = b.me, b.enemy
    pos: Tile = (me["j"], me["k"])
    spawn = tuple(me["spawn"])
    res = dict(me["resources"])
    levels = dict(me["weapons"])
    steps: list[tuple[str, Any, dict[str, Any]]] = []
    mined: dict[str, int] = {}
    target: Tile = (enemy["j"], enemy["k"])
    enemy_open = not enemy["dead"] and b.letter(target) != "S"
    while len(steps) < 3:
        free = 3 - len(steps)
        weapon = "laser" if turn % 4 == 1 else "mortar"
        if pos != spawn and enemy_open:
            if weapon == "laser" and (d := b.laser_line(pos, levels["laser"], target)):
                steps.append(("laser", target, {"type": "laser", "direction": d}))
                break
            if distance(pos, target) <= MORTAR_RANGE[levels["mortar"]]:
                offset = [target[0] - pos[0], target[1] - pos[1]]
                steps.append(("mortar", target, {"type": "mortar", "target": offset}))
                break
        upgrade = next(
            (
                w
                for w in ("mortar", "laser")
                if levels[w] < 3
                and res[{"laser": "rubidium", "mortar": "explosium"}[w]]
                >= UPGRADE_COST[levels[w] + 1]
            ),
            None,
        )
        if upgrade:
            kind = {"laser": "rubidium", "mortar": "explosium"}[upgrade]
            res[kind] -= UPGRADE_COST[levels[upgrade] + 1]
            levels[upgrade] += 1
            steps.append(("upgrade", upgrade, {"type": "upgrade", "weapon": upgrade}))
            continue
        key = f"{pos[0]},{pos[1]}"
        here = b.letter(pos)
        if here in RESOURCE and b.left.get(key, 0) - mined.get(key, 0) > 0 and free > 1:
            mined[key] = mined.get(key, 0) + 1
            res[RESOURCE[here]] += 1
            steps.append(("mine", None, {"type": "mine"}))
            continue
        way = b.step_to(pos, target, mined)
        if way is None:
            break
        pos = add(pos, way)
        steps.append(("move", pos, {"type": "move", "direction": way}))
    return steps


TILE_POINT = """([j, k]) => {
  const t = document.querySelector(`#board-wrap svg.board .sp-tile[data-j="${j}"][data-k="${k}"]`);
  t.scrollIntoView({block: 'center', inline: 'center'});
  const r = t.getBoundingClientRect();
  return [r.left + r.width / 2, r.top + r.height / 2];
}"""


def click_tile(page: Page, c: Tile) -> None:
    """A click at the middle of tile c, whatever is drawn there."""
    x, y = page.evaluate(TILE_POINT, list(c))
    page.mouse.click(x, y)


def planned(page: Page) -> Any:
    import json

    text = page.locator('#orders-form textarea[name="actions_json"]').input_value()
    return json.loads(text) if text.strip() else None


# One step inside the page: press Skip while a turn plays, done once the planner is
# built for the orders form, or the result is there (and the page is not still asking
# for the turns played since this browser last looked).
# With a turn, the orders form must be that turn's (a page that sent orders without
# leaving still shows the turn it sent for until its poll brings the next).
MY_MOVE_OR_END = """(turn) => {
  const skip = document.querySelector('#skip');
  if (skip && !skip.disabled) { skip.click(); return false; }
  if (document.querySelector('#match[data-catching-up]')) return false;
  const status = document.querySelector('#panel .status');
  const form = document.querySelector('#orders-form');
  const forTurn = turn === null || (!!form && form.elements.turn && form.elements.turn.value === String(turn));
  return (!!document.querySelector('#orders-form textarea[name="actions_json"]')
          && !!document.querySelector('#planner:not([hidden]) #sp-help') && forTurn)
    || (!!status && status.textContent.includes('The match is over.'));
}"""


def wait_for_my_move_or_end(page: Page, turn: int | None = None) -> bool:
    """Until the planner is built for my move (of `turn`, when given) or the match is over."""
    page.wait_for_function(MY_MOVE_OR_END, arg=turn, timeout=60_000, polling=50)
    settle_board(page)
    expect(page.locator("#skip")).to_be_disabled()
    return not match_over(page)


def send(page: Page) -> None:
    """Press the planner's Send and wait until the page says the orders are in, whether
    it posts the form and loads the answer or posts it and stays where it is."""
    page.evaluate("() => document.querySelectorAll('.messages').forEach(m => m.remove())")
    page.locator("#bar-send").click()
    expect(page.locator(".messages").filter(has_text="Orders accepted").first).to_be_visible()


def resolve_until_mine(match: Any, after: int) -> Any:
    """Resolve the turn the player's orders completed and the bot's turns after it,
    as the worker would, until the player is awaited again or the match is over."""
    from site_support import drain, wait_for

    import engine

    def moved_on() -> Any:
        drain(match, emails=False)
        state = match.state
        if state["over"]:
            return match
        return match if state["turn"] > after and ME in engine.awaiting(state) else None

    return wait_for(moved_on, timeout=30, what=f"the turn after {after}")


def sent_orders(match: Any, turn: int) -> dict[str, Any]:
    from games.models import Resolution

    orders = Resolution.objects.get(match=match, turn_number=turn).orders
    # A turn at once keeps every seat's orders; a seat's own turn keeps its one.
    mine = orders if isinstance(orders, dict) else next(o for o in orders if o["seat"] == ME)
    return {k: v for k, v in mine.items() if k not in ("seat", "turn")}


def choose_loadout(page: Page) -> None:
    """The three cards; two chosen (a third click swaps the oldest out), then sent."""
    cards = page.locator("#sp-cards .sp-card")
    expect(cards).to_have_count(3)
    for weapon in ("laser", "mortar", "droid"):
        card = page.locator(f'#sp-cards .sp-card[data-weapon="{weapon}"]')
        expect(card).to_contain_text("Damage")
        expect(card).to_contain_text("Range")
    send = page.locator("#bar-send")
    expect(send).to_be_disabled()
    page.locator("#sp-card-droid").check()
    page.locator("#sp-card-laser").check()
    page.locator("#sp-card-mortar").check()  # the droid, chosen first, goes
    expect(page.locator("#sp-card-droid")).not_to_be_checked()
    assert planned(page) == {"loadout": ["laser", "mortar"]}
    expect(send).to_be_enabled()


def build(page: Page, steps: list[tuple[str, Any, dict[str, Any]]], hover: bool) -> None:
    for what, where, _action in steps:
        if what == "move":
            click_tile(page, where)
        elif what == "mine":
            page.locator("#sp-mine").click()
        elif what == "upgrade":
            page.locator(f"#sp-up-{where}").click()
        else:
            page.locator(f"#sp-w-{what}").click()
            expect(page.locator(f"#sp-w-{what}")).to_have_attribute("aria-pressed", "true")
            expect(page.locator("#board-wrap .sp-plan .sp-ray").first).to_be_attached()
            if hover and what == "mortar":
                # Pointing at the target shows the blast: the tile and the six around it.
                x, y = page.evaluate(TILE_POINT, list(where))
                page.mouse.move(x, y)
                expect(page.locator("#board-wrap .sp-plan .sp-aim-area")).to_have_count(6)
            click_tile(page, where)
    expect(page.locator("#sp-list li")).to_have_count(len(steps))


def test_a_skyport_match_is_played_on_the_board_to_its_end(live_server: Any, page: Page) -> None:
    from games import services
    from games.models import Match

    base = live_server.url
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_viewport_size(LAPTOP)
    player = log_in(page, base, "pilot")
    match = services.match_create(
        creator=player,
        seat_count=2,
        turn_seconds=3600,
        bots=["prospector"],
        ruleset="skyport",
        options={"rounds": 5},
    )
    page.goto(f"{base}/matches/{match.pk}/")
    started = time.monotonic()

    # The loadout, on the cards.
    assert wait_for_my_move_or_end(page)
    page.set_viewport_size(PHONE)
    page.screenshot(path=str(SHOTS / "skyport_phone_loadout.png"), full_page=True)
    page.set_viewport_size(LAPTOP)
    choose_loadout(page)
    page.screenshot(path=str(SHOTS / "skyport_laptop_loadout.png"), full_page=True)
    send(page)
    match = resolve_until_mine(match, 0)
    assert sent_orders(match, 0) == {"loadout": ["laser", "mortar"]}
    assert next(p for p in match.state["players"] if p["seat"] == ME)["weapons"] == {
        "laser": 1,
        "mortar": 1,
    }

    played = shots = undone = 0
    laptop_shot = False
    kinds: set[str] = set()
    while wait_for_my_move_or_end(page, match.state["turn"]):
        match.refresh_from_db()
        state, turn = match.state, match.state["turn"]
        expect(page.locator("#board-wrap svg.board")).to_have_attribute("data-turn", str(turn))
        phone = played == 2
        page.set_viewport_size(PHONE if phone else LAPTOP)
        steps = plan(state, turn)
        if not undone and steps and steps[0][0] == "move":
            # A move planned and taken back: the list and the JSON follow.
            click_tile(page, steps[0][1])
            expect(page.locator("#sp-list li")).to_have_count(1)
            expect(page.locator("#board-wrap .sp-plan .sp-walk")).to_be_attached()
            page.locator("#sp-undo").click()
            expect(page.locator("#sp-list li")).to_have_count(0)
            assert planned(page) == {"actions": []}
            undone = 1
        if phone:
            # The phone's board zoomed in: twice as wide, scrolled to the robot.
            page.locator("#sp-zoom").click()
            expect(page.locator("#board-wrap")).to_have_class("board-wrap sp-zoomed")
        build(page, steps, hover=not phone)
        wanted = {"actions": [a for _, _, a in steps]}
        assert planned(page) == wanted
        kinds.update(a["type"] for a in wanted["actions"])
        if steps and steps[-1][0] in ("laser", "mortar"):
            shots += 1
            # An attack ends the turn: nothing more can be added.
            expect(page.locator("#sp-mine")).to_be_disabled()
        if phone:
            page.screenshot(path=str(SHOTS / "skyport_phone_planned.png"))
        elif shots and not laptop_shot:
            page.screenshot(path=str(SHOTS / "skyport_laptop_planned.png"))
            laptop_shot = True
        send(page)
        elapsed = time.monotonic() - started
        assert elapsed < 170, f"too slow: turn {turn} sent after {elapsed:.0f} s"
        match = resolve_until_mine(match, turn)
        assert sent_orders(match, turn) == wanted
        if played == 1:
            # The turns just resolved play on the board: a look at them while they do.
            try:
                page.wait_for_function(
                    "() => { const s = document.querySelector('#skip'); return s && !s.disabled"
                    " && document.querySelector('#board-wrap .sp-fx *'); }",
                    timeout=8_000,
                    polling=20,
                )
                page.screenshot(path=str(SHOTS / "skyport_laptop_playing.png"))
            except PlaywrightTimeoutError:
                pass  # the movie was over before a look: a picture, not a check
        played += 1
        page.set_viewport_size(LAPTOP)

    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert played >= 4, played
    assert "move" in kinds, kinds
    results = page.locator("#panel section.results")
    expect(results).to_be_visible()
    winner = match.state["winners"][0]
    expect(results.locator(f'tr.won[data-seat="{winner}"]')).to_be_visible()
    expect(page.locator("#panel .status")).to_contain_text("The match is over.")
    page.screenshot(path=str(SHOTS / "skyport_laptop_finished.png"), full_page=True)
    page.set_viewport_size(PHONE)
    page.screenshot(path=str(SHOTS / "skyport_phone_finished.png"), full_page=True)

    # The replay: the scrubber shows each turn's board as the server drew it, and Play
    # plays the turns with their captions.
    page.set_viewport_size(LAPTOP)
    page.goto(f"{base}/matches/{match.pk}/replay/")
    root = page.locator("#replay-turns[data-ready='1']")
    expect(root).to_be_attached()
    turns = int(root.get_attribute("data-turns") or 0)
    assert turns == match.state["turn"]
    page.locator("#scrub").fill("2")
    expect(page.locator("#scrub-turn")).to_have_text(f"2 of {turns}")
    expect(page.locator("#caption")).to_have_text("The board after turn 1.")
    expect(page.locator("#board-wrap svg.board")).to_have_attribute("data-turn", "2")
    from games.models import Resolution

    after_two = Resolution.objects.get(match=match, turn_number=1).state
    for p in after_two["players"]:
        expect(page.locator(f"#score-{p['seat']}")).to_have_text(str(p["score"]))
    page.locator("#prev").click()
    expect(page.locator("#board-wrap svg.board")).to_have_attribute("data-turn", "1")
    page.locator("#play").click()
    expect(page.locator("#caption")).to_contain_text("plays, seat")
    page.screenshot(path=str(SHOTS / "skyport_laptop_replay.png"))
    # Every turn's events play (deaths and respawns among them) to the end's board.
    page.locator("#speed").select_option("16")
    expect(page.locator("#caption")).to_have_text(
        f"The end of the match, after turn {turns - 1}.", timeout=30_000
    )
    expect(page.locator("#play")).to_have_text("Play")
    expect(page.locator(f"#score-{winner}")).to_have_text(str(match.state["scores"][str(winner)]))
    assert not errors, errors
