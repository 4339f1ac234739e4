"""The clock. Deadlines are rows; celery beat runs clock_sweep on a static schedule.

A sweep passes every waiting turn whose deadline is over (each exactly once: the
pass claims the turn with a conditional update), sends the quarter-left warnings,
hands a seat to a built-in bot after too many misses in a row, and queues again
any accepted turn or email the worker has not handled within a grace period. It
also queues each email whose time has come ("Your turn" waits a while) and puts
back an email whose worker died between claiming it and sending it.

A turn too short for the sweep's period (turns.deadline_task_wanted: the ladder's
ten seconds) also gets a task queued for its deadline (turn_deadline_pass), so it
is passed on time; the sweep stays what passes it if that task is lost.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

import engine
from games.faults import fault_point
from games.models import AT_ONCE, Match, NotificationKind, Orders, Seat, Turn
from games.services.notifications import (
    notifications_queue_due,
    notifications_requeue_stale,
    notify,
)
from games.services.turns import queue_resolution, standin_bot, turn_pass

SWEEP_BATCH = 500


@dataclass(frozen=True)
class SweepReport:
    passed: int = 0
    warned: int = 0
    requeued_turns: int = 0
    requeued_emails: int = 0  # emails queued: due ones and lost ones
    stale_emails: int = 0  # claims whose worker died, put back to pending


def clock_sweep(*, now: datetime | None = None) -> SweepReport:
    now = now or timezone.now()
    running = Match.Status.RUNNING
    expired = list(
        Turn.objects.filter(
            status=Turn.Status.WAITING, deadline_at__lte=now, match__status=running
        ).values_list("match_id", "number")[:SWEEP_BATCH]
    )
    passed = sum(
        1
        for match_id, number in expired
        if turn_pass_on_deadline(match_id=match_id, number=number, now=now)
    )
    due = list(
        Turn.objects.filter(
            status=Turn.Status.WAITING,
            warned_at__isnull=True,
            warn_at__lte=now,
            deadline_at__gt=now,
            match__status=running,
        ).values_list("pk", flat=True)[:SWEEP_BATCH]
    )
    warned = sum(1 for pk in due if deadline_warn(turn_id=pk, now=now))

    grace = now - timedelta(seconds=settings.RESOLVE_GRACE_SECONDS)
    stuck = list(
        Turn.objects.filter(
            status=Turn.Status.ACCEPTED, accepted_at__lte=grace, match__status=running
        ).values_list("match_id", "number")[:SWEEP_BATCH]
    )
    for match_id, number in stuck:
        queue_resolution(match_id, number)
    # Emails: claims whose worker died go back to pending; then every pending email
    # that is due ("Your turn" a while after its turn began) and not queued within
    # the grace period is queued.
    stale = notifications_requeue_stale(now=now, limit=SWEEP_BATCH)
    queued = notifications_queue_due(
        now=now, grace=timedelta(seconds=settings.RESOLVE_GRACE_SECONDS), limit=SWEEP_BATCH
    )
    return SweepReport(
        passed=passed,
        warned=warned,
        requeued_turns=len(stuck),
        requeued_emails=queued,
        stale_emails=stale,
    )


def turn_pass_on_deadline(*, match_id: int, number: int, now: datetime) -> bool:
    """Pass a turn whose deadline is over. True if this call passed it.

    In a turn at once every awaited seat without orders gets the default orders
    (each a missed turn) and the turn is accepted; in a turn made of steps the
    worker plays the seat's default orders until the turn ends.
    """
    with transaction.atomic():
        # A match deleted since its deadline task was queued (by an admin, or a test
        # database emptied) is nothing to pass: no error from a task that came late.
        match = Match.objects.select_for_update().filter(pk=match_id).first()
        if match is None or match.status != Match.Status.RUNNING:
            return False
        turn = Turn.objects.filter(
            match=match, number=number, status=Turn.Status.WAITING, deadline_at__lte=now
        ).first()
        if turn is None:
            return False
        fault_point("pass_locked")
        passed = turn_pass(match=match, turn=turn, source=Orders.Source.CLOCK, user=None, now=now)
        for seat in passed:
            _count_miss(match=match, number=number, seat_number=seat)
        return bool(passed)


def turn_deadline_pass(*, match_id: int, number: int, now: datetime | None = None) -> bool:
    """The deadline task of a short turn: pass the turn if its deadline is over. A
    turn already played, passed or given more time is left alone (the sweep passes
    it when its time comes). True if this call passed it."""
    return turn_pass_on_deadline(match_id=match_id, number=number, now=now or timezone.now())


def _count_miss(*, match: Match, number: int, seat_number: int) -> None:
    """One more missed turn in a row; after too many a stand-in bot takes the seat."""
    seat = Seat.objects.select_related("user").get(match=match, number=seat_number)
    seat.missed_in_row += 1
    if (
        seat.user is not None
        and not seat.driver_bot
        and seat.missed_in_row >= settings.MISSED_TURNS_BEFORE_BOT
    ):
        seat.standin_bot = standin_bot(match.ruleset)
        notify(
            user=seat.user,
            match=match,
            kind=NotificationKind.SEAT_TO_BOT,
            turn_number=number,
            context={"missed": seat.missed_in_row, "bot": seat.standin_bot},
        )
    seat.save(update_fields=["missed_in_row", "standin_bot"])


def deadline_warn(*, turn_id: int, now: datetime) -> bool:
    """Warn the player to move when a quarter of the turn's time is left. Once.

    In a turn at once, each awaited player whose orders are not in yet."""
    with transaction.atomic():
        claimed = Turn.objects.filter(
            pk=turn_id, status=Turn.Status.WAITING, warned_at__isnull=True
        ).update(warned_at=now)
        if claimed != 1:
            return False
        turn = Turn.objects.select_related("match").get(pk=turn_id)
        if turn.seat == AT_ONCE:
            state = turn.match.state
            done = Orders.objects.filter(match=turn.match, turn_number=turn.number, step=0)
            numbers = set(engine.awaiting(state) if state else []) - set(
                done.values_list("seat", flat=True)
            )
        else:
            numbers = {turn.seat}
        warned = False
        for seat in Seat.objects.select_related("user").filter(
            match=turn.match, number__in=numbers
        ):
            if seat.driver_bot or seat.user is None:
                continue
            notify(
                user=seat.user,
                match=turn.match,
                kind=NotificationKind.DEADLINE_WARNING,
                turn_number=turn.number,
                context={"deadline": turn.deadline_at.isoformat() if turn.deadline_at else None},
            )
            warned = True
        return warned
