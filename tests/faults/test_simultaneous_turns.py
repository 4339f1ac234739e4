"""The fault guarantees for turns where every seat gives orders at once, with the
test ruleset rps (tests/engine/rps_ruleset.py) registered in this process and in
the worker and web processes (faults_celery.py):

- a worker killed (SIGKILL) at every step of a simultaneous turn's resolution, and
  of the clock's pass at its deadline, with task_acks_late on and off: once a
  worker runs again, the turn is resolved exactly once, with every seat's orders;
- two seats posting at once, fifty times each, through the real web server: one
  orders row per seat and turn, the turn resolved once.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone
from faults_reconcile import make_player, reconcile, wait_settled
from faults_stack import Proc, Stack, wait_until
from test_concurrent_submissions import at_once

from games import services
from games.models import AT_ONCE, Match, Orders, Resolution, Turn
from games.services.tokens import token_create

pytestmark = pytest.mark.faults

BEFORE_COMMIT = ("pass_locked", "resolve_locked", "resolve_claimed", "resolve_applied",
                 "resolve_next_turn")  # fmt: skip
AFTER_COMMIT = ("resolve_committed", "resolve_done")
KILLS = [("process", True), ("process", False), ("worker", True), ("worker", False)]


@pytest.fixture(autouse=True)
def test_rulesets() -> None:
    # Registered for the rest of the session, as tests/games/conftest.py does: other
    # suites in the same process may play these rulesets too.
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "engine"))
    import platform_rulesets

    platform_rulesets.register()


def rps_against_a_bot(player: Any) -> Match:
    """rps, the player (seat 1) against the bot that always throws rock (seat 2),
    whose orders are stored as each turn begins: the player's complete a turn."""
    match = services.match_create(
        creator=player, seat_count=2, ruleset="rps", options={"rounds": 50}, bots=["rock"],
        turn_seconds=3600,
    )  # fmt: skip
    match.refresh_from_db()
    assert match.status == Match.Status.RUNNING
    assert Turn.objects.get(match=match, number=0).seat == AT_ONCE
    return match


@pytest.mark.parametrize(
    ("kill", "acks_late"),
    KILLS,
    ids=["process-acks_late", "process-acks_early", "worker-acks_late", "worker-acks_early"],
)
def test_a_worker_killed_at_each_step_resolves_a_simultaneous_turn_exactly_once(
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
        match = rps_against_a_bot(player)
        if step == "pass_locked":
            # The player is away: the sweeper passes the turn with the default orders.
            Turn.objects.filter(match=match, number=0).update(
                deadline_at=timezone.now() - timedelta(seconds=1)
            )
        else:
            services.orders_submit(
                match_id=match.pk, user=player, turn=0, orders={"throw": "paper"}
            )

        paused_pid = stack.wait_paused(step)
        if kill == "process":
            assert paused_pid != worker.pid
            os.kill(paused_pid, signal.SIGKILL)
        else:
            worker.kill()

        resolution = Resolution.objects.filter(match=match, turn_number=0)
        if step in BEFORE_COMMIT:
            assert not resolution.exists(), step
            expected = Turn.Status.WAITING if step == "pass_locked" else Turn.Status.ACCEPTED
            assert Turn.objects.get(match=match, number=0).status == expected, step
            stored = Orders.objects.filter(match=match, turn_number=0)
            # The clock's default orders for the missing seat were not committed.
            assert stored.count() == (1 if step == "pass_locked" else 2), step
        else:
            assert resolution.count() == 1, step

        if kill == "worker":
            assert not worker.alive() and next_worker is not None
            worker = stack.take_over(next_worker)
            if number < len(BEFORE_COMMIT + AFTER_COMMIT):
                next_worker = spare(f"w{number + 1}")
        else:
            assert worker.alive(), step

        at_turn_1 = Match.objects.filter(pk=match.pk, turn_number=1).exists
        wait_until(at_turn_1, 30, f"{step}: turn 1")
        wait_settled(timeout=30)
        done = Resolution.objects.get(match=match, turn_number=0)
        throw = None if step == "pass_locked" else "paper"
        assert [o["throw"] for o in done.orders] == [throw, "rock"], step
        player_row = Orders.objects.get(match=match, turn_number=0, seat=1)
        source = Orders.Source.CLOCK if step == "pass_locked" else Orders.Source.PLAYER
        assert player_row.source == source, step
        # Turn 1 waits for the player, with the bot's orders in.
        assert Turn.objects.get(match=match, number=1).status == Turn.Status.WAITING
        assert list(
            Orders.objects.filter(match=match, turn_number=1).values_list("seat", flat=True)
        ) == [2]
        result = reconcile(stack.mail_dir)
        assert result.resolutions == number, step


def test_two_seats_posting_at_once_store_one_row_each_and_the_turn_resolves_once(
    stack: Stack,
) -> None:
    stack.web(wait=False, workers=3, threads=10, test_rulesets=True)
    stack.worker("w1", concurrency=2, test_rulesets=True)
    alice, bob = make_player("alice"), make_player("bob")
    match = services.match_create(
        creator=alice, seat_count=2, ruleset="rps", options={"rounds": 5}, turn_seconds=3600
    )
    services.seat_join(match_id=match.pk, user=bob)
    browser = stack.browser("")
    posts = []
    for user, throw in ((alice, "rock"), (bob, "scissors")):
        token = token_create(user=user, name="bot")[1]
        body = json.dumps({"turn": 0, "throw": throw}).encode()
        headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        posts.append((body, headers))
    path = f"/api/v1/matches/{match.pk}/orders/"

    # Fifty threads released together, every other one posting for the other seat.
    turns = iter(range(50))
    answers = at_once(50, lambda: browser.request("POST", path, *posts[next(turns) % 2]))

    # Each seat's first post stores its orders; its repeats answer as it did.
    assert [a.status for a in answers] == [202] * 50, [a.body[:200] for a in answers]
    stored = Orders.objects.filter(match=match, turn_number=0)
    assert sorted(stored.values_list("seat", flat=True)) == [1, 2]
    wait_settled()
    assert Resolution.objects.filter(match=match, turn_number=0).count() == 1
    match.refresh_from_db()
    assert match.state is not None and match.state["scores"] == {"1": 1, "2": 0}
    assert reconcile(stack.mail_dir).resolutions == 1
