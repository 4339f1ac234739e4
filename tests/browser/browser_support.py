"""What the browser tests share: waiting for the match page's board to settle,
recording every moment it shows while it plays, and holding the page that sending
orders loads until the bots have played.

The match page animates every turn it has not shown yet, one movie after another,
and a poll may bring the next movie a moment after the panel already says "your
move". A test that checks "Skip is enabled" and then clicks it races the animation
(it can end between the two, and the click then waits for a button that stays
disabled). Instead the page itself is asked, in one step run inside the page, to
press Skip if a movie plays, and the test waits until nothing plays, nothing is
queued and the board shows the turn the page knows to be the latest.
"""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from playwright.sync_api import Browser, BrowserContext, Page, Route

# The pace the browser tests watch a match's movies at: 4x, the fastest the match page
# offers a player (its Speed control, which page.js keeps in localStorage as
# h3-speed), as a player who only wants the result would. Every frame of a movie is
# drawn by Chromium: at 1x the stage took 356.6 s and 603.7 s of CPU, at 4x 324.4 s and
# 568.5 s (docs/benchmarks.md).
# A test about the pace itself chooses it on the page (test_send_timing: 1x), and one
# about the pace a new player gets is marked `@pytest.mark.movie_speed(None)`.
MOVIE_SPEED = "4"
# Before any script of the page runs, on every page of the context; a speed chosen on a
# page (or kept from an earlier page) stays.
KEEP_SPEED = """(() => {
  try { if (!localStorage.getItem('h3-speed')) localStorage.setItem('h3-speed', %s); }
  catch (e) { /* a page without storage: about:blank, a page without scripts' origin */ }
})()"""


def keep_movie_speed(context: BrowserContext, speed: str | None = MOVIE_SPEED) -> BrowserContext:
    """Every page of `context` plays movies at `speed` unless a page chose another
    (None: the page's own default, 1x)."""
    if speed is not None:
        context.add_init_script(KEEP_SPEED % json.dumps(speed))
    return context


def open_context(
    browser: Browser, movie_speed: str | None = MOVIE_SPEED, **args: Any
) -> BrowserContext:
    """A new browser context (`args` as Browser.new_context takes them) whose pages play
    movies at `movie_speed` (keep_movie_speed)."""
    return keep_movie_speed(browser.new_context(**args), movie_speed)


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


def sign_in(page: Page, base: str, username: str) -> None:
    """The page's browser signed in as `username` by a session cookie the server
    made, for tests that are not about signing in: the form's round trips (its page,
    the post, the page it leads to) cost a test a second or more. The sign-in form is
    used where it is the subject (test_match_end, test_webpush_worker,
    test_board_no_js, test_accessibility's refused sign-in)."""
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client

    client = Client()
    client.force_login(get_user_model().objects.get(username=username))
    cookie = client.cookies[settings.SESSION_COOKIE_NAME]
    page.context.add_cookies([{"name": cookie.key, "value": cookie.value, "url": base}])


def halite_duel(player: Any) -> Any:
    """A 10 x 10 Halite match, `player` in seat 1 against the grower bot, an hour a turn
    (no clock runs out while the test plays). A test that needs a known map fixes
    services.matches.secrets.randbelow before calling this."""
    from games import services

    return services.match_create(
        creator=player,
        seat_count=2,
        turn_seconds=3600,
        bots=["grower"],
        ruleset="halite",
        options={"width": 10, "height": 10},
    )


