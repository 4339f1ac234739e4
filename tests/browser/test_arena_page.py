"""The robot arena's pages as its players see them in Chromium, at 1280 x 900 and
390 x 844, light and dark: the build's cards take one weapon as they take one part of
each other kind, say beside the cards why a part is refused (theirs and the server's),
and keep the plain form ticked as they are; a click on the board sends a step only
when that step is chosen and the cell is lit, and otherwise says what the seat knows
of the cell; a seat not seen shows "?" in the panel; every arena page passes the WCAG
AA contrast check (axe-core, tests/browser/vendor) in both themes. Each page is
photographed on the way (ci-artifacts/screenshots/arena-*.png)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from browser_support import open_context, orders_accepted, sending_orders, settle_board
from django.conf import settings
from django.test import Client
from django.urls import reverse
from game_factories import UserFactory
from playwright.sync_api import Browser, Page, expect
from site_support import client_for, drain

import engine
from games import services
from games.models import Match, Resolution

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

AXE = Path(__file__).resolve().parent / "vendor" / "axe-core" / "axe.min.js"
SIZES = {"laptop": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}
THEMES = ("light", "dark")
# Transitions and one-off effects end before a page is read or photographed.
STILL = """() => document.getAnimations().every(a =>
  a.playState !== 'running' || a.effect.getTiming().iterations === Infinity)"""
CONTRAST = """async () => {
  const result = await axe.run(document, {
    runOnly: {type: 'rule', values: ['color-contrast']}, resultTypes: ['violations'],
  });
  return result.violations.flatMap(v => v.nodes.map(n =>
    n.target.join(' ') + ': ' + n.any.map(c => c.message).join('; ').slice(0, 160)));
}"""


def signed_in(browser: Browser, user: Any, base: str) -> Page:
    client = Client()
    client.force_login(user)
    context = open_context(browser, viewport=SIZES["laptop"], color_scheme="light")
    cookie = client.cookies[settings.SESSION_COOKIE_NAME]
    context.add_cookies([{"name": cookie.key, "value": cookie.value, "url": base}])
    return context.new_page()


def contrast_problems(page: Page) -> list[str]:
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.add_script_tag(path=str(AXE))
    found: list[str] = page.evaluate(CONTRAST)
    return found


def looks(page: Page, name: str, shots: Path) -> list[str]:
    """The page in both themes at both sizes: photographed, and its contrast problems
    ("theme size: element: why"). The theme is the system's (the switch left at it)."""
    problems = []
    for theme in THEMES:
        page.emulate_media(color_scheme=theme)
        for size, viewport in SIZES.items():
            page.set_viewport_size(viewport)
            page.wait_for_function(STILL)
            page.evaluate("window.scrollTo(0, 0)")  # the sticky header at the top, where it sits
            page.screenshot(path=str(shots / f"arena-{name}-{theme}-{size}.png"), full_page=True)
            problems += [f"{name} {theme} {size}: {p}" for p in contrast_problems(page)]
    page.emulate_media(color_scheme="light")
    page.set_viewport_size(SIZES["laptop"])
    return problems


def _post(user: Any, match: Match, **data: Any) -> None:
    response = client_for(user).post(reverse("games:match-orders", args=[match.pk]), data)
    assert response.status_code == 302, response.content.decode()[:300]


def three_seats() -> tuple[Match, list[Any]]:
    people = [UserFactory(username=name) for name in ("ada", "bea", "cyd")]
    match = services.match_create(
        creator=people[0], seat_count=3, turn_seconds=3600, ruleset="arena", options={"rounds": 20}
    )
    for other in people[1:]:
        services.seat_join(match_id=match.pk, user=other)
    match.refresh_from_db()
    assert match.status == Match.Status.RUNNING and match.state["phase"] == "build"
    return match, people


