"""The remake played in the browser: five actions a turn planned on the board, each on
the board the previous ones leave, a `deflect` on a later turn, the match played to
its last round against the planning bot, its history and its replay; and Helium 3's
planner still stopping at two actions."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from browser_support import match_over, settle_board, sign_in
from playwright.sync_api import Page, expect

pytestmark = [pytest.mark.worker, pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LAPTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


def log_in(page: Page, base: str, username: str) -> Any:
    from game_factories import UserFactory

    player = UserFactory(username=username)
    sign_in(page, base, username)
    return player


def vehicle(page: Page, robot_id: str) -> Any:
    return page.locator(f'#board-wrap svg.board g.rb[data-id="{robot_id}"]')


def cell_of(page: Page, robot_id: str) -> tuple[int, int]:
    g = vehicle(page, robot_id)
    return int(g.get_attribute("data-x")), int(g.get_attribute("data-y"))


def drawn_at(page: Page, robot_id: str) -> tuple[int, int]:
    """The cell a vehicle is drawn on (a planned move draws it where the move leaves it)."""
    x, y = page.evaluate(DRAWN_AT, robot_id)
    return x, y


DRAWN_AT = r"""id => {
  const g = document.querySelector(`#board-wrap svg.board g.rb[data-id="${id}"]`);
  const svg = g.closest('svg'), c = +svg.dataset.cell, m = +svg.dataset.margin;
  const t = g.getAttribute('transform').match(/translate\(([-\d.]+)[ ,]+([-\d.]+)\)/);
  return [Math.floor((+t[1] - m) / c), Math.floor((+t[2] - m) / c)];
}"""


def highlighted(page: Page, x: int, y: int) -> Any:
    return page.locator(f'#board-wrap .hl rect[data-x="{x}"][data-y="{y}"]')


def pick(page: Page, x: int, y: int) -> None:
    """Pick a highlighted cell with the keyboard (a vehicle drawn on it would take a click)."""
    highlighted(page, x, y).focus()
    page.keyboard.press("Enter")


def move(page: Page, robot_id: str, to: tuple[int, int]) -> None:
    vehicle(page, robot_id).click()
    page.get_by_role("button", name="Move (5)").click()
    pick(page, *to)
    expect(page.get_by_text(f"Vehicle {robot_id}: move to ({to[0]}, {to[1]}).")).to_be_visible()


def shield_in_place(page: Page, robot_id: str) -> None:
    vehicle(page, robot_id).click()
    page.get_by_role("button", name=re.compile(r"^Shield")).click()
    pick(page, *cell_of(page, robot_id))
    expect(page.get_by_text(f"Vehicle {robot_id}: shield.")).to_be_visible()


def row(page: Page, i: int) -> dict[str, str]:
    form = page.locator("#orders-form")
    return {
        name: form.locator(f'[name="{name}_{i}"]').input_value()
        for name in ("robot", "type", "x", "y", "direction")
    }


def hints(page: Page) -> dict[str, Any]:
    return json.loads(page.locator("#hints").text_content() or "{}")


def wait_for_my_move_or_end(page: Page) -> bool:
    """Wait (skipping animations) until it is the player's move again; False once over."""
    mine = page.get_by_text("your move")
    over = page.get_by_text("The match is over.")
    expect(mine.or_(over).first).to_be_visible(timeout=60_000)
    settle_board(page)
    expect(page.get_by_role("button", name="Skip")).to_be_disabled()
    return not match_over(page)


