"""Skyport's match page as its players meet it in Chromium, on a laptop and a phone, in
the dark theme and the light: one set of controls (the board's planner) decides what
is sent, for the loadout and for a turn, and the plain form steps aside; the weapon
cards read in both themes (WCAG AA); every player's numbers in the panel on a phone;
the map filling its frame; the coordinates behind a switch that is remembered; and
the numbers floating off a kill never overlapping one another."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect
from test_screenshots import themed
from test_skyport_play import (
    BOT,
    LAPTOP,
    ME,
    PHONE,
    STEP,
    log_in,
    planned,
    resolve_until_mine,
    send,
    sent_orders,
    wait_for_my_move_or_end,
)

WEAPONS = ("laser", "mortar", "droid")  # the panel's order, the rules' own
pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# The contrast of every text in each weapon card with the card's own background.
CARD_CONTRASTS = """() => {
  const rgb = s => s.match(/[\\d.]+/g).slice(0, 3).map(Number);
  const lum = c => {
    const [r, g, b] = c.map(v => { v /= 255; return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  const out = [];
  document.querySelectorAll('#sp-cards .sp-card').forEach(card => {
    const bg = getComputedStyle(card).backgroundColor;
    if (/rgba\\(.*,\\s*0\\)$/.test(bg) || bg === 'transparent') { out.push([card.dataset.weapon, 'no background', 0]); return; }
    card.querySelectorAll('.sp-card-title, small, th, td').forEach(t => {
      out.push([card.dataset.weapon + ': ' + t.textContent.trim().slice(0, 20), bg + ' / ' + getComputedStyle(t).color,
                ratio(rgb(getComputedStyle(t).color), rgb(bg))]);
    });
  });
  return out;
}"""

# How much of the map's frame its ground takes: the tiles other than void, against the SVG.
GROUND_SHARE = """() => {
  const svg = document.querySelector('#board-wrap svg.board'), box = svg.getBoundingClientRect();
  let l = Infinity, t = Infinity, r = -Infinity, b = -Infinity;
  svg.querySelectorAll('.sp-tile:not(.t-V)').forEach(p => {
    const q = p.getBoundingClientRect();
    l = Math.min(l, q.left); t = Math.min(t, q.top); r = Math.max(r, q.right); b = Math.max(b, q.bottom);
  });
  return [(r - l) / box.width, (b - t) / box.height];
}"""


def hidden_plain_form(page: Page) -> None:
    """The plain form's fields, note and button are out of sight; the line saying the
    board's Send sends what the list shows is there."""
    form = page.locator("#orders-form")
    expect(form.locator(".sp-planned-note")).to_be_visible()
    for control in form.locator("select, input:not([type=hidden]), button.send").all():
        expect(control).to_be_hidden()
    expect(form.locator(".sp-note")).to_be_hidden()
    expect(form.locator("details.json")).to_be_hidden()


def test_the_planner_alone_decides_what_is_sent_and_the_page_reads_in_both_themes(
    live_server: Any, page: Page
) -> None:
    from django.core.cache import cache

    from games import services

    base = live_server.url
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_viewport_size(LAPTOP)
    player = log_in(page, base, "pilot")
    themed(page, base, "dark")
    match = services.match_create(
        creator=player,
        seat_count=2,
        turn_seconds=3600,
        bots=["prospector"],
        ruleset="skyport",
        options={"rounds": 5},
    )
    page.goto(f"{base}/matches/{match.pk}/")
    assert wait_for_my_move_or_end(page)

    # The loadout: the cards alone; they read in the dark theme and the light.
    hidden_plain_form(page)
    for theme in ("dark", "light"):
        page.evaluate("t => document.documentElement.setAttribute('data-theme', t)", theme)
        contrasts = page.evaluate(CARD_CONTRASTS)
        assert len(contrasts) > 30, contrasts
        low = [c for c in contrasts if c[2] < 4.5]
        assert not low, f"{theme}: {low}"
    page.evaluate("() => document.documentElement.setAttribute('data-theme', 'dark')")
    # Orders the engine refuses (here sent past the planner) come back with the reason
    # in sight, beside the planner, which starts again from what was sent.
    with page.expect_navigation():
        page.evaluate(
            """() => { const f = document.querySelector('#orders-form');
              f.elements.actions_json.value = '{"loadout": ["laser", "laser"]}'; f.submit(); }"""
        )
    refusal = page.locator("#orders-form details.json .errorlist")
    expect(refusal).to_be_visible()
    expect(refusal).not_to_be_empty()
    expect(page.locator("#orders-form textarea")).not_to_be_editable()
    expect(page.locator("#sp-card-laser")).to_be_checked()
    page.locator("#sp-card-mortar").check()
    assert planned(page) == {"loadout": ["laser", "mortar"]}
    send(page)
    match = resolve_until_mine(match, 0)
    assert sent_orders(match, 0) == {"loadout": ["laser", "mortar"]}

    # A turn: the note of the play phase, the plain form out of sight; the move planned
    # on the board is what is sent.
    assert wait_for_my_move_or_end(page, match.state["turn"])
    hidden_plain_form(page)
    expect(page.locator("#orders")).not_to_contain_text("choose two")
    state = match.state
    me = next(p for p in state["players"] if p["seat"] == ME)
    move = next(
        d
        for d, (dj, dk) in STEP.items()
        if 0 <= me["j"] + dj < state["size"]
        and 0 <= me["k"] + dk < state["size"]
        and state["tiles"][me["j"] + dj][me["k"] + dk] in "GERC"
    )
    page.locator(f"#sp-d-{move}").click()
    expect(page.locator("#sp-list li")).to_have_count(1)
    assert planned(page) == {"actions": [{"type": "move", "direction": move}]}

    # The map fills its frame: its ground spans the frame's width or its height.
    share = page.evaluate(GROUND_SHARE)
    assert max(share) > 0.93 and min(share) > 0.75, share

    # The coordinates: off unless asked; on, the whole diamond shows; kept on a reload.
    axis = page.locator("#board-wrap svg.board .sp-axis")
    expect(axis).to_be_hidden()
    page.locator("#sp-coords").check()
    expect(axis).to_be_visible()
    svg = page.locator("#board-wrap svg.board")
    assert svg.get_attribute("viewBox") == svg.get_attribute("data-whole")
    send(page)
    turn = state["turn"]
    match = resolve_until_mine(match, turn)
    assert sent_orders(match, turn) == {"actions": [{"type": "move", "direction": move}]}
    page.reload()
    assert wait_for_my_move_or_end(page, match.state["turn"])
    expect(page.locator("#sp-coords")).to_be_checked()
    expect(axis).to_be_visible()
    # The board the bot's turns left (a movie's, put in by the page) shows them whole too.
    assert svg.get_attribute("viewBox") == svg.get_attribute("data-whole")
    page.locator("#sp-coords").uncheck()
    expect(axis).to_be_hidden()
    assert svg.get_attribute("viewBox") == svg.get_attribute("data-box")

    # Every player's numbers in the panel, on a phone too, as the state has them.
    cache.clear()
    page.set_viewport_size(PHONE)
    page.reload()
    assert wait_for_my_move_or_end(page)
    match.refresh_from_db()
    table = page.locator("#panel #sp-seats")
    expect(table).to_be_visible()
    for p in match.state["players"]:
        row = table.locator(f'tr[data-seat="{p["seat"]}"]')
        expect(row.locator(".health")).to_have_text("dead" if p["dead"] else str(p["health"]))
        levels = ", ".join(f"{w} {p['weapons'][w]}" for w in WEAPONS if w in p["weapons"])
        expect(row.locator(".weapons")).to_have_text(levels)
        cells = row.locator("td.num")
        for n, resource in enumerate(("rubidium", "explosium", "scrap"), start=1):
            expect(cells.nth(n)).to_have_text(str(p["resources"][resource]))
        box = row.bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], box
    width = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert width <= 1, f"the page scrolls sideways by {width} px"
    assert not errors, errors


# Every frame, the floating numbers on the board: how many at once, their words, and
# any two whose boxes overlap.
RECORD_FLOATS = """(() => {
  window.spFloats = {most: 0, words: [], overlaps: []};
  const look = () => {
    const floats = [...document.querySelectorAll('#board-wrap text.sp-float')];
    const rec = window.spFloats;
    rec.most = Math.max(rec.most, floats.length);
    const boxes = floats.map(f => [f.textContent, f.getBoundingClientRect()]);
    boxes.forEach(([w]) => { if (!rec.words.includes(w)) rec.words.push(w); });
    for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
      const [a, p] = boxes[i], [b, q] = boxes[j];
      const w = Math.min(p.right, q.right) - Math.max(p.left, q.left);
      const h = Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top);
      if (w > 0.5 && h > 0.5) rec.overlaps.push([a, b, Math.round(w), Math.round(h)]);
    }
    requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
})()"""


def laser_shot(state: dict[str, Any]) -> tuple[tuple[int, int], tuple[int, int], str]:
    """A tile to stand on, the bot's tile two steps away and the direction between."""
    size, tiles = state["size"], state["tiles"]
    taken = {(p["j"], p["k"]) for p in state["players"]}

    def open_tile(j: int, k: int) -> bool:
        return 0 <= j < size and 0 <= k < size and tiles[j][k] in "GERC" and (j, k) not in taken

    for j in range(size):
        for k in range(size):
            for d, (dj, dk) in STEP.items():
                if all(open_tile(j + n * dj, k + n * dk) for n in (0, 1, 2)):
                    return (j, k), (j + 2 * dj, k + 2 * dk), d
    raise AssertionError("no open line of three tiles")


def test_the_numbers_floating_off_a_kill_never_overlap(live_server: Any, page: Page) -> None:
    from django.core.cache import cache

    from games import services

    base = live_server.url
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_viewport_size(LAPTOP)
    player = log_in(page, base, "gunner")
    match = services.match_create(
        creator=player,
        seat_count=2,
        turn_seconds=3600,
        bots=["prospector"],
        ruleset="skyport",
        options={"rounds": 5},
    )
    services.orders_submit(
        match_id=match.pk, user=player, turn=0, orders={"loadout": ["laser", "mortar"]}
    )
    match = resolve_until_mine(match, 0)
    # The bot, nearly dead, two tiles from the player along an open line.
    state = match.state
    mine, its, direction = laser_shot(state)
    for p in state["players"]:
        if p["seat"] == ME:
            p["j"], p["k"] = mine
        elif p["seat"] == BOT:
            p["j"], p["k"], p["health"] = its[0], its[1], 5
    match.state = state
    match.save(update_fields=["state"])
    cache.clear()
    page.add_init_script(RECORD_FLOATS)
    page.goto(f"{base}/matches/{match.pk}/")
    assert wait_for_my_move_or_end(page)
    turn = state["turn"]
    # Sent from elsewhere (the API, another tab): the open page plays the turn.
    services.orders_submit(
        match_id=match.pk,
        user=player,
        turn=turn,
        orders={"actions": [{"type": "laser", "direction": direction}]},
    )
    match = resolve_until_mine(match, turn)
    # The hit, the death, its penalty and the skip float off one tile at once.
    page.wait_for_function(
        "() => window.spFloats.words.includes('skips') && window.spFloats.most >= 3",
        timeout=30_000,
    )
    page.wait_for_function(
        "() => !document.querySelector('#board-wrap text.sp-float')", timeout=30_000
    )
    record = page.evaluate("() => window.spFloats")
    assert any("pts" in w for w in record["words"]), record["words"]
    assert not record["overlaps"], record["overlaps"][:5]
    assert not errors, errors
