"""The fault guarantees for turns made of steps, with the test ruleset dig
(tests/engine/dig_ruleset.py) registered in this process and in the worker
(faults_celery.py): a worker killed (SIGKILL) at every fault point of

- the clock's pass of a person's turn at its deadline, after the person played a
  step: the worker plays the seat's default orders until the turn moves on;
- a bot's turn, whose steps the worker plays one after another;

resolves the turn exactly once once a worker runs again: one orders row and one
resolution per step, the state advanced once (faults_reconcile replays every
stored step from the initial state and finds the match's state). And the same
seat posting its steps from many connections at once through the real web server
(the same step, two different orders for one step, a stale step_no, a repeat of
a step taken earlier) stores one row per step and applies each step once.
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
from faults_stack import Answer, Proc, Stack, wait_until
from test_concurrent_submissions import at_once

from games import services
from games.models import Match, Orders, Resolution, Seat, Turn
from games.services.tokens import token_create

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


class Workers:
    """The worker a test kills at each point and, when whole workers are killed, the
    one that replaces it, booting meanwhile (standby: it takes no task until then)."""

    def __init__(self, stack: Stack, kill: str, acks_late: bool, points: int) -> None:
        self.stack, self.kill, self.acks_late, self.points = stack, kill, acks_late, points
        self.current = self._start("w0")
        self.spare = self._start("w1", standby=True) if kill == "worker" else None

    def _start(self, name: str, *, standby: bool = False) -> Proc:
        return self.stack.worker(
            name, acks_late=self.acks_late, pause_at="*", test_rulesets=True,
            standby=standby, wait=not standby,
        )  # fmt: skip

    def restart_if_killed(self, number: int) -> None:
        """After the kill at the `number`th point: a worker runs again."""
        if self.kill == "worker":
            assert not self.current.alive() and self.spare is not None
            self.current = self.stack.take_over(self.spare)
            more = number < self.points
            self.spare = self._start(f"w{number + 1}", standby=True) if more else None
        else:
            assert self.current.alive(), number


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
    points = ("pass_locked", *BEFORE_COMMIT, *AFTER_COMMIT)
    workers = Workers(stack, kill, acks_late, len(points))
    for number, step in enumerate(points, start=1):
        stack.arm(step)
        player = make_player(f"p{number}")
        match = dig_against_a_bot(player)
        # The player is away: the sweeper passes the rest of the turn.
        Turn.objects.filter(match=match, number=0).update(
            deadline_at=timezone.now() - timedelta(seconds=1)
        )
        kill_at(stack, workers.current, step, kill)

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

        workers.restart_if_killed(number)
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
    workers = Workers(stack, kill, acks_late, len(BEFORE_COMMIT + AFTER_COMMIT))
    for number, step in enumerate(BEFORE_COMMIT + AFTER_COMMIT, start=1):
        stack.arm(step)
        player = make_player(f"p{number}")
        match = dig_against_a_bot(player)
        # The player ends the turn (in the request); the bot's turn goes to the worker.
        services.orders_submit(
            match_id=match.pk, user=player, turn=0, orders={"action": "end", "step_no": 1}
        )
        assert steps_resolved(match, 0) == [0, 1]
        kill_at(stack, workers.current, step, kill)

        if step in BEFORE_COMMIT:
            assert Turn.objects.get(match=match, number=1).status == Turn.Status.ACCEPTED
            # Only the bot's first step is stored; none is resolved.
            assert list(
                Orders.objects.filter(match=match, turn_number=1).values_list("step", flat=True)
            ) == [0], step
            assert steps_resolved(match, 1) == [], step
        else:
            assert steps_resolved(match, 1), step

        workers.restart_if_killed(number)
        assert_turn_2_waits_for_the_player(match, step)
        assert Seat.objects.get(match=match, number=1).missed_in_row == 0, step
        assert reconcile(stack.mail_dir).matches == number, step


def test_one_seat_posting_its_steps_from_many_connections_at_once_applies_each_once(
    stack: Stack,
) -> None:
    stack.web(wait=False, workers=3, threads=10, test_rulesets=True)
    stack.worker("w1", concurrency=2, test_rulesets=True)
    player = make_player("alice")
    match = services.match_create(
        creator=player, seat_count=2, ruleset="dig", options={"steps": 3, "rounds": 2},
        bots=["walker"], turn_seconds=3600,
    )  # fmt: skip
    token = token_create(user=player, name="bot")[1]
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    browser = stack.browser("")

    def post(step_no: int, action: str) -> Answer:
        body = json.dumps({"turn": 0, "step_no": step_no, "action": action}).encode()
        return browser.request("POST", f"/api/v1/matches/{match.pk}/orders/", body, headers)

    def state() -> dict[str, Any]:
        match.refresh_from_db()
        assert match.state is not None
        return match.state

    # Step 0, the same scan from thirty connections: one row, one scan, the same answer.
    answers = at_once(30, lambda: post(0, "scan"))
    assert [a.status for a in answers] == [202] * 30, [a.body[:200] for a in answers]
    scanned, *repeats = [json.loads(a.body) for a in answers]
    assert all(repeat == scanned for repeat in repeats) and scanned["step"] == 0
    assert steps_resolved(match, 0) == [0]
    assert (state()["step"], len(state()["scans"]["1"])) == (1, 1)

    # Step 1 from forty connections, ten each: two different orders for it ("right"
    # and "dig": the first to take the match's lock is the step, the other is then
    # stale), orders for step 0 the seat never sent (stale), and the step 0 scan
    # again (a repeat: answered as the first time, not applied).
    sends = [lambda: post(1, "right"), lambda: post(1, "dig")]
    sends += [lambda: post(0, "left"), lambda: post(0, "scan")]
    turns = iter(range(40))
    answers = at_once(40, lambda: sends[next(turns) % 4]())

    assert {a.status for a in answers} == {202, 409}, [a.body[:200] for a in answers]
    taken = Orders.objects.get(match=match, turn_number=0, step=1).orders["action"]
    accepted = [json.loads(a.body) for a in answers if a.status == 202]
    took = [body for body in accepted if body["step"] == 1]
    assert len(took) == 10 and all(body == took[0] for body in took), accepted
    assert took[0]["orders"]["action"] == taken
    assert [body for body in accepted if body["step"] == 0] == [scanned] * 10
    refused = [json.loads(a.body)["error"]["code"] for a in answers if a.status == 409]
    assert refused == ["stale_turn"] * 20
    assert steps_resolved(match, 0) == [0, 1]
    # Step 1 applied once, the scan not again.
    assert (state()["step"], len(state()["scans"]["1"])) == (2, 1)
    assert state()["positions"]["1"] == (1 if taken == "right" else 0)

    # The last step, which ends the turn, from twenty connections: it ends once.
    answers = at_once(20, lambda: post(2, "end"))
    assert [a.status for a in answers] == [202] * 20, [a.body[:200] for a in answers]
    ended = json.loads(answers[0].body)
    assert all(json.loads(a.body) == ended for a in answers) and ended["step"] == 2
    assert steps_resolved(match, 0) == [0, 1, 2]
    stored = Orders.objects.filter(match=match, turn_number=0)
    assert sorted(stored.values_list("step", flat=True)) == [0, 1, 2]
    assert Turn.objects.get(match=match, number=0).status == Turn.Status.RESOLVED
    # The bot's turn is the worker's; then the player's second turn waits.
    assert_turn_2_waits_for_the_player(match, "concurrent steps")
    assert reconcile(stack.mail_dir).matches == 1
