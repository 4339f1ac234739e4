"""The fault guarantees for a setup phase, where every seat gives its orders at once
before the game goes one seat at a time, with the test ruleset race
(tests/engine/race_ruleset.py) registered in this process and in the worker and web
processes (faults_celery.py):

- a worker killed (SIGKILL) at every step of the setup turn's resolution, and of the
  clock's pass at its deadline: once a worker runs again, the setup is resolved
  exactly once, with every seat's orders, and the race's first turn waits for the
  player; a task delivered again after the commit finds the turn claimed;
- the seats posting at once through the real web server: one seat replacing its
  orders from many connections, then the last two seats sending theirs together:
  one orders row per seat and turn, and the last submission accepts the turn, which
  is resolved once.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from datetime import timedelta
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone
from faults_reconcile import make_player, reconcile, wait_settled
from faults_stack import Answer, Browser, Proc, Stack, wait_until
from test_concurrent_submissions import at_once

from games import services
from games.models import AT_ONCE, Match, Orders, Resolution, Seat, Turn
from games.services.tokens import token_create

pytestmark = pytest.mark.faults

BEFORE_COMMIT = ("pass_locked", "resolve_locked", "resolve_claimed", "resolve_applied",
                 "resolve_next_turn")  # fmt: skip
AFTER_COMMIT = ("resolve_committed", "resolve_done")
# Two kill modes keep the run short: the pool process alone (tasks acked late, so the
# task comes back at once), and the whole worker (acked early: the broker forgets the
# task and the sweep's requeue of accepted turns must find it).
KILLS = [("process", True), ("worker", False)]
# The greedy bot always takes the largest head start.
BOT_HEAD_START = 3


@pytest.fixture(autouse=True)
def test_rulesets() -> None:
    # Registered for the rest of the session, as tests/games/conftest.py does: other
    # suites in the same process may play these rulesets too.
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "engine"))
    import platform_rulesets

    platform_rulesets.register()


def race_against_a_bot(player: Any) -> Match:
    """race, the player (seat 1) against the greedy bot (seat 2), whose setup orders
    are stored as the match starts: the player's complete the setup turn."""
    match = services.match_create(
        creator=player, seat_count=2, ruleset="race", bots=["greedy"], turn_seconds=3600
    )
    match.refresh_from_db()
    assert match.status == Match.Status.RUNNING and match.state is not None
    assert match.state["phase"] == "setup"
    assert Turn.objects.get(match=match, number=0).seat == AT_ONCE
    bot_row = Orders.objects.get(match=match, turn_number=0)
    assert (bot_row.seat, bot_row.orders["head_start"]) == (2, BOT_HEAD_START)
    return match


@pytest.mark.parametrize(
    ("kill", "acks_late"), KILLS, ids=["process-acks_late", "worker-acks_early"]
)
def test_a_worker_killed_at_each_step_resolves_a_setup_turn_exactly_once(
    stack: Stack, kill: str, acks_late: bool
) -> None:
    stack.beat(period=0.5, wait=False)
    worker = stack.worker("w0", acks_late=acks_late, pause_at="*", test_rulesets=True)

    def spare(name: str) -> Proc:
        """The worker that replaces the next one killed, booting meanwhile (it takes
        no task until then)."""
        return stack.worker(
            name, acks_late=acks_late, pause_at="*", test_rulesets=True, standby=True, wait=False
        )

    next_worker = spare("w1") if kill == "worker" else None
    for number, step in enumerate(BEFORE_COMMIT + AFTER_COMMIT, start=1):
        stack.arm(step)
        player = make_player(f"p{number}")
        match = race_against_a_bot(player)
        if step == "pass_locked":
            # The player is away: the sweeper passes the setup with the default orders.
            Turn.objects.filter(match=match, number=0).update(
                deadline_at=timezone.now() - timedelta(seconds=1)
            )
            head_start = 0
        else:
            head_start = 2
            services.orders_submit(
                match_id=match.pk, user=player, turn=0, orders={"head_start": head_start}
            )

        paused_pid = stack.wait_paused(step)
        if kill == "process":
            assert paused_pid != worker.pid
            os.kill(paused_pid, signal.SIGKILL)
        else:
            worker.kill()

        resolution = Resolution.objects.filter(match=match, turn_number=0)
        stored = Orders.objects.filter(match=match, turn_number=0)
        if step in BEFORE_COMMIT:
            assert not resolution.exists(), step
            expected = Turn.Status.WAITING if step == "pass_locked" else Turn.Status.ACCEPTED
            assert Turn.objects.get(match=match, number=0).status == expected, step
            # The clock's default orders for the player were not committed.
            assert stored.count() == (1 if step == "pass_locked" else 2), step
            assert not Turn.objects.filter(match=match, number=1).exists(), step
        else:
            assert resolution.count() == 1, step

        if kill == "worker":
            assert not worker.alive() and next_worker is not None
            worker = stack.take_over(next_worker)
            if number < len(BEFORE_COMMIT + AFTER_COMMIT):
                next_worker = spare(f"w{number + 1}")
        else:
            assert worker.alive(), step
            if step in AFTER_COMMIT:
                # The task came back (acked late) and found the turn claimed already.
                again = f"turn 0 of match {match.pk}: another delivery got there first"
                wait_until(partial(worker.printed, again), 30, f"{step}: the task again")

        wait_until(Match.objects.filter(pk=match.pk, turn_number=1).exists, 30, f"{step}: turn 1")
        wait_settled(timeout=30)
        match.refresh_from_db()
        done = Resolution.objects.get(match=match, turn_number=0)
        assert done.seat == AT_ONCE, step
        assert done.orders == [
            {"seat": 1, "turn": 0, "head_start": head_start},
            {"seat": 2, "turn": 0, "head_start": BOT_HEAD_START},
        ], step
        assert sorted(stored.values_list("seat", flat=True)) == [1, 2], step
        source = Orders.Source.CLOCK if step == "pass_locked" else Orders.Source.PLAYER
        assert stored.get(seat=1).source == source, step
        missed = 1 if step == "pass_locked" else 0
        assert Seat.objects.get(match=match, number=1).missed_in_row == missed, step
        # The head starts were counted once, and the race's first turn waits for the player.
        assert match.state is not None and match.state["phase"] == "race", step
        assert match.state["scores"] == {"1": head_start, "2": BOT_HEAD_START}, step
        assert match.to_move == 1, step
        turn_1 = Turn.objects.get(match=match, number=1)
        assert (turn_1.seat, turn_1.status) == (1, Turn.Status.WAITING), step
        assert not Orders.objects.filter(match=match, turn_number=1).exists(), step
        assert reconcile(stack.mail_dir).resolutions == number, step


