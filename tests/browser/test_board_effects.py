"""Every fired weapon's hit, drawn by the animation: a finished match whose record
holds a missile, a laser and a kamikaze is replayed, and at chosen moments of the
battle clock the board shows the missile flying (with its trail) then exploding on
its target, the laser's beam, and the kamikaze's blast over its 3x3 cells.
Screenshots of each moment, on a laptop and on a phone."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from game_factories import UserFactory
from playwright.sync_api import Page, expect
from site_support import drain

from games import services
from games.models import Match

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LAPTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


def _robot(state: dict[str, Any], robot_id: str) -> dict[str, Any]:
    return next(r for r in state["robots"] if r["id"] == robot_id)


def _towards_centre(state: dict[str, Any], robot_id: str) -> tuple[str, list[int]]:
    """The diagonal from a robot towards the board's centre, and the cell 4 steps along it."""
    r = _robot(state, robot_id)
    dx = 1 if r["x"] < state["width"] // 2 else -1
    dy = 1 if r["y"] < state["height"] // 2 else -1
    name = ("S" if dy > 0 else "N") + ("E" if dx > 0 else "W")
    return name, [r["x"] + 4 * dx, r["y"] + 4 * dy]


def finished_match_with_every_weapon() -> Match:
    """Seat 1 arms a missile (1-5) and a laser (1-4); seat 3's 3-1 blows itself up;
    seat 1 fires both towards the centre; then both pass until the clock runs out."""
    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    match = services.match_create(creator=alice, seat_count=2, length_ms=45_000)
    services.seat_join(match_id=match.pk, user=bob)
    for _ in range(100):
        match.refresh_from_db()
        if match.status == Match.Status.FINISHED:
            return match
        state, number = match.state, match.turn_number
        if number == 0:
            actions = [
                {"robot": "1-5", "type": "arm_missile"},
                {"robot": "1-4", "type": "arm_laser"},
            ]
        elif number == 1:
            actions = [{"robot": "3-1", "type": "kamikaze"}]
        elif number == 2:
            actions = [
                {
                    "robot": "1-5",
                    "type": "fire_missile",
                    "target": _towards_centre(state, "1-5")[1],
                },
                {
                    "robot": "1-4",
                    "type": "fire_laser",
                    "direction": _towards_centre(state, "1-4")[0],
                },
            ]
        else:
            actions = []
        user = alice if match.to_move == 1 else bob
        services.orders_submit(match_id=match.pk, user=user, turn=number, actions=actions)
        drain(match, emails=False)
    raise AssertionError("the match did not finish")


def test_the_replay_draws_the_missile_the_laser_and_the_kamikaze_blast(
    live_server: Any, page: Page, screenshot_dir: Path
) -> None:
    match = finished_match_with_every_weapon()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_viewport_size(LAPTOP)
    page.goto(f"{live_server.url}/matches/{match.pk}/replay/")
    expect(page.locator("#replay[data-ready='1']")).to_be_attached()
    record = page.request.get(f"{live_server.url}/matches/{match.pk}/replay.json").json()
    turn_ms = page.evaluate(
        "() => JSON.parse(document.querySelector('#replay-turn-ms').textContent)"
    )
    offsets = [sum(turn_ms[:i]) for i in range(len(turn_ms))]
    events = {
        e["type"]: (offsets[i] + e["t_ms"], e)
        for i, turn in enumerate(record["turns"])
        for e in turn["events"]
        if e["type"] in ("missile", "laser", "kamikaze")
    }
    assert set(events) == {"missile", "laser", "kamikaze"}, record["turns"][:3]

    def at(ms: int) -> None:
        """Move the battle clock to `ms` (the scrubber's steps are 100 ms)."""
        page.locator("#scrub").evaluate(
            "(el, v) => { el.value = v; el.dispatchEvent(new Event('input')); }", ms
        )
        assert int(page.locator("#scrub").input_value()) == ms

    def moment(name: str, ms: int, selectors: list[str]) -> None:
        at(ms)
        for selector in selectors:
            expect(page.locator(f"#board-wrap svg.board .fx {selector}").first).to_be_attached()
        page.screenshot(path=str(screenshot_dir / f"replay-{name}-laptop.png"), full_page=True)

    # Aim at the middle of each phase, on the scrubber's 100 ms grid.
    kamikaze = events["kamikaze"][0]
    moment("kamikaze-blast", (kamikaze + 1000) // 100 * 100, [".blast-area", ".fireball", ".shock"])

    missile, shot = events["missile"]
    flight = 4 * 150  # four cells at the engine's MISSILE_CELL_MS
    assert shot["duration_ms"] == flight + 1000
    moment("missile-flight", (missile + 400) // 100 * 100, [".msl", ".trail", ".aim"])
    moment("missile-blast", (missile + flight + 300) // 100 * 100, [".fireball", ".shock"])

    laser, beam = events["laser"]
    moment("laser-beam", (laser + beam["duration_ms"] // 2) // 100 * 100, [".beam", ".beam-glow"])
    # The robot that blew itself up left a wreck where it stood.
    wrecks = page.locator("#board-wrap svg.board .wrecks use")
    expect(wrecks).to_have_count(1)
    # Between shots the board is clear of effects, and before the blast of wrecks.
    at(0)
    expect(page.locator("#board-wrap svg.board .fx *")).to_have_count(0)
    expect(wrecks).to_have_count(0)

    at((missile + flight + 300) // 100 * 100)
    page.set_viewport_size(PHONE)
    page.screenshot(path=str(screenshot_dir / "replay-missile-blast-phone.png"), full_page=True)
    assert not errors, errors
