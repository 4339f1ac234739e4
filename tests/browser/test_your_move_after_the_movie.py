"""Nothing is told before it is shown, whatever order the poll's answers land in:
after Send, "your move" (the panel, the tab's title, the badge) comes once the
movie of the bots' turns has played, never before it starts.

The race: the page's look at its poll after Send is answered before the bots have
played, but lands late, after the push channel told the page of the new turn; the
page asked again meanwhile (that request waits behind the first, and was made for
the poll element the first answer replaces). That second answer brings the turn,
its movie and "your move". The test makes it happen at every turn: the worker is
held before it resolves the turn (games.faults), so the first answer after Send
always says the turn is not resolved; that answer is held, the worker let go, and
once the bots have resolved the turn and the push has reached the page the answer
goes through; the page's next request is answered as it comes.

Every change of the page is recorded inside it as it happens (a MutationObserver,
run after each task), with its time, so the order of "your move" and the movie's
start is read afterwards, to the millisecond. The site runs under uvicorn with
its push channel (conftest.py's asgi_site), its bots on the test's worker."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from browser_support import sign_in
from playwright.sync_api import Page, Route, expect

pytestmark = [pytest.mark.worker, pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TURNS = 10

# The page's state after every task that changed it: the panel's "your move", a
# movie playing, the caption's turn, the tab's title and the badge; and each Send.
RECORD = """(() => {
  window.told_ = [];
  let last = {};
  const state = () => {
    const panel = document.querySelector('#panel'), player = document.querySelector('#player');
    const badge = document.querySelector('#move-badge'), cap = document.querySelector('#caption');
    return {
      yourMove: !!panel && !!panel.querySelector('.your-move'),
      playing: !!player && player.classList.contains('playing'),
      caption: cap && cap.dataset.turn !== undefined ? +cap.dataset.turn : null,
      title: document.title,
      badge: badge ? (badge.hidden ? 0 : +badge.dataset.count || 0) : null,
    };
  };
  const check = () => {
    const now = state();
    if (Object.keys(now).some(k => now[k] !== last[k])) {
      window.told_.push(Object.assign({t: performance.now(), kind: 'state'}, now));
      last = now;
    }
  };
  new MutationObserver(check).observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
  window.pushed_ = [];
  document.addEventListener('h3:push-turn', e => window.pushed_.push(e.detail.turn));
  document.addEventListener('submit', e => {
    if (e.target.id === 'orders-form') window.told_.push({t: performance.now(), kind: 'send'});
  }, true);
})()"""

# The player may send: their move, nothing playing or waiting to play, Send enabled.
READY = """() => !!document.querySelector('#panel .your-move')
  && !document.querySelector('#player.playing') && !document.querySelector('#movie template')
  && !!document.querySelector('#bar-send') && !document.querySelector('#bar-send').disabled"""


class LateAnswers:
    """The page's poll requests, each answered as it comes, except after a Send: the
    worker is held before it resolves the turn, the first answer (which says the turn
    is not resolved yet) is held, then the worker let go, and the answer goes through
    once the bots have resolved the turn and the push channel has told the page so."""

    STEP = "resolve_locked"

    def __init__(self, page: Page, match_id: int, pauses: Path) -> None:
        self.page, self.match_id, self.pauses = page, match_id, pauses
        self.armed = False
        self.stale: tuple[Route, Any] | None = None
        page.route(f"**/matches/{match_id}/poll/**", self._route)

    def _route(self, route: Route) -> None:
        response = route.fetch()
        if (
            self.armed
            and self.stale is None
            and response.status == 200
            and 'class="mv-start"' not in response.text()
        ):
            self.stale = (route, response)
            return
        route.fulfill(response=response)

    def turn(self) -> int:
        from games.models import Match

        return Match.objects.get(pk=self.match_id).turn_number

    def arm(self) -> None:
        """Before a Send: the next resolution pauses (the last one's files go: its
        turn was resolved, so its worker has left the pause)."""
        for name in (f"{self.STEP}.paused", f"{self.STEP}.release"):
            (self.pauses / name).unlink(missing_ok=True)
        self.armed = True

    def provoke(self, sent_turn: int) -> None:
        """After a Send for `sent_turn`: hold the page's first answer while the worker
        is held, then let the worker resolve the turn, and the answer through once the
        push has told the page of the turn."""
        paused = self.pauses / f"{self.STEP}.paused"
        try:
            end = time.monotonic() + 30
            while (self.stale is None or not paused.exists()) and time.monotonic() < end:
                self.page.wait_for_timeout(20)
            assert self.stale is not None, "no answer came after Send"
            assert paused.exists(), "the worker never reached the turn"
            assert self.turn() == sent_turn  # held: nothing resolved yet
        finally:
            (self.pauses / f"{self.STEP}.release").touch()
        told = f"() => window.pushed_.some(t => t > {sent_turn})"
        self.page.wait_for_function(told, timeout=30_000, polling=20)
        assert self.turn() > sent_turn
        self.armed = False
        stale, self.stale = self.stale, None
        # The page has asked again on the push (its request waits behind this one).
        self.page.wait_for_timeout(100)
        stale[0].fulfill(response=stale[1])


def turns_told(told: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """For each Send: when its turn's movie started and ended, and when the page
    next said "your move", changed the title or raised the badge."""
    out = []
    sends = [i for i, r in enumerate(told) if r["kind"] == "send"]
    for n, i in enumerate(sends):
        upto = sends[n + 1] if n + 1 < len(sends) else len(told)
        states = [r for r in told[i + 1 : upto] if r["kind"] == "state"]
        before = next((r for r in reversed(told[:i]) if r["kind"] == "state"), None)
        start = next((r["t"] for r in states if r["playing"]), None)
        end = next(
            (r["t"] for r in states if start is not None and r["t"] > start and not r["playing"]),
            None,
        )
        said = next((r["t"] for r in states if r["yourMove"]), None)
        previous = [before or states[0]] + states[:-1] if states else []
        titled = [
            r["t"]
            for r, p in zip(states, previous, strict=True)
            if r["title"].startswith("(") and not p["title"].startswith("(")
        ]
        badge = [
            r["t"]
            for r, p in zip(states, previous, strict=True)
            if (r["badge"] or 0) > (p["badge"] or 0)
        ]
        out.append(
            {
                "send": told[i]["t"],
                "start": start,
                "end": end,
                "your_move": said,
                "title": titled,
                "badge": badge,
            }
        )
    return out


@pytest.mark.slow
def test_your_move_comes_after_the_movie_however_the_answers_land(
    asgi_site: str, celery_worker: Any, page: Page, settings: Any, tmp_path: Path
) -> None:
    from game_factories import UserFactory

    from games import services

    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_viewport_size({"width": 1280, "height": 900})
    player = UserFactory(username="racer")
    sign_in(page, asgi_site, "racer")
    match = services.match_create(
        creator=player, seat_count=4, turn_seconds=3600, bots=["fighter", "miner", "random"]
    )
    late = LateAnswers(page, match.pk, tmp_path)
    page.add_init_script(RECORD)
    page.goto(f"{asgi_site}/matches/{match.pk}/")
    # The movies are short: the race is between the answers, not the animation.
    page.get_by_label("Speed").select_option("4")
    expect(page.get_by_text("your move").first).to_be_visible(timeout=30_000)
    page.wait_for_function("() => window.h3Push && window.h3Push.up === true", timeout=15_000)

    # From here on, a resolution stops at the step once after each arm(), until let go.
    (tmp_path / f"{LateAnswers.STEP}.paused").touch()
    settings.FAULT_DIR = str(tmp_path)
    settings.FAULT_PAUSE_AT = LateAnswers.STEP
    for _ in range(TURNS):
        page.wait_for_function(READY, timeout=60_000, polling=50)
        sent_turn = late.turn()
        late.arm()
        page.locator("#bar-send").click()
        late.provoke(sent_turn)
    page.wait_for_function(READY, timeout=60_000, polling=50)

    turns = turns_told(page.evaluate("() => window.told_"))
    assert len(turns) == TURNS, turns
    for turn in turns:
        assert turn["start"] is not None and turn["end"] is not None, turn
        assert turn["your_move"] is not None, turn
    # From the movie's start to "your move" (negative: said before the movie).
    gaps = [round(turn["your_move"] - turn["start"]) for turn in turns]
    print(
        f"your move after the movie's start, {TURNS} turns, each raced: "
        f"min {min(gaps)} ms, max {max(gaps)} ms; each {gaps}"
    )
    for turn in turns:
        # "Your move", the title and the badge come once the movie has played.
        assert turn["your_move"] >= turn["end"], (turn, gaps)
        for t in turn["title"] + turn["badge"]:
            assert t >= turn["end"], turn
    assert not errors, errors
