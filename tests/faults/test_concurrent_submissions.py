"""Fifty identical submissions for one turn at the same moment, through the real
web server (gunicorn: several processes, several threads each), by the order form
and by the bot API: one orders row is stored, every other submission is answered as
the first one was (docs/protocol.md: a repeat "answers as the first time did"), nothing
answers 5xx, and the turn is resolved once."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import pytest
from faults_reconcile import (
    legal_actions,
    make_player,
    match_against_a_bot,
    reconcile,
    session_for,
    wait_settled,
)
from faults_stack import Answer, Stack

from games.models import Orders, Resolution
from games.services.tokens import token_create

pytestmark = pytest.mark.faults

COPIES = 50


def at_once(count: int, send: Callable[[], Answer]) -> list[Answer]:
    """`count` threads, released together by a barrier, each sending once."""
    barrier = threading.Barrier(count)

    def one(_: int) -> Answer:
        barrier.wait()
        return send()

    with ThreadPoolExecutor(count) as pool:
        return list(pool.map(one, range(count)))


def test_fifty_identical_order_forms_store_one_row_and_answer_the_rest_as_repeats(
    stack: Stack,
) -> None:
    stack.web(wait=False, workers=3, threads=10)
    stack.worker("w1", concurrency=2)
    player = make_player("alice")
    match = match_against_a_bot(player)
    actions = legal_actions(match, 1)
    browser = stack.browser(session_for(player))
    form = {"turn": 0, "actions_json": json.dumps(actions)}

    answers = at_once(COPIES, lambda: browser.post(f"/matches/{match.pk}/orders/", form))

    statuses = sorted(a.status for a in answers)
    assert all(a.status == 302 for a in answers), statuses
    assert {a.location for a in answers} == {f"/matches/{match.pk}/"}
    stored = Orders.objects.filter(match=match, turn_number=0)
    assert stored.count() == 1
    assert stored.get().orders == {"seat": 1, "turn": 0, "actions": actions}

    wait_settled()
    assert Resolution.objects.filter(match=match, turn_number=0).count() == 1
    result = reconcile(stack.mail_dir)
    assert result.resolutions == 2  # the player's turn and the bot's; the player's again now


def test_fifty_identical_api_posts_store_one_row_and_answer_every_one_alike(stack: Stack) -> None:
    stack.web(wait=False, workers=3, threads=10)
    stack.worker("w1", concurrency=2)
    player = make_player("alice")
    match = match_against_a_bot(player)
    actions = legal_actions(match, 1)
    browser = stack.browser("")
    token = token_create(user=player, name="bot")[1]
    body = json.dumps({"turn": 0, "actions": actions}).encode()
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}

    answers = at_once(
        COPIES,
        lambda: browser.request("POST", f"/api/v1/matches/{match.pk}/orders/", body, headers),
    )

    assert sorted(a.status for a in answers) == [202] * COPIES, [a.body[:200] for a in answers]
    # The repeats answer as the first did: the same JSON (jsonb may order keys its way).
    accepted, *repeats = [json.loads(a.body) for a in answers]
    assert all(repeat == accepted for repeat in repeats)
    assert (accepted["turn"], accepted["status"], accepted["orders"]["actions"]) == (
        0,
        "accepted",
        actions,
    )
    assert Orders.objects.filter(match=match, turn_number=0).count() == 1

    wait_settled()
    assert Resolution.objects.filter(match=match, turn_number=0).count() == 1
    assert reconcile(stack.mail_dir).resolutions == 2
