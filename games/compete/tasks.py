"""Celery tasks of the compete app: adapters that call one service."""

from __future__ import annotations

from celery import shared_task

from games.compete.challenges import challenges_sweep


@shared_task(name="games.compete.tasks.challenges_sweep_task")
def challenges_sweep_task() -> dict[str, int]:
    # Run by celery beat; the sweep claims every row it changes, so a repeated or
    # concurrent run does nothing twice.
    report = challenges_sweep()
    return {"expired": report.expired, "emailed": report.emailed, "skipped": report.skipped}
