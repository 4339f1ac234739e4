"""Celery tasks: adapters that take ids, re-read the rows and call one service.

Every service claims its work with a conditional update, so a task delivered
twice (acks_late, a broker redelivery, the sweeper re-queueing) does nothing the
second time.
"""

from __future__ import annotations

from celery import shared_task

from games import services


@shared_task(name="games.tasks.turn_resolve_task")
def turn_resolve_task(match_id: int, number: int) -> bool:
    return services.turn_resolve(match_id=match_id, number=number) is not None


@shared_task(name="games.tasks.turn_deadline_task")
def turn_deadline_task(match_id: int, number: int) -> bool:
    # Queued with an ETA for a short turn's deadline (turns.deadline_task_wanted);
    # the sweep passes the turn if this task is lost or early.
    return services.turn_deadline_pass(match_id=match_id, number=number)


@shared_task(name="games.tasks.notification_send_task")
def notification_send_task(notification_id: int) -> bool:
    # On the email queue (settings.CELERY_TASK_ROUTES), so emails never delay a turn.
    # A failed send leaves the row pending, a killed one leaves it claimed; the
    # sweeper queues either again later.
    return services.notification_send(notification_id=notification_id)


@shared_task(name="games.tasks.clock_sweep_task")
def clock_sweep_task() -> dict[str, int]:
    report = services.clock_sweep()
    return {
        "passed": report.passed,
        "warned": report.warned,
        "requeued_turns": report.requeued_turns,
        "requeued_emails": report.requeued_emails,
        "stale_emails": report.stale_emails,
    }
