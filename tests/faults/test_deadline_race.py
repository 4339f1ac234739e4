"""A turn whose deadline passes while its orders are being submitted ends in exactly
one of the two outcomes: the player's orders accepted (answered 302), or the
clock's pass (the player answered 409) — never both, never neither. Both sides
lock the match row and claim the waiting turn with a conditional update.

The two interleavings are forced with the pause points of games/faults.py (one
side holds the lock while the other waits for it, seen in pg_stat_activity);
then many turns race freely with a sweep every half second."""

from __future__ import annotations

import threading
import time
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone
from faults_reconcile import make_player, match_against_a_bot, reconcile, session_for, wait_settled
from faults_stack import DB_NAME, Answer, Browser, Stack, wait_until

from games.models import Match, Orders, Seat, Turn

pytestmark = pytest.mark.faults

PASS = {"turn": 0, "actions_json": "[]"}  # the player's orders: a pass, like the clock's


def set_deadline(match: Match, seconds_from_now: float) -> None:
    Turn.objects.filter(match=match, number=0).update(
        deadline_at=timezone.now() + timedelta(seconds=seconds_from_now)
    )


def someone_waits_for_a_lock() -> bool:
    connection.close()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND wait_event_type = 'Lock'",
            [DB_NAME],
        )
        return bool(cursor.fetchone()[0])


def post_in_background(browser: Browser, match: Match) -> tuple[threading.Thread, list[Answer]]:
    answers: list[Answer] = []
    thread = threading.Thread(
        target=lambda: answers.append(browser.post(f"/matches/{match.pk}/orders/", PASS))
    )
    thread.start()
    return thread, answers


def outcome(match: Match) -> str:
    """'orders' or 'pass', after checking that the turn has exactly one of them."""
    rows = list(Orders.objects.filter(match=match, turn_number=0))
    assert len(rows) == 1, rows
    turn = Turn.objects.get(match=match, number=0)
    missed = Seat.objects.get(match=match, number=1).missed_in_row
    if rows[0].source == Orders.Source.CLOCK:
        assert turn.missed and missed == 1
        return "pass"
    assert rows[0].source == Orders.Source.PLAYER and rows[0].submitted_by_id is not None
    assert not turn.missed and missed == 0
    return "orders"


def finish(stack: Stack) -> None:
    wait_until(lambda: all(m.turn_number == 2 for m in Match.objects.all()), 30, "turn 2")
    wait_settled()
    reconcile(stack.mail_dir)


def test_orders_that_hold_the_lock_when_the_deadline_passes_are_accepted_and_not_passed(
    stack: Stack,
) -> None:
    stack.web(wait=False, workers=1, threads=4, pause_at="submit_locked")
    stack.worker("w1", concurrency=2)
    stack.beat(period=0.5, wait=False)
    player = make_player("alice")
    match = match_against_a_bot(player)
    set_deadline(match, 1.5)

    thread, answers = post_in_background(stack.browser(session_for(player)), match)
    stack.wait_paused("submit_locked")  # the web holds the match row
    # The deadline passes and the sweep comes to pass the turn: it waits for the row.
    wait_until(someone_waits_for_a_lock, 20, "the sweep to wait for the match row")
    assert Turn.objects.get(match=match, number=0).deadline_at < timezone.now()
    stack.release("submit_locked")
    thread.join(timeout=30)

    assert answers[0].status == 302, answers[0].body[-1500:]
    assert outcome(match) == "orders"
    finish(stack)


def test_a_pass_that_holds_the_lock_when_orders_arrive_wins_and_the_orders_get_409(
    stack: Stack,
) -> None:
    stack.web(wait=False, workers=1, threads=4)
    stack.worker("w1", pause_at="pass_locked")
    stack.beat(period=0.5, wait=False)
    player = make_player("alice")
    match = match_against_a_bot(player)
    set_deadline(match, -1.0)
    stack.wait_paused("pass_locked")  # the sweep holds the match row, the turn still waiting

    thread, answers = post_in_background(stack.browser(session_for(player)), match)
    wait_until(someone_waits_for_a_lock, 20, "the orders to wait for the match row")
    stack.release("pass_locked")
    thread.join(timeout=30)

    assert answers[0].status == 409, (answers[0].status, answers[0].body[-1500:])
    assert outcome(match) == "pass"
    finish(stack)


def test_many_turns_racing_their_deadline_each_end_one_way_only(stack: Stack) -> None:
    stack.web(wait=False, workers=2, threads=8)
    stack.beat(period=0.5, wait=False)
    for name in ("w1", "w2"):
        stack.worker(name, concurrency=2, wait=False)
    stack.wait_ready()
    count = 16
    players = [make_player(f"p{i}") for i in range(count)]
    matches = [match_against_a_bot(player) for player in players]
    browsers = [stack.browser(session_for(player)) for player in players]
    start = time.monotonic() + 2.0
    for i, match in enumerate(matches):
        set_deadline(match, 2.0 + 0.1 * i)
    answers: dict[int, Answer] = {}

    def submit(i: int) -> None:
        # Around the deadline: from half a second before to half a second after.
        time.sleep(max(0.0, start + 0.1 * i + (i % 5 - 2) * 0.25 - time.monotonic()))
        answers[i] = browsers[i].post(f"/matches/{matches[i].pk}/orders/", PASS)

    threads = [threading.Thread(target=submit, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    wait_until(
        lambda: not Turn.objects.filter(number=0, status="waiting").exists(), 30, "every turn 0"
    )
    seen = {"orders": 0, "pass": 0}
    for i, match in enumerate(matches):
        result = outcome(match)
        seen[result] += 1
        expected = 302 if result == "orders" else 409
        assert answers[i].status == expected, (i, result, answers[i].status)
    print(f"{count} turns raced their deadline: {seen}")
    finish(stack)
