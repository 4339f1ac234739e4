"""A player who sends orders with a laser armed watches the bot's turn come in: the
page and every poll it makes answer without a server error while the turn is the
bot's, and the laser's hints are back when the turn is the player's again.

The poll used to ask the engine for the laser's hints on a board whose turn had
moved on, and the engine's refusal ("It is seat 3's turn") became a 500.

The bot's turn is held still while the page polls: the worker that resolves the
player's turn stops right after committing it (games.faults: the same pause the
fault tests use, here in the worker thread of this process), before the bot's turn
is queued, and goes on when the test releases it."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from browser_support import settle_board, sign_in
from game_factories import UserFactory
from playwright.sync_api import Page, Response, expect

from games import services
from games.models import Match, Turn

pytestmark = [pytest.mark.worker, pytest.mark.browser, pytest.mark.django_db(transaction=True)]

STEP = "resolve_committed"


def test_polls_after_sending_with_a_laser_armed_never_answer_500(
    live_server: Any,
    celery_worker: Any,
    page: Page,
    settings: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from games.services import resolution

    # A resolution plays the bots' turns after it in its own transaction: a chain of
    # one leaves the bot's turn to a task of its own, the moment this test holds.
    monkeypatch.setattr(resolution, "CHAIN_MAX", 1)
    base = live_server.url
    player = UserFactory(username="laserfan")
    match = services.match_create(creator=player, seat_count=2, turn_seconds=3600, bots=["miner"])
    answers: list[tuple[int, str]] = []

    def seen(response: Response) -> None:
        if f"/matches/{match.pk}/" in response.url:
            answers.append((response.status, response.url))

    page.on("response", seen)
    page.set_viewport_size({"width": 1280, "height": 900})
    sign_in(page, base, "laserfan")
    page.goto(f"{base}/matches/{match.pk}/")
    expect(page.get_by_text("your move")).to_be_visible()

    # 1-5 arms its laser where it stands, planned on the board and sent from the page.
    page.locator('#board-wrap g.rb[data-id="1-5"]').click()
    page.get_by_role("button", name="Arm laser (2)").click()
    page.locator('#board-wrap .hl rect[data-x="2"][data-y="2"]').click()
    expect(page.get_by_text("Robot 1-5: arm laser.")).to_be_visible()
    settings.FAULT_PAUSE_AT = STEP
    settings.FAULT_DIR = str(tmp_path)
    paused, release = tmp_path / f"{STEP}.paused", tmp_path / f"{STEP}.release"
    try:
        page.get_by_role("button", name="Send orders").click()
        end = time.monotonic() + 30
        while not paused.exists():
            assert time.monotonic() < end, "the worker did not resolve the player's turn"
            page.wait_for_timeout(50)
        # The moment the page's polls met the 500: the bot's turn, the laser armed.
        match.refresh_from_db()
        assert match.turn_number == 1 and match.state["to_move"] == 3
        assert Turn.objects.get(match=match, number=1).status == Turn.Status.ACCEPTED
        assert next(r for r in match.state["robots"] if r["id"] == "1-5")["armed"] == "laser"
        # Two rounds of the page's poll (every 3 s), and the page opened again by a
        # browser that last showed turn 0 (its catching up asks for the turns since
        # then: the poll of the 500) while the bot's turn waits.
        polls = f"/matches/{match.pk}/poll/"
        # 30 s each, as the page's other waits: on a loaded machine a reload and its
        # first poll took more than 10 s.
        for _ in range(2):
            with page.expect_response(lambda r: polls in r.url, timeout=30_000):
                pass
        page.evaluate(f"() => localStorage.setItem('h3-seen-{match.pk}', '0')")
        stale = f"{polls}?v=stale&since=0"
        with page.expect_response(lambda r: stale in r.url, timeout=30_000) as caught:
            page.reload()
        assert caught.value.status == 200
        expect(page.locator("#board-wrap svg.board")).to_be_visible()
        assert page.locator("#hints").count() == 0, "no hints on another seat's turn"
        assert Match.objects.get(pk=match.pk).turn_number == 1  # still held
    finally:
        release.touch()

    # The bot plays; the poll brings its turn and the player's move, with hints.
    expect(page.get_by_text("your move")).to_be_visible(timeout=30_000)
    settle_board(page)
    assert page.locator("#hints").count() == 1
    failures = [(status, url) for status, url in answers if status >= 500]
    assert not failures, failures
    assert sum(polls in url for _, url in answers) >= 3
