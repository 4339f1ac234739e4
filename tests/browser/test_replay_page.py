"""The replay page of a finished match, watched by an anonymous visitor: the steps,
the speed and the scrubber, and the shield a player kept hidden during the match
drawn once it is over."""

from __future__ import annotations

import re
from typing import Any

import pytest
from game_factories import UserFactory
from playwright.sync_api import Page, expect
from site_support import drain

from games import services
from games.models import Match

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def finished_match_with_a_shield() -> Match:
    """Two people; on turn 1 seat 3 raises robot 3-1's shield (deflect north), then
    both pass until the battle clock runs out."""
    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    match = services.match_create(creator=alice, seat_count=2, length_ms=40_000)
    services.seat_join(match_id=match.pk, user=bob)
    shield = [{"robot": "3-1", "type": "shield", "deflect": "N"}]
    for _ in range(100):
        match.refresh_from_db()
        if match.status == Match.Status.FINISHED:
            return match
        user = alice if match.to_move == 1 else bob
        actions = shield if match.turn_number == 1 else []
        services.orders_submit(
            match_id=match.pk, user=user, turn=match.turn_number, actions=actions
        )
        drain(match, emails=False)
    raise AssertionError("the match did not finish")


PAUSE_IF_PLAYING = """() => {
  const play = document.querySelector('#play');
  if (play.textContent !== 'Pause') return null;
  play.click();
  return +document.querySelector('#scrub').value;
}"""


def robot(page: Page, robot_id: str) -> Any:
    return page.locator(f'svg.board g.rb[data-id="{robot_id}"]')


def test_an_anonymous_visitor_steps_scrubs_and_plays_a_replay_with_every_shield(
    live_server: Any, page: Page
) -> None:
    match = finished_match_with_a_shield()
    turns = match.state["turn"]
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{live_server.url}/matches/{match.pk}/replay/")
    expect(page.locator("#replay[data-ready='1']")).to_be_attached()
    expect(page.locator("#caption")).to_contain_text(f"Turn 0 of {turns}")
    shielded = re.compile(r"\bsd\b")
    expect(robot(page, "3-1")).not_to_have_class(shielded)

    # Step on past the turn that raised the shield: it is drawn, with its deflect.
    next_turn = page.get_by_role("button", name="Next turn")
    next_turn.click()
    next_turn.click()
    expect(page.locator("#caption")).to_contain_text(f"Turn 2 of {turns}")
    expect(robot(page, "3-1")).to_have_class(shielded)
    expect(robot(page, "3-1")).to_have_class(re.compile(r"\bdd\b"))
    # Steps back: turn 1 (the shield goes up at its very start), then turn 0, before it.
    previous = page.get_by_role("button", name="Previous turn")
    previous.click()
    expect(page.locator("#caption")).to_contain_text(f"Turn 1 of {turns}")
    expect(robot(page, "3-1")).to_have_class(shielded)
    previous.click()
    expect(page.locator("#caption")).to_contain_text(f"Turn 0 of {turns}")
    expect(robot(page, "3-1")).not_to_have_class(shielded)

    # The scrubber moves the battle clock: near the end, the shield is still up.
    scrub = page.get_by_label("Battle clock")
    end = int(scrub.get_attribute("max"))
    scrub.evaluate("(el, v) => { el.value = v; el.dispatchEvent(new Event('input')); }", end - 100)
    expect(page.locator("#caption")).to_contain_text(f"Turn {turns - 1} of {turns}")
    expect(robot(page, "3-1")).to_have_class(shielded)

    # Back to the start, at the fastest speed: playing moves the clock on.
    scrub.evaluate("el => { el.value = 0; el.dispatchEvent(new Event('input')); }")
    page.get_by_label("Speed").select_option("16")
    page.get_by_role("button", name="Play").click()
    expect(page.get_by_role("button", name="Pause")).to_be_visible()
    page.wait_for_function("() => +document.querySelector('#scrub').value > 2000")
    # Pause in one step inside the page: at 16x the replay could end between a
    # check that "Pause" shows and a click that waits for it.
    paused = page.evaluate(PAUSE_IF_PLAYING)
    assert paused is not None, "the replay ended before it could be paused"
    page.wait_for_timeout(300)
    assert int(scrub.input_value()) == paused
    assert not errors, errors
