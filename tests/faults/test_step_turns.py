"""The fault guarantees for turns made of steps, with the test ruleset dig
(tests/engine/dig_ruleset.py) registered in this process and in the worker
(faults_celery.py): a worker killed (SIGKILL) at every fault point of

- the clock's pass of a person's turn at its deadline, after the person played a
  step: the worker plays the seat's default orders until the turn moves on;
- a bot's turn, whose steps the worker plays one after another;

resolves the turn exactly once once a worker runs again: one orders row and one
resolution per step, the state advanced once (faults_reconcile replays every
stored step from the initial state and finds the match's state).
"""

from __future__ import annotations

import os
import signal
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone
from faults_reconcile import make_player, reconcile, wait_settled
from faults_stack import Stack, wait_until

from games import services
from games.models import Match, Orders, Resolution, Seat, Turn

pytestmark = pytest.mark.faults

BEFORE_COMMIT = ("resolve_locked", "resolve_claimed", "resolve_applied", "resolve_next_turn")
AFTER_COMMIT = ("resolve_committed", "resolve_done")
# Two kill modes keep the run short: the pool process alone (tasks acked late), and
# the whole worker (acked early, so the broker forgets the task and the sweep's
# requeue of stuck turns must find it).
KILLS = [("process", True), ("worker", False)]


@pytest.fixture(autouse=True)
def test_rulesets() -> None:
    # Registered for the rest of the session, as tests/games/conftest.py does: other
    # suites in the same process may play these rulesets too.
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "engine"))
    import platform_rulesets

    platform_rulesets.register()


def dig_against_a_bot(player: Any) -> Match:
    """dig, the player (seat 1) against the walker bot (seat 2), three steps a turn,
    two rounds; the player's first step (a scan) is played, so turn 0 waits for its
    second step."""
    match = services.match_create(
        creator=player, seat_count=2, ruleset="dig", options={"steps": 3, "rounds": 2},
        bots=["walker"], turn_seconds=3600,
    )  # fmt: skip
    match.refresh_from_db()
    assert match.status == Match.Status.RUNNING and match.to_move == 1
    services.orders_submit(
        match_id=match.pk, user=player, turn=0, orders={"action": "scan", "step_no": 0}
    )
    # A person's step is resolved in the request; the turn goes on.
    assert steps_resolved(match, 0) == [0]
    assert Turn.objects.get(match=match, number=0).status == Turn.Status.WAITING
    return match


def steps_resolved(match: Match, number: int) -> list[int]:
    return list(
        Resolution.objects.filter(match=match, turn_number=number)
        .order_by("step")
        .values_list("step", flat=True)
    )


def kill_at(stack: Stack, worker: Any, step: str, kill: str) -> None:
    paused_pid = stack.wait_paused(step)
    if kill == "process":
        assert paused_pid != worker.pid
        os.kill(paused_pid, signal.SIGKILL)
    else:
        worker.kill()


def restart_if_killed(stack: Stack, worker: Any, kill: str, acks_late: bool, name: str) -> Any:
    if kill == "worker":
        assert not worker.alive()
        return stack.worker(name, acks_late=acks_late, pause_at="*", test_rulesets=True)
    assert worker.alive(), name
    return worker


def assert_turn_2_waits_for_the_player(match: Match, step: str) -> None:
    wait_until(Match.objects.filter(pk=match.pk, turn_number=2).exists, 30, f"{step}: turn 2")
    wait_settled(timeout=30)
    match.refresh_from_db()
    assert match.to_move == 1, step
    assert Turn.objects.get(match=match, number=2).status == Turn.Status.WAITING, step
    # The bot's turn: one resolution per step, in order, the last one moving on.
    bot_steps = steps_resolved(match, 1)
    assert bot_steps == list(range(len(bot_steps))) and bot_steps, step
    assert {r.seat for r in Resolution.objects.filter(match=match, turn_number=1)} == {2}
    last = Resolution.objects.get(match=match, turn_number=1, step=bot_steps[-1])
    assert (last.state["turn"], last.state["step"]) == (2, 0), step
    rows = Orders.objects.filter(match=match, turn_number=1)
    assert sorted(rows.values_list("step", flat=True)) == bot_steps, step
    assert match.state is not None and match.state["turn"] == 2