@pytest.mark.slow
def test_a_remake_match_is_planned_five_actions_a_turn_on_the_board_and_played_to_the_end(
    live_server: Any, celery_worker: Any, page: Page, screenshot_dir: Path
) -> None:
    from games import services

    base = live_server.url
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_viewport_size(LAPTOP)
    player = log_in(page, base, "driver")
    match = services.match_create(
        creator=player,
        seat_count=2,
        turn_seconds=3600,
        bots=["prospector"],
        ruleset="helium3-remake",
        options={"rounds": 5},
    )
    page.goto(f"{base}/matches/{match.pk}/")
    expect(page.get_by_text("your move")).to_be_visible()
    settle_board(page)
    assert hints(page)["max_actions"] == 5

    # A deflect for a vehicle with no shield up, chosen in the plain form and sent: the
    # engine refuses it, and the board keeps it planned with the refusal beside it.
    form = page.locator("#orders-form")
    form.locator('[name="robot_0"]').select_option("1-1")
    form.locator('[name="type_0"]').select_option("deflect")
    form.locator('[name="direction_0"]').select_option("N")
    page.get_by_role("button", name="Send orders").click()
    expect(page.locator("#plan-help")).to_contain_text("The engine refuses this action")
    expect(form.locator("fieldset.action").first.locator(".action-error")).to_contain_text(
        "no shield up"
    )
    expect(page.get_by_text("Vehicle 1-1: deflect north.")).to_be_visible()
    page.get_by_role("button", name="Step back").click()
    expect(page.locator("#plan-help")).to_have_text("Nothing planned. Choose one of your vehicles.")
    expect(form.locator(".action-error")).to_have_count(0)
    assert row(page, 0)["robot"] == ""
    settle_board(page)

    # Three moves in a chain: each vehicle goes into the cell the one before it left,
    # a cell the board offers only once the earlier move is planned.
    a, b = cell_of(page, "1-5"), cell_of(page, "1-2")
    away = (a[0] + 2, a[1] + 2)
    vehicle(page, "1-2").click()
    page.get_by_role("button", name="Move (5)").click()
    expect(page.locator("#board-wrap .hl rect").first).to_be_visible()
    expect(highlighted(page, *a)).to_have_count(0)  # 1-5 still stands there
    page.keyboard.press("Escape")
    page.keyboard.press("Escape")
    expect(page.locator("#plan-help")).to_have_text("Choose one of your vehicles.")
    move(page, "1-5", away)
    move(page, "1-2", a)
    move(page, "1-4", b)
    # Two shields raised where the vehicles stand: five actions, the most a turn takes.
    shield_in_place(page, "1-1")
    shield_in_place(page, "1-3")
    expect(page.locator("#plan-help")).to_have_text(
        "Five actions planned (listed under Your orders): send them, or step back."
    )
    assert [row(page, i)["robot"] for i in range(5)] == ["1-5", "1-2", "1-4", "1-1", "1-3"]
    assert row(page, 2) == {
        "robot": "1-4",
        "type": "move",
        "x": str(b[0]),
        "y": str(b[1]),
        "direction": "",
    }
    assert row(page, 4)["type"] == "shield" and row(page, 4)["direction"] == ""
    # The board shows them done: each vehicle drawn where its move leaves it, a path each.
    for robot_id, cell in (("1-5", away), ("1-2", a), ("1-4", b)):
        expect(vehicle(page, robot_id)).to_have_class(re.compile("planned"))
        assert drawn_at(page, robot_id) == cell
    expect(page.locator("#board-wrap .path")).to_have_count(3)
    # A sixth vehicle's choice is refused: there is none, and a planned one is not offered again.
    vehicle(page, "1-5").click()
    expect(page.locator("#kinds button")).to_have_count(0)
    page.screenshot(path=str(screenshot_dir / "remake-five-actions-laptop.png"), full_page=True)
    page.set_viewport_size(PHONE)
    page.screenshot(path=str(screenshot_dir / "remake-five-actions-phone.png"), full_page=True)
    page.set_viewport_size(LAPTOP)

    # Step back undoes the last action only; it is planned again the same way.
    page.get_by_role("button", name="Step back").click()
    expect(page.locator("#plan-help")).to_have_text("Back to four planned actions.")
    assert row(page, 4)["robot"] == "" and row(page, 3)["robot"] == "1-1"
    shield_in_place(page, "1-3")
    page.get_by_role("button", name="Send orders").click()

    assert wait_for_my_move_or_end(page)
    history = page.locator("#history")
    expect(history).to_contain_text("Vehicle 1-5 moved")
    expect(history).to_contain_text("Vehicle 1-4 moved")
    expect(history).to_contain_text(re.compile(r"Vehicle 1-1 .*raised its shield"))
    assert cell_of(page, "1-2") == a and cell_of(page, "1-4") == b

    # Turn 2: a shield raised last turn is given a deflect, drawn as an arrow on it.
    shielded = [
        i for i in ("1-1", "1-3") if "deflect" in hints(page)["robots"].get(i, {}).get("kinds", [])
    ]
    assert shielded, hints(page)["robots"]
    vehicle(page, shielded[0]).click()
    page.get_by_role("button", name="Deflect", exact=True).click()
    page.get_by_role("button", name="Deflect north-east").click()
    expect(page.get_by_text(f"Vehicle {shielded[0]}: deflect north-east.")).to_be_visible()
    assert row(page, 0) == {
        "robot": shielded[0],
        "type": "deflect",
        "x": "",
        "y": "",
        "direction": "NE",
    }
    expect(page.locator("#board-wrap .deflect-mark")).to_have_count(1)
    page.locator("#board-wrap").screenshot(
        path=str(screenshot_dir / "remake-deflect-planned-laptop.png")
    )
    # And one more action on the board the deflect leaves.
    vehicle(page, "1-5").click()
    page.get_by_role("button", name="Move (5)").click()
    last = page.locator("#board-wrap .hl rect").last
    away2 = (int(last.get_attribute("data-x")), int(last.get_attribute("data-y")))
    last.click()
    expect(page.locator("#orders-form [name='robot_1']")).to_have_value("1-5")
    page.get_by_role("button", name="Send orders").click()
    assert wait_for_my_move_or_end(page)
    expect(history).to_contain_text(f"Vehicle {shielded[0]} set its shield to deflect north-east")
    assert cell_of(page, "1-5") == away2

    # Then pass to the end of the last round.
    playing = True  # the last wait said it is my move
    for _ in range(10):
        if not playing:
            break
        page.get_by_role("button", name="Send orders").click()
        playing = wait_for_my_move_or_end(page)
    expect(page.get_by_text("The match is over.")).to_be_visible()
    expect(history).to_contain_text("The match is over")
    results = page.locator("section.results")
    expect(results.locator(".decided")).to_contain_text(
        re.compile(r"won|shared the win|Nobody won")
    )
    expect(results.locator("tbody tr")).to_have_count(2)
    money = [int(m.replace(",", "")) for m in results.locator("tbody td.num").all_inner_texts()]
    assert money == sorted(money, reverse=True), money

    # The replay page plays the match again from its record.
    page.get_by_role("link", name="Watch the replay").click()
    expect(page.locator("#replay[data-ready='1']")).to_be_attached()
    page.get_by_role("button", name="Next turn").click()
    expect(page.locator("#caption")).to_contain_text("Turn 1 of")
    page.get_by_role("button", name="Play").click()
    expect(page.get_by_role("button", name="Pause")).to_be_visible()
    assert not errors, errors


