"""Helium 3's match and replay pages play through the platform's page.js, as every
game's do: the board script hands page.js its hooks (matchPage.init, matchPage.replay)
and page.js fires each event of a movie on the game's stage, once, and draws its
frames; there is no second movie machinery beside it (whenever the board shows a
moment of a movie, page.js says a movie plays)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from browser_support import settle_board, sign_in
from playwright.sync_api import Page, expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Wraps window.matchPage as page.js sets it: counts the calls of init and replay, and
# every event fired on (and every frame drawn by) each stage the board script gives.
# Each frame also records whether page.js says a movie plays and whether the board
# script shows a moment of one (window.helium3Now).
WATCH_HOOKS = """(() => {
  const seen = window.h3Hooks = {inits: 0, replays: 0, root: null, stages: [], fired: [], frames: 0, moments: []};
  const wrap = stage => function (svg, following, movie) {
    const s = stage.apply(this, arguments), n = seen.stages.length;
    seen.stages.push({from: movie.from,
      turns: movie.turns.map(t => ({number: t.number, events: (t.events || []).map(e => [e.t_ms, e.type, e.robot || null])}))});
    const fire = s.fire.bind(s), moment = s.moment && s.moment.bind(s);
    s.fire = (e, speed) => { seen.fired.push([n, e.t_ms, e.type, e.robot || null]); return fire(e, speed); };
    if (moment) s.moment = (k, T) => { seen.frames++; return moment(k, T); };
    return s;
  };
  let mp;
  Object.defineProperty(window, 'matchPage', {configurable: true, get: () => mp, set: v => {
    const init = v.init, replay = v.replay;
    v.init = hooks => { seen.inits++; hooks.stage = wrap(hooks.stage); return init(hooks); };
    v.replay = (root, hooks) => { seen.replays++; seen.root = root.id; hooks.stage = wrap(hooks.stage); return replay(root, hooks); };
    mp = v;
  }});
  const look = () => {
    if (mp && window.helium3Now) seen.moments.push([mp.playing(), !!window.helium3Now()]);
    requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
})()"""


def test_the_helium3_match_page_plays_its_turns_through_page_js_hooks(
    live_server: Any, page: Page
) -> None:
    from game_factories import UserFactory
    from site_support import drain

    from games import services

    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    match = services.match_create(creator=alice, seat_count=2, length_ms=60_000)
    services.seat_join(match_id=match.pk, user=bob)
    page.add_init_script(WATCH_HOOKS)
    sign_in(page, live_server.url, "alice")
    page.goto(f"{live_server.url}/matches/{match.pk}/")
    expect(page.locator("#panel")).to_contain_text("your move")
    assert page.evaluate("() => window.h3Hooks.inits") == 1
    page.get_by_label("Speed").select_option("4")

    # Alice mines and raises a shield, bob mines: the page's poll brings both turns.
    mine = [{"robot": "1-5", "type": "mine"}, {"robot": "1-1", "type": "shield"}]
    services.orders_submit(match_id=match.pk, user=alice, turn=0, actions=mine)
    drain(match, emails=False)
    services.orders_submit(
        match_id=match.pk, user=bob, turn=1, actions=[{"robot": "3-5", "type": "mine"}]
    )
    drain(match, emails=False)
    expect(page.locator("#board-wrap svg.board")).to_have_attribute(
        "data-turn", "2", timeout=30_000
    )
    page.wait_for_function("() => !window.matchPage.playing()", timeout=30_000)
    settle_board(page)

    seen = page.evaluate("() => window.h3Hooks")
    assert seen["stages"], "page.js played no movie on the board script's stage"
    # Every event of every turn each movie played was fired on its stage once, in order.
    played: list[int] = []
    for n, stage in enumerate(seen["stages"]):
        turns = stage["turns"][stage["from"] :]
        wanted = [
            [n, *event] for turn in turns for event in sorted(turn["events"], key=lambda e: e[0])
        ]
        assert [f for f in seen["fired"] if f[0] == n] == wanted, (n, stage)
        played += [turn["number"] for turn in turns]
    assert sorted(played) == [0, 1], played
    types = {f[2] for f in seen["fired"]}
    assert {"mined", "shielded"} <= types, types
    assert seen["frames"] > 10
    # The board showed a moment of a movie only while page.js played it, and it did.
    assert [True, True] in seen["moments"]
    assert [False, True] not in seen["moments"]
    assert not errors, errors


def test_the_helium3_replay_page_plays_through_page_js(live_server: Any, page: Page) -> None:
    from game_factories import UserFactory
    from site_support import drain

    from games import services
    from games.models import Match

    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    match = services.match_create(creator=alice, seat_count=2, length_ms=30_000)
    services.seat_join(match_id=match.pk, user=bob)
    for _ in range(100):
        match.refresh_from_db()
        if match.status == Match.Status.FINISHED:
            break
        user = alice if match.to_move == 1 else bob
        actions = [{"robot": "1-5", "type": "mine"}] if match.turn_number == 0 else []
        services.orders_submit(
            match_id=match.pk, user=user, turn=match.turn_number, actions=actions
        )
        drain(match, emails=False)
    assert match.status == Match.Status.FINISHED

    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.add_init_script(WATCH_HOOKS)
    page.goto(f"{live_server.url}/matches/{match.pk}/replay/")
    expect(page.locator("#replay[data-ready='1']")).to_be_attached()
    seen = page.evaluate("() => window.h3Hooks")
    assert (seen["replays"], seen["root"]) == (1, "replay"), seen
    assert len(seen["stages"]) == 1

    page.get_by_label("Speed").select_option("16")
    page.get_by_role("button", name="Play").click()
    page.wait_for_function("() => +document.querySelector('#scrub').value > 3000")
    seen = page.evaluate("() => window.h3Hooks")
    # The mine that opens turn 0 was fired on the stage page.js plays, and the stage
    # drew the frames page.js asked for: 1-5 active, the clock and the caption on.
    assert any(f[2:] == ["mined", "1-5"] for f in seen["fired"]), seen["fired"][:5]
    assert seen["frames"] > 5
    expect(page.locator('svg.board g.rb[data-id="1-5"]')).not_to_have_class(re.compile(r"\bidle\b"))
    expect(page.locator("#caption")).not_to_contain_text("Turn 0 of")
    assert not page.locator("#replay-clock").inner_text().startswith("0:00 ")
    assert not errors, errors
