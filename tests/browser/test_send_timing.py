"""A four-seat Helium 3 match against three bots, played turn by turn at 1x as a
player lives it: from the click on Send to the planner usable again (the bots'
turns played as a movie, the board at the player's move), timed in the page.
The figures go to ci-artifacts/send-timing.txt."""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

import pytest
from browser_support import sign_in
from playwright.sync_api import Page, expect

pytestmark = [pytest.mark.worker, pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ROUNDS = 5
OUT = Path(__file__).resolve().parent.parent.parent / "ci-artifacts" / "send-timing.txt"

# The planner is usable: the player's move, no movie playing or queued, the bar shown.
USABLE = """() => {
  const planner = document.querySelector('#planner'), skip = document.querySelector('#skip');
  const panel = document.querySelector('#panel');
  const ready = planner && !planner.hidden && skip && skip.disabled && !document.querySelector('#movie template')
    && panel && panel.textContent.includes('your move') && !document.documentElement.classList.contains('watching')
    && document.querySelector('#board-wrap svg.board g.rb.own');
  return ready ? performance.now() - window.sentAt : false;
}"""


def plan_something(page: Page) -> None:
    """A move of the first robot of the player's that can move, to its last lit cell."""
    page.locator("#board-wrap svg.board g.rb.own").first.click()
    move = page.locator("#kinds button", has_text="Move")
    if move.count():
        move.first.click()
        page.locator("#board-wrap .hl rect").last.click()


@pytest.mark.slow
def test_send_to_planner_usable_again_against_three_bots(
    live_server: Any, celery_worker: Any, page: Page
) -> None:
    from game_factories import UserFactory

    from games import services

    player = UserFactory(username="timer")
    match = services.match_create(
        creator=player, seat_count=4, turn_seconds=3600, bots=["fighter", "miner", "random"]
    )
    page.set_viewport_size({"width": 1280, "height": 900})
    sign_in(page, live_server.url, "timer")
    page.goto(f"{live_server.url}/matches/{match.pk}/")
    page.get_by_label("Speed").select_option("1")
    expect(page.get_by_text("your move")).to_be_visible()
    page.evaluate(
        "() => document.addEventListener('click', e => {"
        " if (e.target.closest('#bar-send')) window.sentAt = performance.now(); }, true)"
    )
    timings: list[float] = []
    for _ in range(ROUNDS):
        page.wait_for_function(USABLE.replace("performance.now() - window.sentAt", "1"))
        plan_something(page)
        page.locator("#bar-send").click()
        # Wait for the orders to have left the page first (the old planner is still up).
        page.wait_for_function(
            "() => document.documentElement.dataset.ordersAnswer === 'accepted'", timeout=30_000
        )
        took = page.wait_for_function(USABLE, timeout=90_000, polling=20).json_value()
        timings.append(float(took))
        page.evaluate("() => { delete document.documentElement.dataset.ordersAnswer; }")
        if "The match is over" in (page.locator("#panel").text_content() or ""):
            break
    line = (
        f"Send to planner usable again, 4 seats (fighter, miner, random bots), 1x, "
        f"{len(timings)} rounds: median {statistics.median(timings) / 1000:.2f} s, "
        f"each {', '.join(f'{t / 1000:.2f}' for t in timings)} s"
    )
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(line + "\n")
    print(line)
    # Three bots' turns are played as a movie: a few seconds each, never a minute.
    assert statistics.median(timings) < 60_000, line
