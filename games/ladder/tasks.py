"""The ladder's beat tasks: adapters that call its services. Each service claims its
work (a round of a game, a slot of a bot, an email), so a task run twice, or
by two beats at once, does nothing the second time."""

from __future__ import annotations

from celery import shared_task

from games.ladder import services


@shared_task(name="games.ladder.tasks.ladder_round_task")
def ladder_round_task() -> dict[str, int]:
    """Every LADDER_INTERVAL_SECONDS: free the slots of finished matches, apply the
    first-five rule, then one round of matchmaking per game with a bot on its ladder."""
    freed = services.slots_release()
    removed = services.ladder_first_matches()
    requeued = services.removals_requeue()
    made = sum(len(services.ladder_round(game=game)) for game in services.ladder_games())
    return {"freed": freed, "removed": len(removed), "requeued": requeued, "made": made}


@shared_task(name="games.ladder.tasks.ladder_removal_tell_task")
def ladder_removal_tell_task(entry_id: int) -> bool:
    return services.ladder_removal_tell(entry_id=entry_id)