def test_the_build_cards_take_one_weapon_and_refuse_beside_the_cards(
    live_server: Any, page: Page, screenshot_dir: Path
) -> None:
    match, people = three_seats()
    base = live_server.url
    me = signed_in(page.context.browser, people[0], base)  # type: ignore[arg-type]
    errors: list[str] = []
    me.on("pageerror", lambda error: errors.append(str(error)))
    me.goto(f"{base}/matches/{match.pk}/")
    expect(me.locator("#ar-cards .ar-card")).to_have_count(11)
    # One part of each kind: a gun and a cannon are both weapons, so one swaps the other.
    expect(me.locator('#ar-cards fieldset[data-kind="weapon"] .ar-card')).to_have_count(2)
    me.locator("#ar-part-gun").check()
    me.locator("#ar-part-cannon").check()
    expect(me.locator("#ar-part-gun")).not_to_be_checked()
    expect(me.locator('#ar-stats dd[data-stat="Weapons"]')).to_have_text("cannon")
    # The plain form follows the cards, its capacity line with them.
    plain = me.locator("#orders-form")
    expect(plain.locator('input[name="parts"][value="cannon"]')).to_be_checked()
    expect(plain.locator('input[name="parts"][value="gun"]')).not_to_be_checked()
    me.locator("#ar-part-engine2").check()
    expect(me.locator("#ar-used")).to_have_text("8 of 10")
    expect(plain.locator("#id_capacity output")).to_have_text("8")
    # A part that does not fit: its card says why, right under the cards.
    expect(me.locator("#ar-part-radar2")).to_be_disabled()
    expect(me.locator("#ar-refusal")).to_be_hidden()
    me.locator('label.ar-card[data-part="radar2"]').click(
        force=True
    )  # a real click on a card whose box is disabled
    refusal = me.locator("#ar-refusal")
    expect(refusal).to_be_visible()
    expect(refusal).to_contain_text("radar2 takes 4 of the capacity")
    expect(refusal).to_contain_text("12 of 10")
    cards = me.locator("#ar-cards").bounding_box()
    said = refusal.bounding_box()
    assert cards and said and 0 <= said["y"] - (cards["y"] + cards["height"]) < 40
    # And the other way: a part ticked in the plain form is ticked on the cards.
    plain.locator('input[name="parts"][value="radar1"]').check()
    expect(me.locator("#ar-part-radar1")).to_be_checked()
    expect(me.locator("#ar-used")).to_have_text("10 of 10")
    expect(plain.locator("#id_capacity output")).to_have_text("10")
    expect(plain.locator('input[name="parts"][value="shield1"]')).to_be_disabled()
    # The plain form's capacity line reads as words, at the page's size.
    line = plain.locator("#id_capacity")
    expect(line).to_contain_text("Capacity used: 10 of 10.")
    size = line.evaluate(
        "p => [parseFloat(getComputedStyle(p).fontSize), p.getBoundingClientRect().height,"
        " getComputedStyle(p).overflow]"
    )
    assert size[0] >= 15 and size[1] >= 18 and size[2] == "visible", size
    problems = looks(me, "build", screenshot_dir)

    # A build the server refuses (here as JSON) is said beside the cards, on screen.
    me.locator("#orders-form details.json summary").click()
    me.locator("#id_actions_json").fill(json.dumps({"build": ["engine3", "shield3"]}))
    with sending_orders(me):
        plain.evaluate("f => f.requestSubmit()")
    refusal = me.locator("#ar-refusal")
    expect(refusal).to_be_visible()
    expect(refusal).to_contain_text("capacity")
    expect(refusal).to_be_in_viewport()
    # The cards show the build that was refused, and it cannot be sent as it is.
    expect(me.locator("#ar-used")).to_have_text("12 of 10")
    expect(me.locator("#bar-send")).to_be_disabled()
    me.screenshot(path=str(screenshot_dir / "arena-build-refused-light-laptop.png"))
    assert not errors, errors
    assert not problems, "\n".join(problems)


def _built(match: Match, people: list[Any]) -> Match:
    builds = (["engine2", "radar2", "gun"], ["engine2", "radar1", "shield1"], ["engine1", "gun"])
    for user, parts in zip(people, builds, strict=True):
        _post(user, match, turn=0, parts=parts)
    drain(match, emails=False)
    match.refresh_from_db()
    assert match.state["phase"] == "play" and engine.awaiting(match.state) == [1]
    return match


def _cell_info(page: Page, cell: tuple[int, int]) -> str:
    x, y = page.evaluate(
        """([x, y]) => {
          const r = document.querySelector(`#board-wrap rect.ar-cell[data-x="${x}"][data-y="${y}"]`);
          r.scrollIntoView({block: 'center'});
          const b = r.getBoundingClientRect();
          return [b.left + b.width / 2, b.top + b.height / 2];
        }""",
        list(cell),
    )
    page.mouse.click(x, y)
    return f"({cell[0]}, {cell[1]}): "


