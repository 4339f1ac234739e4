"""Queueing the worker's tasks, for the services.

The services queue tasks and the tasks (games/tasks.py) call the services: if the
services imported the tasks, each would import the other. They queue by the task's
name instead, through this module, which imports no service and no task; the
broker's routes (settings.CELERY_TASK_ROUTES) apply to a name as to a task.
"""

from __future__ import annotations

from datetime import datetime

from celery import current_app

TURN_RESOLVE = "games.tasks.turn_resolve_task"
NOTIFICATION_SEND = "games.tasks.notification_send_task"
TURN_DEADLINE = "games.tasks.turn_deadline_task"


def turn_resolve_queue(match_id: int, number: int) -> None:
    """Queue the resolution of turn `number` of match `match_id` (now: the caller
    defers it to the commit)."""
    current_app.send_task(TURN_RESOLVE, args=(match_id, number))


def notification_send_queue(notification_id: int) -> None:
    """Queue the sending of one notification (on the email queue, by its route)."""
    current_app.send_task(NOTIFICATION_SEND, args=(notification_id,))


def turn_deadline_queue(match_id: int, number: int, deadline: datetime) -> None:
    """Queue the pass of turn `number` of match `match_id` for its deadline (a task
    with an ETA: the worker holds it until then)."""
    current_app.send_task(TURN_DEADLINE, args=(match_id, number), eta=deadline)