def settle_board(page: Page, timeout: float = 60_000) -> None:
    """Skip whatever the board is animating and wait until it shows the latest turn."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function(SETTLE_BOARD, timeout=timeout, polling=100)
    except PlaywrightTimeout:
        raise AssertionError(f"the board did not settle: {page.evaluate(SETTLE_STATE)}") from None


SETTLE_STATE = """() => {
  const skip = document.querySelector('#skip'), svg = document.querySelector('#board-wrap svg.board');
  const poll = document.querySelector('#poll');
  return {skip: skip && !skip.disabled, movie: !!document.querySelector('#movie template'),
    board: svg && svg.dataset.turn, poll: poll && poll.outerHTML,
    now: window.helium3Now ? window.helium3Now() : null};
}"""


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


# Every frame the match page draws while a movie plays, recorded inside the page from
# its first moment (an init script): what the movie shows (its turn, money and robots,
# window.helium3Now) beside what the panel, the caption and the history say at that
# frame. A recorder that runs every frame sees every moment, however fast the page or
# slow the test, so a test reads them all afterwards instead of sampling the page.
RECORD_MOMENTS = """(() => {
  window.h3Moments = [];
  const record = () => {
    const now = window.helium3Now ? window.helium3Now() : null;
    if (now) {
      const panel = document.querySelector('#panel'), showing = panel.querySelector('.showing');
      const cap = document.querySelector('#caption'), box = cap.getBoundingClientRect();
      const money = {};
      panel.querySelectorAll('tr[data-seat]').forEach(tr => {
        money[tr.dataset.seat] = +tr.querySelector('.money').textContent.replace(/,/g, '');
      });
      const table = panel.querySelector('table.mine'), dead = panel.querySelector('.destroyed');
      window.h3Moments.push({
        turn: now.turn, money: now.money, robots: now.robots, paused: now.paused,
        panelTurn: showing ? +showing.dataset.turn : null, panelMoney: money,
        captionTurn: cap.dataset.turn === undefined ? null : +cap.dataset.turn,
        captionBox: [box.top, box.bottom, box.width, window.innerHeight],
        captionShown: getComputedStyle(cap).visibility === 'visible' && cap.checkVisibility(),
        rows: table && !table.hidden
          ? [...table.querySelectorAll('tbody tr')].map(tr => [tr.dataset.robot, tr.children[1].textContent])
          : [],
        destroyed: dead && !dead.hidden ? dead.textContent : '',
        later: [...document.querySelectorAll('#history li.turn')]
          .filter(li => !li.hidden && +li.dataset.turn > now.turn).map(li => +li.dataset.turn),
        yourMove: panel.textContent.includes('your move'),
        catchingUp: document.documentElement.classList.contains('catching-up'),
      });
    }
    requestAnimationFrame(record);
  };
  requestAnimationFrame(record);
})()"""


def robot_key(robot_id: str) -> tuple[int, ...]:
    return tuple(int(part) for part in robot_id.split("-"))


def check_moment(moment: dict[str, Any], destroyed: list[str], viewer: int) -> None:
    """One recorded frame shows one moment: the panel, the caption and the history at
    the movie's turn; the money the movie shows; the viewer's robots listed as the
    frame has them (alive, at their cells); and of the robots the match has destroyed
    (`destroyed`, the final panel's list) those already destroyed on the board."""
    assert moment["panelTurn"] == moment["turn"] == moment["captionTurn"], moment
    assert moment["panelMoney"] == moment["money"], moment
    assert not moment["yourMove"] and not moment["later"] and not moment["catchingUp"], moment
    top, bottom, width, height = moment["captionBox"]
    assert moment["captionShown"] and width > 0 and top >= 0 and bottom <= height, moment
    robots = moment["robots"]
    mine = sorted(
        (i for i, r in robots.items() if r["seat"] == viewer and r["alive"]), key=robot_key
    )
    assert [row[0] for row in moment["rows"]] == mine, moment
    for robot_id, cell in moment["rows"]:
        r = robots[robot_id]
        # Math.round's halves go up (Python's round would go to even).
        assert cell == f"({math.floor(r['x'] + 0.5)}, {math.floor(r['y'] + 0.5)})", moment
    gone = {i for i in destroyed if i not in robots or not robots[i]["alive"]}
    assert set(re.findall(r"\d+-\d+", moment["destroyed"])) == gone, moment


def hold_the_page_after_sending(page: Page, match_id: int, turn: int) -> None:
    """The answer to the orders sent (the page's fetch, or a plain post's redirect)
    comes only once the match has reached `turn`: the bots have played, and the page
    is asked to show turns this browser has not shown yet."""
    from games.models import Match

    def answer(route: Route) -> None:
        if route.request.method != "POST":
            route.continue_()
            return
        response = route.fetch(max_redirects=0)
        end = time.monotonic() + 60
        while Match.objects.get(pk=match_id).turn_number < turn:
            assert time.monotonic() < end, f"match {match_id} did not reach turn {turn}"
            time.sleep(0.1)
        route.fulfill(response=response)

    page.route(f"**/matches/{match_id}/orders/", answer)


ANSWERED = "() => +(document.documentElement.dataset.ordersAnswered || 0)"


@contextmanager
def sending_orders(page: Page, timeout: float = 30_000) -> Iterator[None]:
    """The block sends the orders (a click on Send, a step's button): the page posts
    them without loading again, and this waits until it has shown the answer (the
    refusal, or the page as the poll brought it after the orders were accepted)."""
    before = page.evaluate(ANSWERED)
    yield
    page.wait_for_function(f"() => ({ANSWERED})() > {before}", timeout=timeout, polling=50)


def orders_accepted(page: Page) -> None:
    """The last orders sent were accepted (the page's last answer; its note
    "Orders accepted" goes once their turn is resolved, which may be at once)."""
    from playwright.sync_api import expect

    expect(page.locator("html")).to_have_attribute("data-orders-answer", "accepted")
