"""Send keeps the page in every game: Halite, Skyport, the arena and the remake post
their orders without loading the page again (a mark set on the window stays, the
scroll stays), the orders are accepted, and the turn they were sent for arrives as a
movie. The note "Orders accepted" sits in a live region that is no list, inside a
list of its own. Without JavaScript the form still posts and the answer redirects
back to the match (Helium 3's plain form: test_board_no_js.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from browser_support import halite_duel, orders_accepted, sending_orders, settle_board, sign_in
from playwright.sync_api import Browser, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

pytestmark = [pytest.mark.worker, pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LAPTOP = {"width": 1280, "height": 900}
ACCEPTED = "Orders accepted"

# Recorded in the page from its first moment: each turn a movie shows (the caption's
# turn as it is set, or as a caption put in anew carries it), and each note of accepted orders as it is added, with where it
# sits (a live region around it, a list with no role of its own as its parent).
WATCH = """(() => {
  window.moviesShown = [];
  window.notesShown = [];
  new MutationObserver(records => {
    const cap = document.querySelector('#caption');
    if (cap && cap.dataset.turn !== undefined && !window.moviesShown.includes(+cap.dataset.turn))
      window.moviesShown.push(+cap.dataset.turn);
    for (const r of records) {
      const t = r.target;
      if (r.type === 'attributes' && t.id === 'caption' && t.dataset.turn !== undefined
          && !window.moviesShown.includes(+t.dataset.turn)) window.moviesShown.push(+t.dataset.turn);
      for (const n of r.addedNodes || []) {
        if (n.nodeType !== 1) continue;
        const notes = n.matches('.orders-accepted') ? [n] : [...n.querySelectorAll('.orders-accepted')];
        for (const note of notes) {
          const list = note.parentElement;
          window.notesShown.push({
            text: note.textContent, tag: note.tagName, listTag: list.tagName,
            listRole: list.getAttribute('role'), live: !!note.closest('[role=status], [aria-live]'),
          });
        }
      }
    }
  }).observe(document, {subtree: true, childList: true, attributes: true, attributeFilter: ['data-turn']});
})()"""


# What the page shows and asked, for a failure's message: the panel, the caption, the
# poll element's URL, and each poll request with its start and length (ms).
PAGE_STATE = """() => ({
  panel: (document.querySelector('#panel') || {}).innerText,
  caption: (document.querySelector('#caption') || {}).outerHTML,
  poll: (document.querySelector('#poll') || {}).outerHTML,
  movies: window.moviesShown,
  asked: performance.getEntriesByType('resource').filter(e => e.name.includes('/poll/'))
    .map(e => [e.name.split('/poll/')[1], Math.round(e.startTime), Math.round(e.duration)]),
})"""


def log_in(page: Page, base: str, username: str) -> Any:
    from game_factories import UserFactory

    player = UserFactory(username=username)
    sign_in(page, base, username)
    return player


def nothing_to_plan(page: Page) -> None:
    """Orders of nothing: every piece stays (Halite, the remake)."""


def skyport_loadout(page: Page) -> None:
    page.locator("#sp-card-laser").check()
    page.locator("#sp-card-mortar").check()
    expect(page.locator("#bar-send")).to_be_enabled()


def arena_build(page: Page) -> None:
    for part in ("gun", "engine2", "radar1"):
        page.locator(f"#ar-part-{part}").check()
    expect(page.locator("#bar-send")).to_be_enabled()


GAMES: dict[str, tuple[str, dict[str, Any], Callable[[Page], None]]] = {
    "halite": ("grower", {"width": 10, "height": 10}, nothing_to_plan),
    "skyport": ("prospector", {"rounds": 5}, skyport_loadout),
    "arena": ("hunter", {"rounds": 10}, arena_build),
    "helium3-remake": ("prospector", {"rounds": 5}, nothing_to_plan),
}


@pytest.mark.parametrize("ruleset", list(GAMES))
def test_send_keeps_the_page_and_the_turn_arrives_as_a_movie(
    ruleset: str, live_server: Any, celery_worker: Any, page: Page
) -> None:
    from games import services

    bot, options, plan = GAMES[ruleset]
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    bad: list[str] = []
    # The push channel is the ASGI process's; the test's server has none (a 404), and
    # the page falls back to the poll, as it does whenever the channel is down.
    page.on(
        "response",
        lambda r: (
            bad.append(f"{r.status} {r.url}") if r.status >= 400 and "/push/" not in r.url else None
        ),
    )
    page.set_viewport_size(LAPTOP)
    player = log_in(page, live_server.url, f"sender-{ruleset}")
    match = services.match_create(
        creator=player,
        seat_count=2,
        turn_seconds=3600,
        bots=[bot],
        ruleset=ruleset,
        options=options,
    )
    page.add_init_script(WATCH)
    page.goto(f"{live_server.url}/matches/{match.pk}/")
    expect(page.get_by_text("your move").first).to_be_visible(timeout=30_000)
    settle_board(page)
    plan(page)
    page.evaluate("() => window.scrollTo(0, 160)")
    page.wait_for_function("() => Math.round(window.scrollY) === 160")
    # A long planner (the arena's eleven cards) has Send further down: the page is
    # scrolled to it, as a player would before pressing it (a click would scroll too).
    page.locator("#bar-send").scroll_into_view_if_needed()
    kept = round(page.evaluate("() => window.scrollY"))
    assert kept >= 160
    # A mark on the window: a page loaded again would not have it.
    page.evaluate("() => { window.sameDocument = true; window.moviesShown.length = 0; }")
    posts: list[str] = []
    navigations: list[str] = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    page.on("framenavigated", lambda f: navigations.append(f.url) if f == page.main_frame else None)

    with sending_orders(page):
        page.locator("#bar-send").click()
    orders_accepted(page)

    # The turn the orders were sent for plays as a movie on the same page.
    try:
        page.wait_for_function("() => window.moviesShown.includes(0)", timeout=30_000)
    except PlaywrightTimeoutError:
        pytest.fail(f"no movie of turn 0; the page: {page.evaluate(PAGE_STATE)}")
    settle_board(page)
    assert page.evaluate("() => window.sameDocument === true"), "the page was loaded again"
    assert not navigations, navigations
    assert round(page.evaluate("() => window.scrollY")) == kept
    # The height the page kept while the planner was away is let go once the turn played.
    page.wait_for_function("() => document.documentElement.style.minHeight === ''")
    assert posts == [f"{live_server.url}/matches/{match.pk}/orders/"]
    # The note said the orders were in, in a live region that is not a list.
    notes = page.evaluate("() => window.notesShown")
    assert notes and all(ACCEPTED in n["text"] for n in notes), notes
    for note in notes:
        assert note["tag"] == "LI" and note["listTag"] == "UL", note
        assert note["listRole"] is None and note["live"], note
    # Once its turn is resolved, the note is gone.
    expect(page.get_by_text(ACCEPTED)).to_have_count(0)
    assert not errors, errors
    assert not bad, bad


def test_without_javascript_halites_form_posts_and_comes_back_to_the_match(
    live_server: Any, celery_worker: Any, browser: Browser
) -> None:
    from game_factories import UserFactory

    from games.models import Match

    player = UserFactory(username="plainhalite")
    match = halite_duel(player)
    context = browser.new_context(java_script_enabled=False, viewport=LAPTOP)
    page = context.new_page()
    try:
        sign_in(page, live_server.url, "plainhalite")
        page.goto(f"{live_server.url}/matches/{match.pk}/")
        expect(page.locator("#orders-form")).to_be_visible()
        with page.expect_navigation():
            page.locator("#orders-form").get_by_role("button", name="Send orders").click()
        assert page.url == f"{live_server.url}/matches/{match.pk}/"
        expect(page.get_by_text(ACCEPTED).first).to_be_visible()
        assert Match.objects.get(pk=match.pk).turn_number >= 0
        from games.models import Resolution

        deadline = 300
        while not Resolution.objects.filter(match=match, turn_number=0).exists():
            assert deadline, "the turn sent without JavaScript was never resolved"
            page.wait_for_timeout(100)
            deadline -= 1
    finally:
        context.close()