def test_a_click_sends_a_step_only_when_it_is_chosen_and_the_cell_lit(
    live_server: Any, page: Page, screenshot_dir: Path
) -> None:
    match, people = three_seats()
    match = _built(match, people)
    base = live_server.url
    me = signed_in(page.context.browser, people[0], base)  # type: ignore[arg-type]
    errors: list[str] = []
    posts: list[str] = []
    me.on("pageerror", lambda error: errors.append(str(error)))
    me.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    me.goto(f"{base}/matches/{match.pk}/")
    settle_board(me)
    expect(me.locator("#planner #ar-acts")).to_be_visible()
    # The seats not seen have "?" for a score in the panel, never a score of 0, and
    # their robots what every seat knows: still in.
    for seat in (2, 3):
        row = me.locator(f'#panel tr[data-seat="{seat}"]')
        expect(row.locator("td.money")).to_have_text("?")
        expect(row.locator("td.robots")).to_have_text("alive")
    expect(me.locator('#panel tr[data-seat="1"] td.money')).to_have_text(
        str(match.state["scores"]["1"])
    )
    legend = me.locator("details.ar-legend")
    expect(legend).to_contain_text("Seat 3: green")
    expect(legend).not_to_contain_text("Seat 4")

    # No step chosen: a click next to the robot (a walk would reach it) sends nothing
    # and says what the seat knows there.
    where = _cell_info(me, (1, 0))
    expect(me.locator("#cell-info")).to_have_text(where + "unknown: never scanned.")
    expect(me.locator("#ar-help")).to_contain_text("Choose Move or Shoot")
    assert posts == [] and not Resolution.objects.filter(match=match, turn_number=1).exists()
    match.refresh_from_db()
    assert match.state["step"] == 0

    with sending_orders(me):
        me.locator("#ar-scan").click()
    settle_board(me)
    match.refresh_from_db()
    known = engine.view(match.state, 1)["knowledge"]["1"]
    turn = match.state["turn"]
    words = {"empty": "empty", "obstacle": "obstacle"}
    for key, seen in sorted(known.items()):
        if key == "0,0" or seen[0] not in words:
            continue
        cell = (int(key.split(",")[0]), int(key.split(",")[1]))
        where = _cell_info(me, cell)
        expect(me.locator("#cell-info")).to_have_text(
            f"{where}{words[seen[0]]}, seen at turn {turn} (this turn)."
        )
    posts.clear()
    # Move chosen: a cell out of reach is not lit, and a click on it sends nothing.
    me.locator("#ar-move").click()
    expect(me.locator("#board-wrap .ar-plan .ar-reach").first).to_be_attached()
    lit = {
        (int(r.get_attribute("data-x") or -1), int(r.get_attribute("data-y") or -1))
        for r in me.locator("#board-wrap .ar-plan .ar-reach").all()
    }
    far = next((x, y) for y in range(9, -1, -1) for x in range(9, -1, -1) if (x, y) not in lit)
    _cell_info(me, far)
    expect(me.locator("#ar-help")).to_contain_text("Not lit")
    assert posts == []
    match.refresh_from_db()
    assert match.state["step"] == 1
    problems = looks(me, "planner-move", screenshot_dir)
    expect(me.locator("#ar-move")).to_have_attribute("aria-pressed", "true")
    # A lit cell: the walk is sent.
    goal = sorted(lit)[0]
    with sending_orders(me):
        _cell_info(me, goal)
    orders_accepted(me)
    match.refresh_from_db()
    robot = match.state["robots"][0]
    assert (robot["x"], robot["y"]) == goal
    settle_board(me)
    problems += looks(me, "board", screenshot_dir)
    assert not errors, errors
    assert not problems, "\n".join(problems)


def test_the_rules_the_new_match_form_and_the_end_screen_read_well_in_both_themes(
    live_server: Any, page: Page, screenshot_dir: Path
) -> None:
    watcher = UserFactory(username="dee")
    done = services.match_create(
        creator=watcher,
        seat_count=3,
        turn_seconds=3600,
        bots=["hunter", "random", "hunter"],
        ruleset="arena",
        options={"rounds": 10},
    )
    drain(done, emails=False)
    done.refresh_from_db()
    assert done.status == Match.Status.FINISHED
    base = live_server.url
    me = signed_in(page.context.browser, watcher, base)  # type: ignore[arg-type]
    errors: list[str] = []
    me.on("pageerror", lambda error: errors.append(str(error)))
    problems = []
    me.goto(f"{base}/games/arena/")
    expect(me.locator("h1")).to_be_visible()
    problems += looks(me, "rules", screenshot_dir)
    me.goto(f"{base}/matches/new/?game=arena")
    expect(me.locator("h1")).to_be_visible()
    problems += looks(me, "create", screenshot_dir)
    me.goto(f"{base}/matches/{done.pk}/")
    settle_board(me)
    expect(me.locator("#panel .status")).to_contain_text("The match is over.")
    expect(me.locator("details.ar-legend")).not_to_contain_text("Seat 4")
    problems += looks(me, "end", screenshot_dir)
    assert not errors, errors
    assert not problems, "\n".join(problems)
