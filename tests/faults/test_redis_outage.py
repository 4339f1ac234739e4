"""Redis dies with turns pending and comes back empty: the queue, the unacknowledged
messages, everything in it is gone. The database is the source of truth, so celery
beat's clock sweep queues every accepted turn again, and all of them are resolved
within two sweep periods of Redis' return, none twice. Orders sent while Redis is
down are accepted (stored) all the same: the web answers 302, not 500."""

from __future__ import annotations

import json
import signal
import time

import pytest
from faults_reconcile import (
    legal_actions,
    make_player,
    match_against_a_bot,
    reconcile,
    session_for,
    wait_settled,
)
from faults_stack import Stack, wait_until

from games.models import Match, Orders, Turn

pytestmark = pytest.mark.faults

SWEEP_SECONDS = 3.0
OUTAGE_SECONDS = 14.0
MATCHES = 6


def test_turns_pending_when_redis_dies_are_resolved_within_two_sweeps_of_its_return(
    stack: Stack,
) -> None:
    stack.web(wait=False, workers=2, threads=4)
    stack.beat(period=SWEEP_SECONDS, wait=False)
    workers = [stack.worker(f"w{i}", concurrency=2, wait=False) for i in range(2)]
    stack.wait_ready()
    players = [make_player(f"p{i}") for i in range(MATCHES)]
    matches = [match_against_a_bot(player) for player in players]
    browsers = [stack.browser(session_for(player)) for player in players]
    wait_settled()  # the start emails are out

    def submit(i: int) -> None:
        form = {"turn": 0, "actions_json": json.dumps(legal_actions(matches[i], 1))}
        answer = browsers[i].post(f"/matches/{matches[i].pk}/orders/", form)
        assert answer.status == 302, (answer.status, answer.body[-2000:])

    # The workers stop taking messages: the first half's tasks wait in Redis' queue.
    for worker in workers:
        worker.signal_group(signal.SIGSTOP)
    for i in range(MATCHES // 2):
        submit(i)
    # Pending: accepted, their tasks in Redis (queued, or popped by a frozen worker).
    assert Turn.objects.filter(number=0, status="accepted").count() == MATCHES // 2

    stack.redis.kill()
    # The second half is sent while Redis is down: accepted all the same.
    for i in range(MATCHES // 2, MATCHES):
        submit(i)
    assert Orders.objects.filter(turn_number=0, source="player").count() == MATCHES

    for worker in workers:
        worker.signal_group(signal.SIGCONT)  # they find the broker gone and retry
    # Long enough for several reconnection attempts: a worker must not be waiting
    # out a long back-off when Redis comes back.
    time.sleep(OUTAGE_SECONDS)
    stack.redis.start()  # empty: no queue, no unacknowledged messages
    back = time.monotonic()

    def all_resolved() -> bool:
        return not Turn.objects.filter(number=0, status__in=["waiting", "accepted"]).exists()

    wait_until(all_resolved, 30, "every pending turn to be resolved")
    took = time.monotonic() - back
    print(f"all {MATCHES} pending turns resolved {took:.1f}s after Redis came back")
    assert took <= 2 * SWEEP_SECONDS

    wait_until(lambda: all(m.turn_number == 2 for m in Match.objects.all()), 30, "turn 2")
    wait_settled()
    assert all(worker.alive() for worker in workers)
    assert reconcile(stack.mail_dir).resolutions == 2 * MATCHES
