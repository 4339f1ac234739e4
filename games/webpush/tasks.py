"""Celery tasks of Web Push: adapters that call one service. Sends are routed to the
email queue (settings.CELERY_TASK_ROUTES): a slow push service never delays a turn."""

from __future__ import annotations

from celery import shared_task

from games.webpush.services import webpush_send, webpush_sweep


@shared_task(name="games.webpush.tasks.webpush_send_task")
def webpush_send_task(notice_id: int) -> bool:
    return webpush_send(notice_id=notice_id)


@shared_task(name="games.webpush.tasks.webpush_sweep_task")
def webpush_sweep_task() -> dict[str, int]:
    # Run by celery beat: queues the notices that came due, and sends again those
    # whose worker died; the send's claim makes a repeated run harmless.
    return webpush_sweep()