def test_helium3s_planner_still_stops_at_two_actions(
    live_server: Any, celery_worker: Any, page: Page
) -> None:
    from games import services

    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    player = log_in(page, live_server.url, "classic")
    match = services.match_create(creator=player, seat_count=2, turn_seconds=3600, bots=["random"])
    page.goto(f"{live_server.url}/matches/{match.pk}/")
    expect(page.get_by_text("your move")).to_be_visible()
    settle_board(page)
    for robot_id in ("1-5", "1-4"):
        vehicle(page, robot_id).click()
        page.get_by_role("button", name="Move (6)").click()
        page.locator("#board-wrap .hl rect").last.click()
        expect(page.get_by_text(re.compile(f"Robot {robot_id}: move to"))).to_be_visible()
    expect(page.locator("#plan-help")).to_have_text(
        "Two actions planned (listed under Your orders): send them, or step back."
    )
    vehicle(page, "1-3").click()
    expect(page.locator("#kinds button")).to_have_count(0)
    assert page.locator("#orders-form fieldset.action").count() == 2
    assert not errors, errors


def finished_remake_with_a_deflected_laser() -> Any:
    """Seat 1 moves 1-2 off the column, raises 1-1's shield and arms 1-5's laser; next
    turn it points 1-1's shield east and fires 1-5's laser north at it: the beam turns
    east at 1-1 and runs to the board's edge. Then both seats pass to the last round."""
    from game_factories import UserFactory
    from site_support import drain

    from games import services
    from games.models import Match

    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    match = services.match_create(
        creator=alice, seat_count=2, ruleset="helium3-remake", options={"rounds": 5}
    )
    services.seat_join(match_id=match.pk, user=bob)
    plans: dict[int, list[dict[str, Any]]] = {
        0: [
            {"robot": "1-2", "type": "move", "to": [6, 6]},
            {"robot": "1-1", "type": "shield"},
            {"robot": "1-5", "type": "arm_laser"},
        ],
        2: [
            {"robot": "1-1", "type": "deflect", "direction": "E"},
            {"robot": "1-5", "type": "fire_laser", "direction": "N"},
        ],
    }
    for _ in range(40):
        match.refresh_from_db()
        if match.status == Match.Status.FINISHED:
            return match
        number = match.turn_number
        user = alice if match.to_move == 1 else bob
        services.orders_submit(
            match_id=match.pk, user=user, turn=number, actions=plans.get(number, [])
        )
        drain(match, emails=False)
    raise AssertionError("the match did not finish")