@pytest.mark.parametrize(
    ("kill", "acks_late"), KILLS, ids=["process-acks_late", "worker-acks_early"]
)
def test_a_worker_killed_at_each_point_of_a_passed_turn_of_steps_resolves_it_once(
    stack: Stack, kill: str, acks_late: bool
) -> None:
    stack.beat(period=0.5, wait=False)
    worker = stack.worker("w0", acks_late=acks_late, pause_at="*", test_rulesets=True)
    points = ("pass_locked", *BEFORE_COMMIT, *AFTER_COMMIT)
    for number, step in enumerate(points, start=1):
        stack.arm(step)
        player = make_player(f"p{number}")
        match = dig_against_a_bot(player)
        # The player is away: the sweeper passes the rest of the turn.
        Turn.objects.filter(match=match, number=0).update(
            deadline_at=timezone.now() - timedelta(seconds=1)
        )
        kill_at(stack, worker, step, kill)

        stored = Orders.objects.filter(match=match, turn_number=0)
        if step == "pass_locked":
            assert Turn.objects.get(match=match, number=0).status == Turn.Status.WAITING
            assert stored.count() == 1, step
            assert steps_resolved(match, 0) == [0], step
        elif step in BEFORE_COMMIT:
            assert Turn.objects.get(match=match, number=0).status == Turn.Status.ACCEPTED
            assert sorted(stored.values_list("step", flat=True)) == [0, 1], step
            assert steps_resolved(match, 0) == [0], step
        else:
            assert steps_resolved(match, 0) == [0, 1], step

        worker = restart_if_killed(stack, worker, kill, acks_late, f"w{number}")
        assert_turn_2_waits_for_the_player(match, step)
        # The clock played the default orders (end) once, as the turn's second step.
        assert steps_resolved(match, 0) == [0, 1], step
        passed = Orders.objects.get(match=match, turn_number=0, step=1)
        assert passed.source == Orders.Source.CLOCK, step
        assert passed.orders["action"] == "end", step
        ended = Resolution.objects.get(match=match, turn_number=0, step=1)
        assert (ended.state["turn"], ended.state["to_move"]) == (1, 2), step
        assert Seat.objects.get(match=match, number=1).missed_in_row == 1, step
        assert reconcile(stack.mail_dir).matches == number, step


@pytest.mark.parametrize(
    ("kill", "acks_late"), KILLS, ids=["process-acks_late", "worker-acks_early"]
)
def test_a_worker_killed_at_each_point_of_a_bots_turn_of_steps_resolves_it_once(
    stack: Stack, kill: str, acks_late: bool
) -> None:
    stack.beat(period=0.5, wait=False)
    worker = stack.worker("w0", acks_late=acks_late, pause_at="*", test_rulesets=True)
    for number, step in enumerate(BEFORE_COMMIT + AFTER_COMMIT, start=1):
        stack.arm(step)
        player = make_player(f"p{number}")
        match = dig_against_a_bot(player)
        # The player ends the turn (in the request); the bot's turn goes to the worker.
        services.orders_submit(
            match_id=match.pk, user=player, turn=0, orders={"action": "end", "step_no": 1}
        )
        assert steps_resolved(match, 0) == [0, 1]
        kill_at(stack, worker, step, kill)

        if step in BEFORE_COMMIT:
            assert Turn.objects.get(match=match, number=1).status == Turn.Status.ACCEPTED
            # Only the bot's first step is stored; none is resolved.
            assert list(
                Orders.objects.filter(match=match, turn_number=1).values_list("step", flat=True)
            ) == [0], step
            assert steps_resolved(match, 1) == [], step
        else:
            assert steps_resolved(match, 1), step

        worker = restart_if_killed(stack, worker, kill, acks_late, f"w{number}")
        assert_turn_2_waits_for_the_player(match, step)
        assert Seat.objects.get(match=match, number=1).missed_in_row == 0, step
        assert reconcile(stack.mail_dir).matches == number, step