def api_poster(browser: Browser, user: Any, path: str) -> Any:
    """A function posting `orders` for turn 0 with `user`'s bot API token."""
    token = token_create(user=user, name="bot")[1]
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}

    def post(orders: dict[str, Any]) -> Answer:
        return browser.request("POST", path, json.dumps({"turn": 0, **orders}).encode(), headers)

    return post


def test_seats_posting_their_setup_at_once_store_one_row_each_and_the_last_accepts_once(
    stack: Stack,
) -> None:
    stack.web(wait=False, workers=3, threads=10, test_rulesets=True)
    stack.worker("w1", concurrency=2, test_rulesets=True)
    alice, bob, carol = make_player("alice"), make_player("bob"), make_player("carol")
    match = services.match_create(creator=alice, seat_count=3, ruleset="race", turn_seconds=3600)
    services.seat_join(match_id=match.pk, user=bob)
    services.seat_join(match_id=match.pk, user=carol)
    match.refresh_from_db()
    assert match.status == Match.Status.RUNNING
    assert Turn.objects.get(match=match, number=0).seat == AT_ONCE
    browser = stack.browser("")
    path = f"/api/v1/matches/{match.pk}/orders/"
    post = {user.pk: api_poster(browser, user, path) for user in (alice, bob, carol)}
    stored = Orders.objects.filter(match=match, turn_number=0)
    turn_0 = Turn.objects.filter(match=match, number=0)

    # Alice changes her mind from thirty connections at once, half of them saying 1,
    # half 2: each post replaces her orders while the turn waits for the others.
    choices = iter(range(30))
    answers = at_once(30, lambda: post[alice.pk]({"head_start": 1 + next(choices) % 2}))
    assert [a.status for a in answers] == [202] * 30, [a.body[:200] for a in answers]
    assert list(stored.values_list("seat", flat=True)) == [1]
    alice_orders = stored.get().orders
    assert alice_orders["head_start"] in (1, 2)
    assert turn_0.get().status == Turn.Status.WAITING
    assert not Resolution.objects.filter(match=match).exists()

    # Bob's and Carol's first orders at once, each sent fifteen times, and Alice's
    # stored orders again: whichever of Bob and Carol comes last accepts the turn.
    sends = [lambda: post[bob.pk]({"head_start": 3}), lambda: post[carol.pk]({"head_start": 0})]
    sends.append(lambda: post[alice.pk]({"head_start": alice_orders["head_start"]}))
    turns = iter(range(40))
    answers = at_once(40, lambda: sends[next(turns) % 3]())

    assert [a.status for a in answers] == [202] * 40, [a.body[:200] for a in answers]
    # Every repeat answers as the seat's first post did.
    by_seat: dict[int, list[Any]] = {}
    for answer in answers:
        body = json.loads(answer.body)
        by_seat.setdefault(body["seat"], []).append(body)
    assert sorted(by_seat) == [1, 2, 3]
    assert all(body == bodies[0] for bodies in by_seat.values() for body in bodies)
    assert sorted(stored.values_list("seat", flat=True)) == [1, 2, 3]
    assert stored.get(seat=1).orders == alice_orders

    wait_settled()
    assert turn_0.get().status == Turn.Status.RESOLVED
    done = Resolution.objects.get(match=match, turn_number=0)
    assert done.orders == [
        alice_orders,
        {"seat": 2, "turn": 0, "head_start": 3},
        {"seat": 3, "turn": 0, "head_start": 0},
    ]
    match.refresh_from_db()
    head_starts = {"1": alice_orders["head_start"], "2": 3, "3": 0}
    assert match.state is not None and match.state["scores"] == head_starts
    assert (match.turn_number, match.to_move) == (1, 1)
    # A seat's setup orders sent again once the race has begun answer as the first
    # time (the answer was lost, say); they change nothing.
    again = [post[alice.pk]({"head_start": alice_orders["head_start"]})]
    again += [post[bob.pk]({"head_start": 3}), post[carol.pk]({"head_start": 0})]
    assert [a.status for a in again] == [202] * 3, [a.body[:200] for a in again]
    assert [json.loads(a.body) for a in again] == [by_seat[seat][0] for seat in (1, 2, 3)]
    assert reconcile(stack.mail_dir).resolutions == 1
