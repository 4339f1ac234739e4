"""A finished Halite match replayed turn by turn: the scrubber runs over the turns and
shows each turn's board as the server drew it (the engine's state after that many
turns), stepping and dragging agree with the record, and Play moves on through it."""

from __future__ import annotations

import time
from typing import Any

import pytest
from game_factories import UserFactory
from playwright.sync_api import Page, expect
from site_support import drain

from games import services
from games.models import Match, Resolution

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LAPTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


def finished_bot_match() -> Match:
    """The planning bot against itself on a 10 x 10 map, watched by its creator: a
    match of 20 turns or more, for the scrubber to have a middle (the site draws each
    match's map at random, and one bot may take the other's land sooner: then
    another match is played, five at most)."""
    alice = UserFactory(username="alice")
    lengths = []
    for _ in range(5):
        match = services.match_create(
            creator=alice,
            seat_count=2,
            bots=["grower", "grower"],
            ruleset="halite",
            options={"width": 10, "height": 10},
        )
        # The browser tests' worker may claim a bots' turn before drain does (drain
        # then stops): drain again until the match is over, for as long as a worker
        # could take.
        deadline = time.monotonic() + 60
        drain(match, emails=False)
        while match.status != Match.Status.FINISHED and time.monotonic() < deadline:
            time.sleep(0.1)
            drain(match, emails=False)
        assert match.status == Match.Status.FINISHED, match.status
        if match.state["turn"] >= 20:
            return match
        lengths.append(match.state["turn"])
    raise AssertionError(f"five matches all ended before turn 20: {lengths}")


def state_after(match: Match, k: int) -> dict[str, Any]:
    """The state after k turns of the record."""
    if k == 0:
        return match.initial_state
    return Resolution.objects.get(match=match, turn_number=k - 1).state


def pieces_of(state: dict[str, Any]) -> set[tuple[int, int, int, int]]:
    return {
        (x, y, owner, state["strength"][y][x])
        for y, row in enumerate(state["owner"])
        for x, owner in enumerate(row)
        if owner
    }


PIECES = """() => [...document.querySelectorAll('#board-wrap svg.board .hl-piece')].map(p =>
  [+p.dataset.x, +p.dataset.y, +p.dataset.owner, +p.dataset.strength])"""


def shows(page: Page, match: Match, k: int) -> None:
    """The page shows board k: its turn, the scrubber's place and the record's pieces."""
    board = page.locator(f'#board-wrap svg.board[data-turn="{k}"]')
    expect(board).to_be_attached()
    expect(page.locator("#scrub")).to_have_value(str(k))
    drawn = {(x, y, o, s) for x, y, o, s in page.evaluate(PIECES)}
    assert drawn == pieces_of(state_after(match, k))


# One step inside the page: pause if it plays, and say at which board it stopped.
PAUSE_IF_PLAYING = """() => {
  const play = document.querySelector('#play');
  if (play.textContent !== 'Pause') return null;
  play.click();
  return +document.querySelector('#scrub').value;
}"""


def test_a_visitor_scrubs_steps_and_plays_a_halite_replay(live_server: Any, page: Page) -> None:
    match = finished_bot_match()
    turns = match.state["turn"]
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_viewport_size(LAPTOP)
    page.goto(f"{live_server.url}/matches/{match.pk}/replay/")
    expect(page.locator("#replay-turns[data-ready='1']")).to_be_attached()
    # It opens at the end, with the winner and each seat's territory.
    expect(page.locator("#caption")).to_contain_text(f"after turn {turns - 1}")
    shows(page, match, turns)
    winner = match.state["winners"][0]
    expect(page.locator(f'#replay-turns tr[data-seat="{winner}"]')).to_contain_text("winner")
    for seat, cells in match.state["scores"].items():
        expect(page.locator(f"#score-{seat}")).to_have_text(str(cells))

    # The keyboard on the scrubber: Home is the start, each arrow one turn on.
    scrub = page.get_by_label("Turn", exact=True)
    scrub.focus()
    page.keyboard.press("Home")
    shows(page, match, 0)
    expect(page.locator("#caption")).to_contain_text("The start")
    for k in (1, 2, 3):
        page.keyboard.press("ArrowRight")
        shows(page, match, k)
    page.get_by_role("button", name="Previous turn").click()
    shows(page, match, 2)

    # A drag to the middle of the scrubber shows the board of the turn it lands on.
    box = scrub.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + 4, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] * 0.3, box["y"] + box["height"] / 2, steps=5)
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2, steps=5)
    page.mouse.up()
    middle = int(scrub.input_value())
    assert turns // 4 < middle < turns * 3 // 4, middle
    shows(page, match, middle)
    expect(page.locator("#board-wrap svg.board")).to_have_count(1)
    page.screenshot(path="/tmp/halite_replay_laptop.png")

    # Play runs on from there, turn after turn, until paused.
    page.locator("#speed").select_option("16")
    page.get_by_role("button", name="Play").click()
    expect(page.locator("#scrub")).not_to_have_value(str(middle))
    page.wait_for_function(f"() => +document.querySelector('#scrub').value >= {middle + 3}")
    stopped = page.evaluate(PAUSE_IF_PLAYING)
    assert stopped is not None and stopped >= middle + 3
    expect(page.get_by_role("button", name="Play")).to_be_visible()
    shows(page, match, stopped)

    # And it plays to the end by itself.
    page.get_by_role("button", name="Next turn").click()
    shows(page, match, stopped + 1)
    page.set_viewport_size(PHONE)
    page.screenshot(path="/tmp/halite_replay_phone.png")
    scrub.focus()
    page.keyboard.press("End")
    shows(page, match, turns)
    scrub.focus()
    for _ in range(3):
        page.keyboard.press("ArrowLeft")
    shows(page, match, turns - 3)
    page.get_by_role("button", name="Play").click()
    expect(page.get_by_role("button", name="Play")).to_be_visible(timeout=20_000)
    shows(page, match, turns)
    assert not errors, errors


def test_the_replay_page_without_script_shows_the_end_and_the_record(
    live_server: Any, browser: Any
) -> None:
    match = finished_bot_match()
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{live_server.url}/matches/{match.pk}/replay/")
    drawn = {(x, y, o, s) for x, y, o, s in _pieces_without_script(page)}
    assert drawn == pieces_of(match.state)
    expect(page.get_by_role("link", name="Download the replay file")).to_be_visible()
    context.close()


def _pieces_without_script(page: Page) -> list[tuple[int, int, int, int]]:
    out = []
    for p in page.locator("#board-wrap svg.board .hl-piece").all():
        attrs = [p.get_attribute(f"data-{n}") for n in ("x", "y", "owner", "strength")]
        out.append(tuple(int(a or -1) for a in attrs))
    return out  # type: ignore[return-value]
