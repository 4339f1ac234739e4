"""Celery tasks (adapters): the guest cleanup and the showcase's bots."""

from __future__ import annotations

from celery import shared_task

from games.guests import services, showcase


@shared_task(name="games.guests.tasks.guests_cleanup_task")
def guests_cleanup_task() -> dict[str, int]:
    report = services.guests_cleanup()
    return {"guests": report.guests, "matches": report.matches, "showcases": report.showcases}


@shared_task(name="games.guests.tasks.showcase_step_task")
def showcase_step_task() -> bool:
    return showcase.showcase_step()
