"""Skyport's planner on the board, action by action: a weapon is held back while the
robot stands on its spawn, a move by a direction button from the keyboard, an
upgrade offered from the resources the earlier actions leave, the laser's lines to
the first rock, the droid's walk built tile by tile up to its range (its steps taken
back one at a time) and launched, the full list refusing more; and the engine
resolving exactly what the page planned."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect
from test_skyport_play import (
    BOT,
    ME,
    STEP,
    add,
    click_tile,
    log_in,
    planned,
    resolve_until_mine,
    send,
    sent_orders,
    wait_for_my_move_or_end,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DROID_RANGE = {1: 3, 2: 4, 3: 5}
LASER_RANGE = {1: 5, 2: 6, 3: 7}


def letter(state: dict[str, Any], c: tuple[int, int]) -> str:
    j, k = c
    size = state["size"]
    return state["tiles"][j][k] if 0 <= j < size and 0 <= k < size else ""


def test_the_planner_builds_a_turn_from_the_state_each_action_leaves(
    live_server: Any, page: Page
) -> None:
    from django.core.cache import cache

    from games import services

    base = live_server.url
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    player = log_in(page, base, "planner")
    match = services.match_create(
        creator=player,
        seat_count=2,
        turn_seconds=3600,
        bots=["random"],
        ruleset="skyport",
        options={"rounds": 5},
    )
    page.goto(f"{base}/matches/{match.pk}/")
    assert wait_for_my_move_or_end(page)
    page.locator("#sp-card-laser").check()
    page.locator("#sp-card-droid").check()
    send(page)
    match = resolve_until_mine(match, 0)

    # Scrap for two droid upgrades (4, then 5 more), rubidium for none (3 of 4).
    state = match.state
    me = next(p for p in state["players"] if p["seat"] == ME)
    me["resources"] = {"rubidium": 3, "explosium": 0, "scrap": 9}
    match.state = state
    match.save(update_fields=["state"])
    cache.clear()
    page.goto(f"{base}/matches/{match.pk}/")
    assert wait_for_my_move_or_end(page)
    expect(page.locator("#sp-list li")).to_have_count(0)

    pos = (me["j"], me["k"])
    assert letter(state, pos) == "S"
    # On the spawn no weapon fires; the laser's upgrade wants 4 rubidium, the droid's 4 scrap.
    expect(page.locator("#sp-w-laser")).to_be_disabled()
    expect(page.locator("#sp-w-droid")).to_be_disabled()
    expect(page.locator("#sp-w-mortar")).to_be_hidden()
    expect(page.locator("#sp-up-laser")).to_be_disabled()
    expect(page.locator("#sp-up-droid")).to_be_enabled()

    # 1. A move off the spawn, from the keyboard: a direction button and Enter.
    others = {(p["j"], p["k"]) for p in state["players"] if p["seat"] != ME}
    way = next(
        d
        for d in STEP
        if letter(state, add(pos, d)) not in ("", "V", "O", "S") and add(pos, d) not in others
    )
    page.locator(f"#sp-d-{way}").focus()
    page.keyboard.press("Enter")
    pos = add(pos, way)
    expect(page.locator("#sp-list li")).to_have_count(1)
    expect(page.locator("#board-wrap .sp-plan .sp-walk")).to_be_attached()
    # Off the spawn now: the weapons are there.
    expect(page.locator("#sp-w-droid")).to_be_enabled()

    # 2. The droid to level 2; level 3 would want 5 more scrap, which are there.
    page.locator("#sp-up-droid").click()
    expect(page.locator("#sp-up-droid")).to_have_text("Upgrade droid 2→3")
    expect(page.locator("#sp-up-droid")).to_be_enabled()
    expect(page.locator("#sp-w-droid")).to_have_text("Droid 2")

    # The laser, shown and put away: six lines, each to the first rock or the edge.
    page.locator("#sp-w-laser").click()
    rays = 0
    for d in STEP:
        c = pos
        for _ in range(LASER_RANGE[1]):
            c = add(c, d)
            if letter(state, c) in ("", "O"):
                break
            rays += 1
    expect(page.locator("#board-wrap .sp-plan .sp-ray")).to_have_count(rays)
    page.keyboard.press("Escape")
    expect(page.locator("#sp-w-laser")).to_have_attribute("aria-pressed", "false")

    # 3. The droid: its walk built tile by tile, up to level 2's four steps.
    page.locator("#sp-w-droid").click()
    walk: list[str] = []
    at = pos
    for _ in range(DROID_RANGE[2]):
        d = next(
            d
            for d in STEP
            if letter(state, add(at, d)) not in ("", "V", "O", "S") and add(at, d) != pos
        )
        at = add(at, d)
        walk.append(d)
        click_tile(page, at)
        expect(page.locator("#sp-fire")).to_have_text(f"Launch droid ({len(walk)} steps)")
    # Its range reached: no tile to add, every direction refused.
    expect(page.locator("#board-wrap .sp-plan .sp-reach")).to_have_count(0)
    expect(page.locator("#sp-d-up")).to_be_disabled()
    expect(page.locator("#board-wrap .sp-plan .sp-aim-area")).to_have_count(6)
    # A step taken back, then walked again; a click on its last tile launches it.
    page.locator("#sp-undo").click()
    expect(page.locator("#sp-fire")).to_have_text(f"Launch droid ({len(walk) - 1} steps)")
    click_tile(page, at)
    click_tile(page, at)
    expect(page.locator("#sp-list li")).to_have_count(3)
    expect(page.locator("#sp-list li").last).to_have_text("Droid " + ", ".join(walk))
    # The list is full and ends with an attack: nothing more is offered.
    for button in ("#sp-mine", "#sp-up-droid", "#sp-w-laser", "#sp-w-droid", "#sp-d-up"):
        expect(page.locator(button)).to_be_disabled()
    wanted = {
        "actions": [
            {"type": "move", "direction": way},
            {"type": "upgrade", "weapon": "droid"},
            {"type": "droid", "sequence": walk},
        ]
    }
    assert planned(page) == wanted
    page.screenshot(path="/tmp/skyport_laptop_droid.png")
    send(page)
    match = resolve_until_mine(match, 1)
    assert sent_orders(match, 1) == wanted
    mine = next(p for p in match.state["players"] if p["seat"] == ME)
    assert mine["weapons"]["droid"] == 2 and mine["resources"]["scrap"] == 5
    assert BOT in {p["seat"] for p in match.state["players"]}
    assert not errors, errors
