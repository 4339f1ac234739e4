"""No email is lost: a worker killed between claiming an email (the row is
`sending`) and sending it leaves the claim behind; once the claim is stale
(EMAIL_CLAIM_STALE_SECONDS, 3 s here) celery beat's clock sweep puts it back to
pending and queues it, and a worker sends it, exactly once.

Killed are the pool process running the send (the worker's main process starts a
new one; with acks_late the message comes back at once and finds the row claimed)
and the whole worker (its unacknowledged message stays with the dead connection
until Redis' visibility timeout, an hour). Either way only the sweep can help.
The worker consumes both queues, turns and emails, as every worker of the site.
"""

from __future__ import annotations

import os
import signal
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from faults_reconcile import make_player, match_against_a_bot, reconcile, sent_mail, wait_settled
from faults_stack import Stack, wait_until

from games.models import Notification

pytestmark = pytest.mark.faults

STALE_SECONDS = 3
# The worker runs the sweep: it reads these. A claim is stale after 3 s, and a send
# may take 1 s at most (the file backend takes no time at all).
FAST_STALE = {"EMAIL_CLAIM_STALE_SECONDS": str(STALE_SECONDS), "EMAIL_TIMEOUT": "1"}
# How the worker's log names a clock sweep it ran.
SWEEP_TASK = "games.tasks.clock_sweep_task["


@pytest.mark.parametrize("kill", ["process", "worker"])
def test_an_email_whose_worker_died_between_claim_and_send_is_sent_once_after_the_sweep(
    stack: Stack, kill: str, settings: Any
) -> None:
    settings.YOUR_TURN_EMAIL_AFTER_SECONDS = 0
    stack.beat(period=0.5, wait=False)
    worker = stack.worker("w0", acks_late=True, pause_at="email_claimed", **FAST_STALE)
    if kill == "worker":  # its successor boots meanwhile, taking no task until the kill
        spare = stack.worker(
            "w1", acks_late=True, pause_at="email_claimed", standby=True, wait=False, **FAST_STALE
        )
    player = make_player("mailed")
    # The match starts at once (against a bot): "Your turn" (at once here; the player
    # is away) is queued on commit, on the email queue. The player's own click started
    # the match, so there is no "Match started".
    match = match_against_a_bot(player)
    row = Notification.objects.get(match=match, user=player, kind="your_turn")

    paused_pid = stack.wait_paused("email_claimed")
    if kill == "process":
        assert paused_pid != worker.pid  # the pool process, not the main one
        os.kill(paused_pid, signal.SIGKILL)
    else:
        worker.kill()
        assert not worker.alive()
    row.refresh_from_db()
    assert row.status == Notification.Status.SENDING and row.claimed_at is not None
    claimed_at = row.claimed_at
    assert sent_mail(stack.mail_dir) == []

    if kill == "worker":
        worker = stack.take_over(spare)

    def sent() -> bool:
        row.refresh_from_db()
        return row.status == Notification.Status.SENT

    wait_until(sent, 30, "the stale claim to be sent")
    # Not before the claim was stale: a worker that is only slow keeps its claim.
    assert row.claimed_at is not None
    assert (row.claimed_at - claimed_at).total_seconds() >= STALE_SECONDS
    assert row.attempts == 2
    [email] = [m for m in sent_mail(stack.mail_dir) if "Your turn" in str(m["Subject"])]
    assert str(email["To"]) == player.email

    # More sweeps change nothing: two of them run once even the last claim is stale,
    # and still the email went once, and nothing is left claimed.
    def sweeps() -> int:
        lines = worker.output().splitlines()
        return sum(SWEEP_TASK in line and "succeeded in" in line for line in lines)

    stale_at = row.claimed_at + timedelta(seconds=STALE_SECONDS)
    wait_until(lambda: timezone.now() > stale_at, 30, "the last claim to be stale", step=0.1)
    swept = sweeps()
    wait_until(lambda: sweeps() >= swept + 2, 30, "two more clock sweeps")
    wait_settled(timeout=30)
    result = reconcile(stack.mail_dir, sending_allowed=0)
    assert result.sending == 0 and result.emails == 1
    assert worker.alive()
