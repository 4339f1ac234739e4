"""The match page has at most one ask of its poll out at a time. After Send it looks
again and again for the turn the bot completes, and a later look must wait for the
one on its way (or be folded into it) rather than go beside it: two identical asks
out at once cost a request each turn and brought the turn's movie twice. An ask
wanted meanwhile goes once the answer is in, so no turn is missed: each turn's
movie comes once, and the page comes back to the player's move every turn.

Counted twice: the requests the browser makes to the poll (Playwright's), and the
page's own asks (XMLHttpRequest's, each out from send until its answer is in,
loadend), each with the movie its answer brought. With the push channel open too: a
turn told while the look after Send is still on its way makes the page ask (site.js)
beside it."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from browser_support import halite_duel, orders_accepted, sending_orders
from playwright.sync_api import Page, Request, Route, expect
from test_halite_play import log_in, resolve_turn, wait_for_my_move_or_end

from games import services

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TURNS = 4
# The map: on a random one, about one 10 x 10 duel in fifty ends by turn 2 against a
# player who passes; on this one neither seat's player is gone within twelve turns.
SEED = 9

# Every poll request the page makes (XMLHttpRequest: htmx's), with the number of them
# out when it left, and the turns of the movie its answer brought.
POLL_ASKS = """(() => {
  window.pollAsks_ = []; window.pollOut_ = 0; window.pollMost_ = 0;
  const open = XMLHttpRequest.prototype.open, send = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.open = function (method, url) {
    this.pollUrl_ = /\\/poll\\//.test(String(url)) ? String(url) : null;
    return open.apply(this, arguments);
  };
  XMLHttpRequest.prototype.send = function () {
    if (this.pollUrl_) {
      const ask = {url: this.pollUrl_, out: ++window.pollOut_, movie: null, status: null};
      window.pollMost_ = Math.max(window.pollMost_, window.pollOut_);
      window.pollAsks_.push(ask);
      this.addEventListener('loadend', () => {
        window.pollOut_--;
        ask.status = this.status;
        if (this.status !== 200) return;
        const doc = new DOMParser().parseFromString(this.responseText, 'text/html');
        const movie = doc.querySelector('#movie');
        const data = movie && movie.querySelector('template.mv-start') && movie.querySelector('script');
        if (data) ask.movie = JSON.parse(data.textContent).turns.map(t => t.number);
      });
    }
    return send.apply(this, arguments);
  };
})()"""


class Requests:
    """The poll requests the browser makes (Playwright's view): how many, and the most
    on their way at once (from each request leaving until it finished or failed), told
    only: Playwright may tell a request finished after the next one left when the
    page asks again at once, so the page's own count is the one held to one."""

    def __init__(self, page: Page, match_id: int) -> None:
        self.path = f"/matches/{match_id}/poll/"
        self.made = self.out = self.most = 0
        page.on("request", self._left)
        page.on("requestfinished", self._ended)
        page.on("requestfailed", self._ended)

    def _left(self, request: Request) -> None:
        if self.path in request.url:
            self.made += 1
            self.out += 1
            self.most = max(self.most, self.out)

    def _ended(self, request: Request) -> None:
        if self.path in request.url:
            self.out -= 1


def told_while_looking(match_id: int, sent: dict[str, int]) -> Callable[[Route], None]:
    """The look after Send is answered (as the page was before the turn), then the
    turn the Send completed (`sent["turn"]`, the one it leads to) resolves and is told
    while that answer is still on its way: the page's asks on hearing it come while a
    poll request is out. A worker left running by an earlier test may have resolved it
    already: the turn is named, not read from the match, so that is no other turn."""
    from games.models import Match

    def answer(route: Route) -> None:
        response = route.fetch()
        resolve_turn(Match.objects.get(pk=match_id), sent["turn"])
        time.sleep(0.8)  # the page hears of the turn meanwhile
        route.fulfill(response=response)

    return answer


@pytest.mark.parametrize("channel", ["polled", "pushed"])
def test_after_send_the_page_has_one_poll_ask_out_at_a_time(
    channel: str, request: pytest.FixtureRequest, page: Page, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Against the bot, a few turns: Send, the turn resolves, the page plays it and
    comes back to the player. With the push channel shut (the live server has none)
    the page looks again and again after Send; open (the site under uvicorn), it is
    told of the turn and asks until its poll shows it."""
    base = (
        request.getfixturevalue("live_server").url
        if channel == "polled"
        else request.getfixturevalue("asgi_site")
    )
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    player = log_in(page, base, f"one-at-a-time-{channel}")
    monkeypatch.setattr(services.matches.secrets, "randbelow", lambda _n: SEED)
    match = halite_duel(player)
    requests = Requests(page, match.pk)
    page.add_init_script(POLL_ASKS)
    page.goto(f"{base}/matches/{match.pk}/")
    sent: dict[str, int] = {}  # the turn the last Send leads to
    if channel == "pushed":
        page.wait_for_function("() => window.h3Push && window.h3Push.up === true", timeout=15_000)
        page.route(
            lambda url: "/poll/" in url and "v=sent" in url, told_while_looking(match.pk, sent)
        )
    first = None
    for _ in range(TURNS):
        assert wait_for_my_move_or_end(page)
        match.refresh_from_db()
        turn = match.state["turn"]
        first = turn if first is None else first
        expect(page.locator("#board-wrap svg.board")).to_have_attribute("data-turn", str(turn))
        sent["turn"] = turn + 1
        with sending_orders(page):
            page.locator("#bar-send").click()
        orders_accepted(page)
        match = resolve_turn(match, turn + 1)
        # The page comes back to the player on the next turn: none missed.
        assert wait_for_my_move_or_end(page)
        expect(page.locator("#board-wrap svg.board")).to_have_attribute("data-turn", str(turn + 1))
    # The looks after Send are over (the last one 10 s after it at most).
    page.wait_for_timeout(1500)
    page.wait_for_function("() => window.pollOut_ === 0", timeout=15_000)
    assert first is not None
    if channel == "pushed":
        assert page.evaluate("() => window.h3Push.up") is True

    asks = page.evaluate("() => window.pollAsks_")
    most = page.evaluate("() => window.pollMost_")
    movies: dict[int, int] = {}
    for ask in asks:
        for number in ask["movie"] or []:
            movies[number] = movies.get(number, 0) + 1
    beside = [ask["url"] for ask in asks if ask["out"] > 1]
    print(
        f"{channel}: {requests.made} poll requests ({requests.most} at most on their way at once),"
        f" the page's {len(asks)} asks ({most} at most out at once, {len(beside)} beside another),"
        f" movies per turn {movies}"
    )
    # The same requests in both counts (one may be leaving as the page is read).
    answered = [ask for ask in asks if ask["status"] is not None]
    assert len(answered) <= requests.made <= len(asks), (requests.made, asks)
    assert most == 1, beside
    # Each turn played came in one movie, once.
    assert movies == {t: 1 for t in range(first, first + TURNS)}, movies
    assert not errors, errors


# The answer to the orders is held in the page until a poll ask is out: the turn
# the orders complete is resolved and told meanwhile, and the page's ask on hearing
# it is on its way when the look after Send is wanted.
ANSWER_HELD = """(() => {
  const fetch_ = window.fetch;
  window.heldFor_ = null;
  window.fetch = function (input) {
    const answer = fetch_.apply(this, arguments);
    if (!/\\/orders\\//.test(String((input && input.url) || input))) return answer;
    return answer.then(response => new Promise(release => {
      const began = Date.now();
      (function check() {
        if (window.pollOut_ > 0) { window.heldFor_ = 'poll'; release(response); }
        else if (Date.now() - began > 20000) { window.heldFor_ = 'nothing'; release(response); }
        else setTimeout(check, 5);
      })();
    }));
  };
})()"""


def test_a_turn_told_before_the_orders_answer_comes_in_one_movie(
    asgi_site: str, page: Page, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The turn is resolved and told, and the page asks its poll, before the answer to
    the orders is in; the look after Send waits for that ask. The ask brings the turn's
    movie and moves the poll on; the look, made when it goes, asks from there and
    brings no movie again."""
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    player = log_in(page, asgi_site, "told-before-answer")
    monkeypatch.setattr(services.matches.secrets, "randbelow", lambda _n: SEED)
    match = halite_duel(player)
    page.add_init_script(POLL_ASKS)
    page.add_init_script(ANSWER_HELD)
    page.goto(f"{asgi_site}/matches/{match.pk}/")
    page.wait_for_function("() => window.h3Push && window.h3Push.up === true", timeout=15_000)
    assert wait_for_my_move_or_end(page)
    match.refresh_from_db()
    turn = match.state["turn"]
    page.wait_for_function("() => window.pollOut_ === 0", timeout=15_000)

    def slow_answer(route: Route) -> None:
        response = route.fetch()
        time.sleep(1.0)  # the look after Send is wanted meanwhile
        route.fulfill(response=response)

    page.route(lambda url: "/poll/" in url and "v=sent" not in url, slow_answer)
    with sending_orders(page):
        page.locator("#bar-send").click()
        resolve_turn(match, turn + 1)
    orders_accepted(page)
    assert page.evaluate("() => window.heldFor_") == "poll"
    assert wait_for_my_move_or_end(page)
    expect(page.locator("#board-wrap svg.board")).to_have_attribute("data-turn", str(turn + 1))
    page.wait_for_timeout(1500)
    page.wait_for_function("() => window.pollOut_ === 0", timeout=15_000)

    asks = page.evaluate("() => window.pollAsks_")
    told = next(i for i, ask in enumerate(asks) if ask["movie"])
    looks = [i for i, ask in enumerate(asks) if "v=sent" in ask["url"]]
    # The look after Send went after the told turn's ask, asking from the turn it brought.
    assert looks and looks[0] > told, asks
    assert f"since={turn + 1}" in asks[looks[0]]["url"], asks
    movies = [number for ask in asks for number in ask["movie"] or []]
    assert movies == [turn], asks  # a movie is numbered by the turn it resolves
    assert page.evaluate("() => window.pollMost_") == 1, asks
    assert not errors, errors