def test_the_remake_replay_draws_a_laser_turned_by_a_deflect(
    live_server: Any, page: Page, screenshot_dir: Path
) -> None:
    match = finished_remake_with_a_deflected_laser()
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
    events = [
        (offsets[i] + e["t_ms"], e) for i, t in enumerate(record["turns"]) for e in t["events"]
    ]
    laser, beam = next((t, e) for t, e in events if e["type"] == "laser")
    assert beam["segments"] == [[[2, 2], [2, 0]], [[2, 0], [19, 0]]], beam
    deflected = next(t for t, e in events if e["type"] == "deflected" and e["robot"] == "1-1")
    pointed = next(t for t, e in events if e["type"] == "shielded" and e.get("deflect") == "E")

    def at(ms: int) -> None:
        page.locator("#scrub").evaluate(
            "(el, v) => { el.value = v; el.dispatchEvent(new Event('input')); }", ms
        )

    shield = page.locator('#board-wrap svg.board g.rb[data-id="1-1"]')
    # The deflect set: the shield drawn with its arrow pointing east.
    at((pointed + 100) // 100 * 100 + 100)
    expect(shield).to_have_class(re.compile(r"\bdd\b"))
    # Mid-way along the turned part: two beams, the second leaving 1-1's cell eastwards.
    cell_ms = beam["duration_ms"] // 19
    at((laser + 10 * cell_ms) // 100 * 100)
    lines = page.locator("#board-wrap svg.board .fx line.beam")
    expect(lines).to_have_count(2)
    first, second = (
        lines.nth(i).evaluate(
            "l => [+l.getAttribute('x1'), +l.getAttribute('y1'), +l.getAttribute('x2'), +l.getAttribute('y2')]"
        )
        for i in range(2)
    )
    assert first[0] == first[2] and first[3] < first[1]  # north, up the column
    assert second[1] == second[3] and second[2] > second[0]  # then east along the row
    assert (second[0], second[1]) == (first[2], first[3])
    page.screenshot(
        path=str(screenshot_dir / "remake-replay-deflected-laser-laptop.png"), full_page=True
    )
    # Once the beam has passed, the shield that turned it is down.
    at((deflected + 1000) // 100 * 100)
    expect(shield).not_to_have_class(re.compile(r"\bsd\b"))
    assert not errors, errors
