"""A worker killed with SIGKILL at every step of a turn's resolution (and of the
clock's pass and of an email), with task_acks_late on and off: once a worker runs
again, the turn is resolved exactly once and nothing is left half done.

The worker pauses at the step through games/faults.py (started with
HELIUM3_FAULT_PAUSE_AT=*, the test names the step), holding whatever transaction
and locks it holds there, and is killed:
- `process`: only the pool process running the task; the worker's main process
  starts a new one. With acks_late the message comes back at once
  (task_reject_on_worker_lost), so the task runs a second time.
- `worker`: the whole worker, main process and pool; a new worker takes over (one
  started beforehand, while the step ran, that took no task until then).
  An acknowledged message is gone; an unacknowledged one stays with the dead
  worker's connection until Redis' visibility timeout.
Whatever the broker does, celery beat's clock sweep (every half second here) queues
again what was accepted and not resolved, and emails still pending. Each step is
a new match; every match so far is reconciled after each step.
"""

from __future__ import annotations

import os
import signal
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from faults_reconcile import (
    legal_actions,
    make_player,
    match_against_a_bot,
    reconcile,
    wait_settled,
)
from faults_stack import Proc, Stack, wait_until

from games import services
from games.models import Match, Notification, Orders, Resolution, Turn

pytestmark = pytest.mark.faults

# Steps at which nothing is committed yet: the kill must leave no trace.
BEFORE_COMMIT = ("pass_locked", "resolve_locked", "resolve_claimed", "resolve_applied",
                 "resolve_next_turn")  # fmt: skip
AFTER_COMMIT = ("resolve_committed", "resolve_done")
EMAIL = ("email_claimed", "email_sent")
STEPS = BEFORE_COMMIT + AFTER_COMMIT + EMAIL

AT_ONCE = {"YOUR_TURN_EMAIL_AFTER_SECONDS": "0"}

KILLS = [("process", True), ("process", False), ("worker", True), ("worker", False)]


@pytest.mark.parametrize(
    ("kill", "acks_late"),
    KILLS,
    ids=["process-acks_late", "process-acks_early", "worker-acks_late", "worker-acks_early"],
)
def test_a_worker_killed_at_each_step_leaves_every_turn_resolved_exactly_once(
    stack: Stack, kill: str, acks_late: bool, settings: Any
) -> None:
    # "Your turn" at once, here and in the workers: the emails the email steps stop
    # at (the player's own click started the match, so it has no "Match started").
    settings.YOUR_TURN_EMAIL_AFTER_SECONDS = 0
    stack.beat(period=0.5, wait=False)
    worker = stack.worker("w0", acks_late=acks_late, pause_at="*", **AT_ONCE)

    def spare(name: str) -> Proc:
        """The worker that replaces the next one killed, booting meanwhile."""
        return stack.worker(
            name, acks_late=acks_late, pause_at="*", standby=True, wait=False, **AT_ONCE
        )

    next_worker = spare("w1") if kill == "worker" else None
    killed_emails = 0
    for number, step in enumerate(STEPS, start=1):
        stack.arm(step)
        player = make_player(f"p{number}")
        match = match_against_a_bot(player)
        if step == "pass_locked":
            # The player is away: the deadline is over and the sweeper passes the turn.
            Turn.objects.filter(match=match, number=0).update(
                deadline_at=timezone.now() - timedelta(seconds=1)
            )
        else:
            services.orders_submit(
                match_id=match.pk, user=player, turn=0, actions=legal_actions(match, 1)
            )

        paused_pid = stack.wait_paused(step)
        if kill == "process":
            assert paused_pid != worker.pid  # the pool process, not the main one
            os.kill(paused_pid, signal.SIGKILL)
        else:
            worker.kill()

        # What the kill left behind: nothing at all before the commit, all of it after.
        resolution = Resolution.objects.filter(match=match, turn_number=0)
        if step in BEFORE_COMMIT:
            assert not resolution.exists(), step
            assert Turn.objects.filter(match=match).count() == 1, step
            expected = Turn.Status.WAITING if step == "pass_locked" else Turn.Status.ACCEPTED
            assert Turn.objects.get(match=match, number=0).status == expected, step
        elif step in AFTER_COMMIT:
            assert resolution.count() == 1, step
        else:
            assert Notification.objects.filter(match=match, status="sending").count() == 1
            killed_emails += 1

        if kill == "worker":
            assert not worker.alive()
            assert next_worker is not None
            worker = stack.take_over(next_worker)
            if number < len(STEPS):
                next_worker = spare(f"w{number + 1}")
        else:
            assert worker.alive(), step  # the main process lives on, with a new pool process

        # The player's turn again: turn 0 (the player's orders or the clock's pass)
        # and turn 1 (the bot's) resolved, once each.
        at_turn_2 = Match.objects.filter(pk=match.pk, turn_number=2).exists
        wait_until(at_turn_2, 30, f"{step}: turn 2")
        wait_settled(timeout=30, sending_allowed=killed_emails)
        match.refresh_from_db()
        assert (match.status, match.to_move) == (Match.Status.RUNNING, 1), step
        source = Orders.objects.get(match=match, turn_number=0).source
        assert source == (Orders.Source.CLOCK if step == "pass_locked" else Orders.Source.PLAYER)
        result = reconcile(stack.mail_dir, sending_allowed=killed_emails)
        assert result.resolutions == 2 * number, step
