"""Every turn the board catches up on plays, and is told as it plays: in the
remake a turn of shields only (no long effect) is shown long enough to be seen,
with its caption, not skipped in a blink."""

from __future__ import annotations

from typing import Any

import pytest
from browser_support import settle_board, sign_in
from playwright.sync_api import Page, expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Each frame: the time, the movie's turn (window.helium3Now) and the caption.
RECORD = """(() => {
  window.frames_ = [];
  const rec = () => {
    const now = window.helium3Now ? window.helium3Now() : null;
    const cap = document.querySelector('#caption');
    if (now) window.frames_.push([performance.now(), now.turn, cap ? cap.textContent : '']);
    requestAnimationFrame(rec);
  };
  requestAnimationFrame(rec);
})()"""


def test_a_remake_turn_of_shields_only_plays_with_its_caption(live_server: Any, page: Page) -> None:
    from game_factories import UserFactory
    from site_support import drain

    from games import services

    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    match = services.match_create(
        creator=alice, seat_count=2, ruleset="helium3-remake", options={"rounds": 5}
    )
    services.seat_join(match_id=match.pk, user=bob)
    page.add_init_script(RECORD)
    sign_in(page, live_server.url, "alice")
    page.goto(f"{live_server.url}/matches/{match.pk}/")
    expect(page.locator("#panel")).to_contain_text("your move")
    page.get_by_label("Speed").select_option("1")

    # Seat 1 raises two shields and nothing else; seat 2 passes. The page polls.
    shields = [{"robot": "1-1", "type": "shield"}, {"robot": "1-2", "type": "shield"}]
    services.orders_submit(match_id=match.pk, user=alice, turn=0, actions=shields)
    drain(match, emails=False)
    services.orders_submit(match_id=match.pk, user=bob, turn=1, actions=[])
    drain(match, emails=False)

    expect(page.locator("#board-wrap svg.board")).to_have_attribute(
        "data-turn", "2", timeout=30_000
    )
    settle_board(page)
    frames = page.evaluate("() => window.frames_")
    shown = [f for f in frames if f[1] == 0]
    assert shown, frames[:5]
    # At 1x the turn of shields is on the board for a moment a person sees (it went
    # by in a quarter of a second), and its caption tells the shields.
    assert shown[-1][0] - shown[0][0] >= 900, (shown[0], shown[-1])
    said = [f[2] for f in shown]
    assert any("shield" in text for text in said), said[-3:]
