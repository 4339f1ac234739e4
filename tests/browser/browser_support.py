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


def match_over(page: Page) -> bool:
    """Whether the page's match has ended, read from the database once the board has
    settled (a page still catching up may not say so yet; an end never undoes), and
    then waited for on the page, so a test acts only on the state the page shows."""
    from playwright.sync_api import expect

    from games.models import Match

    match_id = int(page.locator("#match").get_attribute("data-match") or 0)
    over = Match.objects.get(pk=match_id).status == Match.Status.FINISHED
    if over:
        # The page may still be on its way there (a poll, then the last turns played).
        expect(page.get_by_text("The match is over.").first).to_be_visible(timeout=60_000)
        settle_board(page)
    return over
