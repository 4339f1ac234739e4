"""What the browser tests share: waiting for the match page's board to settle.

The match page animates every turn it has not shown yet, one movie after another,
and a poll may bring the next movie a moment after the panel already says "your
move". A test that checks "Skip is enabled" and then clicks it races the animation
(it can end between the two, and the click then waits for a button that stays
disabled). Instead the page itself is asked, in one step run inside the page, to
press Skip if a movie plays, and the test waits until nothing plays, nothing is
queued and the board shows the turn the page knows to be the latest.
"""

from __future__ import annotations

from playwright.sync_api import Page

SETTLE_BOARD = """() => {
  const skip = document.querySelector('#skip');
  if (skip && !skip.disabled) { skip.click(); return false; }
  const movie = document.querySelector('#movie');
  if (movie && movie.querySelector('template')) return false;
  const svg = document.querySelector('#board-wrap svg.board');
  const poll = document.querySelector('#poll');
  const latest = poll ? poll.dataset.since : undefined;
  return !!svg && (latest === undefined || svg.dataset.turn === latest);
}"""


def settle_board(page: Page, timeout: float = 60_000) -> None:
    """Skip whatever the board is animating and wait until it shows the latest turn."""
    page.wait_for_function(SETTLE_BOARD, timeout=timeout, polling=100)
