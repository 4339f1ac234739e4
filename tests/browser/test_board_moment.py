"""The match page shows one moment at a time: while the board plays turns, the panel
(its money, robots, destroyed list and table of the player's robots) and the history
are those of the turn on the board, never the final state, and the caption stays in
view; a page opened after sending hides the final state until those turns play; the
turns played since the browser last looked play once when the page opens, and
planning a turn never moves the page (on a phone the actions stay under the thumb)."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest
from browser_support import (
    RECORD_MOMENTS,
    check_moment,
    hold_the_page_after_sending,
    sending_orders,
    settle_board,
    sign_in,
)
from playwright.sync_api import Page, expect

from games.models import Match

pytestmark = [pytest.mark.worker, pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}

# One look, taken inside the page in a single step (the movie cannot move between
# its parts): the movie's turn and money, and what the panel, caption and history show.
MOMENT = """() => {
  const now = window.helium3Now();
  if (!now) return null;
  const showing = document.querySelector('#panel .showing');
  const money = {};
  document.querySelectorAll('#panel tr[data-seat]').forEach(tr => {
    money[tr.dataset.seat] = +tr.querySelector('.money').textContent.replace(/,/g, '');
  });
  const later = [...document.querySelectorAll('#history li.turn')]
    .filter(li => !li.hidden && +li.dataset.turn > now.turn).map(li => +li.dataset.turn);
  const cap = document.querySelector('#caption'), box = cap.getBoundingClientRect();
  return {
    turn: now.turn, money: now.money,
    panelTurn: showing ? +showing.dataset.turn : null, panelMoney: money,
    captionTurn: +cap.dataset.turn,
    captionBox: [box.top, box.bottom, box.width, window.innerHeight],
    captionShown: getComputedStyle(cap).visibility === 'visible' && cap.checkVisibility(),
    yourMove: document.querySelector('#panel').textContent.includes('your move'),
    planner: document.querySelector('#planner').checkVisibility({visibilityProperty: true}),
    later: later,
  };
}"""

# Whether a movie plays at any moment of the next 2.5 s.
PLAYS_SOON = """() => new Promise(done => {
  let played = !!window.helium3Now();
  const look = setInterval(() => { if (window.helium3Now()) played = true; }, 40);
  setTimeout(() => { clearInterval(look); done(played); }, 2500);
})"""


def log_in(page: Page, base: str, username: str) -> Any:
    from game_factories import UserFactory

    player = UserFactory(username=username)
    sign_in(page, base, username)
    return player


def wait_for_turn(match_id: int, number: int, timeout: float = 60.0) -> None:
    from games.models import Match

    end = time.monotonic() + timeout
    while Match.objects.get(pk=match_id).turn_number < number:
        assert time.monotonic() < end, "the bots did not play"
        time.sleep(0.2)


def panel_money(page: Page) -> dict[str, int]:
    return page.evaluate(
        "() => Object.fromEntries([...document.querySelectorAll('#panel tr[data-seat]')]"
        ".map(tr => [tr.dataset.seat, +tr.querySelector('.money').textContent.replace(/,/g, '')]))"
    )


AT_TURN_4 = """() => +document.querySelector('#board-wrap svg.board').dataset.turn >= 4
  && !window.helium3Now()"""


# A new player's pace: the page's own default, 1x.
@pytest.mark.movie_speed(None)
def test_while_the_board_plays_the_bots_turns_the_panel_shows_the_turn_on_the_board(
    live_server: Any, celery_worker: Any, page: Page, screenshot_dir: Path
) -> None:
    from games import services

    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_viewport_size({"width": 1280, "height": 900})
    player = log_in(page, live_server.url, "watcher")
    match = services.match_create(
        creator=player, seat_count=4, turn_seconds=3600, bots=["miner", "miner", "fighter"]
    )
    page.goto(f"{live_server.url}/matches/{match.pk}/")
    expect(page.get_by_text("your move")).to_be_visible()
    expect(page.get_by_label("Speed")).to_have_value("1")  # the default pace
    before = panel_money(page)
    sent_at = time.monotonic()
    page.get_by_role("button", name="Send orders").click()

    # Every look while the bots' turns play: the panel is at the board's turn. The
    # page stays, and the turns come as they are resolved (the player's own first,
    # maybe alone): the looks go on until the board is at turn 4.
    looks: list[dict[str, Any]] = []
    page.wait_for_function("() => !!window.helium3Now()", timeout=30_000, polling=20)
    shot = False
    while True:
        look = page.evaluate(MOMENT)
        if look is None:
            if page.evaluate(AT_TURN_4) or time.monotonic() - sent_at > 60:
                break
            time.sleep(0.05)
            continue
        looks.append(look)
        assert look["panelTurn"] == look["turn"] == look["captionTurn"], look
        assert look["panelMoney"] == look["money"], look
        assert not look["yourMove"], look
        assert not look["planner"], look
        assert not look["later"], look
        # The caption of the turn that plays is on the screen, next to the board.
        top, bottom, width, height = look["captionBox"]
        assert look["captionShown"] and width > 0 and top >= 0 and bottom <= height, look
        if not shot:
            page.screenshot(path=str(screenshot_dir / "board-animating-laptop.png"))
            shot = True
        time.sleep(0.15)
    played = time.monotonic() - sent_at
    turns = sorted({look["turn"] for look in looks})
    # The player's own turn 0 and the three bots' turns, in order, the last one seen on the board.
    assert turns == list(range(turns[0], 4)), turns
    if looks[0]["turn"] == 0:  # the movie starts from the money the page showed before
        assert looks[0]["money"] == before, (looks[0], before)
    # A round of three bot turns plays in seconds at 1x, not in a minute.
    assert played < 20, played
    print(f"four turns played in {played:.1f} s at 1x")

    # Once the board has caught up: the final panel, the new move, no turn caption.
    expect(page.get_by_text("your move")).to_be_visible()
    settle_board(page)
    expect(page.locator("#panel .showing")).to_have_count(0)
    final = panel_money(page)
    page.reload()
    expect(page.get_by_text("your move")).to_be_visible()
    assert panel_money(page) == final
    assert not errors, errors


def test_a_page_opened_after_the_bots_played_shows_their_turns_once(
    live_server: Any, celery_worker: Any, page: Page
) -> None:
    from games import services

    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    player = log_in(page, live_server.url, "returner")
    match = services.match_create(creator=player, seat_count=2, turn_seconds=3600, bots=["random"])
    url = f"{live_server.url}/matches/{match.pk}/"
    page.goto(url)
    expect(page.get_by_text("your move")).to_be_visible()
    seen_key = f"h3-seen-{match.pk}"
    assert page.evaluate(f"() => localStorage.getItem('{seen_key}')") == "0"
    page.get_by_label("Speed").select_option("2")

    # The player sends from elsewhere (another device, the API) and the bot answers.
    page.goto(f"{live_server.url}/")
    services.orders_submit(match_id=match.pk, user=player, turn=0, actions=[])
    wait_for_turn(match.pk, 2)

    # Opening the page plays turns 0 and 1 at once, at the speed chosen before.
    page.goto(url)
    expect(page.get_by_label("Speed")).to_have_value("2")
    # The planner's bar for turn 2 (its "Send orders") waits while the board shows
    # turns 0 and 1: looked at in one step at a moment the movie plays.
    planner_while_playing = page.wait_for_function(
        """() => window.helium3Now() ? {shown: document.querySelector('#planner')
            .checkVisibility({visibilityProperty: true})} : null""",
        timeout=10_000,
        polling=20,
    ).json_value()
    assert planner_while_playing == {"shown": False}
    expect(page.locator("#caption")).to_contain_text("Turn ")
    # One Skip ends all of it (pressed inside the page, only while it plays).
    page.evaluate("() => { if (window.helium3Now()) document.querySelector('#skip').click(); }")
    expect(page.locator("#board-wrap svg.board")).to_have_attribute("data-turn", "2")
    expect(page.get_by_role("button", name="Skip")).to_be_disabled()
    settle_board(page)
    assert page.evaluate(f"() => localStorage.getItem('{seen_key}')") == "2"
    expect(page.get_by_text("your move")).to_be_visible()
    # At turn 2 the planner is back.
    expect(page.locator("#planner")).to_be_visible()
    expect(page.locator("#bar-send")).to_be_visible()

    # Seen once is enough: a reload shows the board as it is, with nothing replayed.
    page.reload()
    expect(page.get_by_text("your move")).to_be_visible()
    assert not page.evaluate(PLAYS_SOON)
    expect(page.get_by_role("button", name="Skip")).to_be_disabled()
    assert not errors, errors


def scroll_y(page: Page) -> float:
    return page.evaluate("() => window.scrollY")


def in_view(page: Page, selector: str) -> bool:
    """Whether the element lies wholly inside the window, as it is (nothing scrolled)."""
    return page.evaluate(
        """s => { const r = document.querySelector(s).getBoundingClientRect();
        return r.width > 0 && r.top >= 0 && r.bottom <= window.innerHeight; }""",
        selector,
    )


def test_planning_a_turn_never_moves_the_page_and_fits_a_phone(
    live_server: Any, celery_worker: Any, page: Page, screenshot_dir: Path
) -> None:
    from games import services

    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    player = log_in(page, live_server.url, "thumb")
    match = services.match_create(creator=player, seat_count=2, turn_seconds=3600, bots=["random"])
    page.goto(f"{live_server.url}/matches/{match.pk}/")
    expect(page.get_by_text("your move")).to_be_visible()

    # A laptop: the robot, its actions and its cells are chosen with the page still.
    page.locator('#board-wrap g.rb[data-id="1-5"]').scroll_into_view_if_needed()
    before = scroll_y(page)
    page.locator('#board-wrap g.rb[data-id="1-5"]').click()
    expect(page.get_by_role("button", name="Move (6)")).to_be_focused()
    assert abs(scroll_y(page) - before) <= 4
    assert in_view(page, "#kinds button")
    page.get_by_role("button", name="Move (6)").click()
    assert abs(scroll_y(page) - before) <= 4
    page.locator("#board-wrap .hl rect").last.click()
    expect(page.get_by_text("Robot 1-5: move to")).to_be_attached()
    assert abs(scroll_y(page) - before) <= 4
    assert in_view(page, "#bar-send")

    # A phone: the board at the top, and after choosing a robot the board is zoomed
    # to its area (cells a finger can hit) with every action button in view.
    page.set_viewport_size(PHONE)
    page.reload()
    expect(page.get_by_text("your move")).to_be_visible()
    page.evaluate("() => window.scrollTo(0, 0)")
    whole = page.locator("#board-wrap svg.board").get_attribute("viewBox")
    page.locator('#board-wrap g.rb[data-id="1-3"]').click()
    expect(page.get_by_role("button", name="Move (6)")).to_be_focused()
    assert page.locator("#board-wrap svg.board").get_attribute("viewBox") != whole
    assert page.evaluate(
        "() => [...document.querySelectorAll('#kinds button')].every(b => {"
        " const r = b.getBoundingClientRect(); return r.top >= 0 && r.bottom <= window.innerHeight; })"
    )
    # A thumb has no Escape key: the bar steps back (the action, then the robot).
    page.get_by_role("button", name="Mine (4)").click()
    page.get_by_role("button", name="Step back").click()
    expect(page.locator("#board-wrap .hl rect")).to_have_count(0)
    expect(page.get_by_role("button", name="Mine (4)")).to_have_attribute("aria-pressed", "false")
    page.get_by_role("button", name="Move (6)").click()
    cell = page.locator("#board-wrap .hl rect").first
    box = cell.bounding_box()
    assert box is not None and box["width"] >= 26, box  # 18 px at the whole board
    page.screenshot(path=str(screenshot_dir / "board-planning-phone.png"))
    # The whole board is a button away, and back.
    page.get_by_role("button", name="Whole board").click()
    expect(page.locator("#board-wrap svg.board")).to_have_attribute("viewBox", whole)
    page.get_by_role("button", name="Zoom to the robot").click()
    start = scroll_y(page)
    page.locator("#board-wrap .hl rect").last.click()
    expect(page.get_by_text("Robot 1-3: move to")).to_be_attached()
    assert abs(scroll_y(page) - start) <= 4
    assert in_view(page, "#bar-send")
    with sending_orders(page):
        page.get_by_role("button", name="Send orders").click()
    # The page stays where it was, and comes back to the player's move.
    assert abs(scroll_y(page) - start) <= 4
    expect(page.locator("#panel .your-move")).to_be_visible(timeout=30_000)
    settle_board(page)
    expect(page.locator("#history")).to_contain_text("Robot 1-3 moved")
    assert not errors, errors


def test_the_last_turns_of_a_match_that_ended_away_play_before_the_result(
    live_server: Any, celery_worker: Any, page: Page
) -> None:
    from site_support import drain

    from games import services
    from games.models import Match

    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    player = log_in(page, live_server.url, "absent")
    match = services.match_create(
        creator=player, seat_count=2, turn_seconds=3600, bots=["fighter"], length_ms=60_000
    )
    url = f"{live_server.url}/matches/{match.pk}/"
    page.goto(url)
    expect(page.get_by_text("your move")).to_be_visible()
    page.goto(f"{live_server.url}/")

    # The player passes to the end from elsewhere. The live worker may be playing the
    # bot's turn at the same time: pass only when the turn is the player's.
    import time

    from games.errors import Conflict

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        drain(match, emails=False)
        match.refresh_from_db()
        if match.status == Match.Status.FINISHED:
            break
        if match.to_move != 1:
            time.sleep(0.05)
            continue
        try:
            services.orders_submit(
                match_id=match.pk, user=player, turn=match.turn_number, actions=[]
            )
        except Conflict:
            time.sleep(0.05)  # the turn moved on between the look and the pass
    assert match.status == Match.Status.FINISHED

    # The page opens on the turns before the end, the result hidden until they are played.
    page.goto(url)
    page.wait_for_function("() => !!window.helium3Now()", timeout=10_000, polling=20)
    look = page.evaluate(
        """() => ({now: window.helium3Now(),
        over: document.querySelector('#panel').textContent.includes('The match is over'),
        results: [...document.querySelectorAll('#panel .results')].some(e => !e.hidden)})"""
    )
    if look["now"] is not None:  # (it may have ended between the two looks)
        assert not look["over"] and not look["results"], look
    settle_board(page)
    expect(page.get_by_text("The match is over.")).to_be_visible()
    expect(page.locator("#panel section.results")).to_be_visible()
    assert not errors, errors


def destroyed_ids(page: Page) -> list[str]:
    """The robots the panel lists as destroyed (none: no list)."""
    return page.evaluate(
        "() => { const p = document.querySelector('#panel .destroyed');"
        " return p && p.dataset.ids ? p.dataset.ids.split(' ') : []; }"
    )


def test_after_sending_nothing_of_the_final_state_shows_before_its_turns_play(
    live_server: Any, celery_worker: Any, page: Page
) -> None:
    """The page stays after Send; when the bot has played, the movie of turns 0 and 1
    plays first, every frame at its own turn, and only then the new move."""
    from games import services

    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_viewport_size({"width": 1280, "height": 900})
    player = log_in(page, live_server.url, "patient")
    match = services.match_create(creator=player, seat_count=2, turn_seconds=3600, bots=["miner"])
    page.add_init_script(RECORD_MOMENTS)
    page.goto(f"{live_server.url}/matches/{match.pk}/")
    expect(page.get_by_text("your move")).to_be_visible()
    assert page.evaluate(f"() => localStorage.getItem('h3-seen-{match.pk}')") == "0"

    # The answer to the orders comes when the bot has played (turn 2).
    hold_the_page_after_sending(page, match.pk, 2)
    page.get_by_role("button", name="Send orders").click()
    page.wait_for_function("() => window.h3Moments.length > 0", timeout=30_000)
    moments = page.evaluate("() => window.h3Moments")
    assert moments[0]["turn"] == 0, moments[0]
    settle_board(page)
    expect(page.get_by_text("your move")).to_be_visible()
    destroyed = destroyed_ids(page)
    for moment in page.evaluate("() => window.h3Moments"):
        check_moment(moment, destroyed, viewer=1)
    assert page.evaluate(f"() => localStorage.getItem('h3-seen-{match.pk}')") == "2"
    assert not errors, errors


# Pause the movie at the kamikaze's blast (the first frame that draws it, as every
# frame is looked at), in the page itself so the moment cannot pass before the click.
PAUSE_AT_THE_BLAST = """() => {
  const now = window.helium3Now && window.helium3Now();
  if (!now || now.turn !== 2 || !document.querySelector('#board-wrap .fx .fireball')) return false;
  if (!now.paused) document.querySelector('#pause').click();
  return true;
}"""


def test_the_destroyed_list_and_the_robots_table_follow_the_movie_on_a_phone(
    live_server: Any, celery_worker: Any, page: Page, screenshot_dir: Path
) -> None:
    """Robot 1-5 blows itself up beside 1-4 (active: it mined). While the movie plays
    the panel lists both alive at their cells until the blast, then destroyed; the
    caption stays on the phone's screen; the movie paused at the blast is the
    screenshot of a phone while the board animates."""
    from games import services

    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_viewport_size(PHONE)
    player = log_in(page, live_server.url, "bomber")
    match = services.match_create(creator=player, seat_count=2, turn_seconds=3600, bots=["miner"])
    services.orders_submit(
        match_id=match.pk, user=player, turn=0, actions=[{"robot": "1-4", "type": "mine"}]
    )
    wait_for_turn(match.pk, 2)
    page.add_init_script(RECORD_MOMENTS)
    page.goto(f"{live_server.url}/matches/{match.pk}/")
    expect(page.get_by_text("your move")).to_be_visible()
    page.locator('#board-wrap g.rb[data-id="1-5"]').click()
    page.get_by_role("button", name="Kamikaze").click()
    expect(page.locator("#plan-help")).to_contain_text("The board shows it done")
    hold_the_page_after_sending(page, match.pk, 4)
    page.get_by_role("button", name="Send orders").click()

    page.wait_for_function(PAUSE_AT_THE_BLAST, timeout=30_000, polling="raf")
    expect(page.get_by_role("button", name="Play", exact=True)).to_be_enabled()
    now = page.evaluate("() => window.helium3Now()")
    assert now["paused"] and now["turn"] == 2, now
    # Paused, the board keeps its frame.
    frame = page.locator("#board-wrap .fx").inner_html()
    page.wait_for_timeout(300)
    assert page.locator("#board-wrap .fx").inner_html() == frame
    page.screenshot(path=str(screenshot_dir / "board-animating-phone.png"))
    page.get_by_role("button", name="Play", exact=True).click()
    page.wait_for_function("() => window.helium3Now && !window.helium3Now()", timeout=30_000)
    assert not errors, errors
    settle_board(page)
    expect(page.get_by_text("your move")).to_be_visible()

    destroyed = destroyed_ids(page)
    assert {"1-4", "1-5"} <= set(destroyed), destroyed
    moments = page.evaluate("() => window.h3Moments")
    for moment in moments:
        check_moment(moment, destroyed, viewer=1)
    blast = [m for m in moments if m["turn"] == 2]
    before = [m for m in blast if m["robots"]["1-5"]["alive"]]
    after = [m for m in blast if not m["robots"]["1-5"]["alive"]]
    assert before and after, len(blast)
    assert ["1-4", "(1, 2)"] in before[0]["rows"] and "1-5" not in before[0]["destroyed"]
    assert re.search(r"1-4, 1-5|1-5, 1-4", after[-1]["destroyed"]), after[-1]
    assert all(row[0] not in ("1-4", "1-5") for row in after[-1]["rows"]), after[-1]
    expect(page.locator("#panel table.mine tr[data-robot='1-5']")).to_have_count(0)
    assert not errors, errors


def test_right_after_sending_the_page_asks_for_the_turn_sooner_than_its_poll(
    live_server: Any, celery_worker: Any, page: Page, settings: Any, tmp_path: Path
) -> None:
    """Right after Send the turn is usually not resolved yet: the page asks again
    within a moment instead of at its poll's next round (3 s), and plays the turn once
    it is resolved. The worker is held before it resolves the turn (games.faults), so
    the turn is not resolved yet when the orders are accepted, every time."""
    from games import services

    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    player = log_in(page, live_server.url, "eager")
    match = services.match_create(creator=player, seat_count=2, turn_seconds=3600, bots=["miner"])
    page.goto(f"{live_server.url}/matches/{match.pk}/")
    expect(page.get_by_text("your move")).to_be_visible()
    from games.models import Turn

    # No turn of any match is on its way to the worker: the pause is this turn's.
    assert not Turn.objects.filter(status=Turn.Status.ACCEPTED).exists()
    step = "resolve_locked"
    settings.FAULT_PAUSE_AT = step
    settings.FAULT_DIR = str(tmp_path)
    try:
        page.evaluate(
            "() => document.addEventListener('click', e => {"
            " if (e.target.closest('.send')) window.sentAt = performance.now(); }, true)"
        )
        page.get_by_role("button", name="Send orders").click()
        expect(page.get_by_text("Orders are in; the turn is being resolved.")).to_be_visible()
        # Two answers come before the page's own poll would fire again (every 3 s). A
        # request's timing is listed once its answer is in.
        polls = f"/matches/{match.pk}/poll/"
        asked = page.wait_for_function(
            """p => { const asked = performance.getEntriesByType('resource')
              .filter(e => e.name.includes(p) && e.startTime > window.sentAt)
              .map(e => e.startTime - window.sentAt);
            return asked.length >= 2 && asked; }""",
            arg=polls,
            timeout=10_000,
        ).json_value()
        assert asked[1] < 2500, asked
        assert (tmp_path / f"{step}.paused").exists()
        assert Match.objects.get(pk=match.pk).turn_number == 0  # nothing resolved yet
    finally:
        (tmp_path / f"{step}.release").touch()
    page.wait_for_function("() => window.helium3Now && !!window.helium3Now()", timeout=30_000)
    settle_board(page)
    expect(page.get_by_text("your move")).to_be_visible()
    assert not errors, errors
