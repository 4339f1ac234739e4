"""Turns of every shape through the real broker, the real Celery worker (a thread of
this process, with the test rulesets registered: conftest.test_rulesets) and the
clock sweep. These tests commit (transaction=True) so that the worker sees the rows.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from site_support import wait_for

from games import services
from games.models import AT_ONCE, Match, Orders, Resolution, Turn

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def _duel(player: Any, opponent: Any, ruleset: str, **options: Any) -> Match:
    match = services.match_create(
        creator=player, seat_count=2, ruleset=ruleset, options=options, turn_seconds=3600
    )
    services.seat_join(match_id=match.pk, user=opponent)
    match.refresh_from_db()
    return match


def _at_turn(match: Match, number: int) -> bool:
    return Match.objects.filter(pk=match.pk, turn_number=number).exists()


def test_the_worker_resolves_a_simultaneous_turn_on_the_last_submission(
    celery_worker, player, opponent
):
    match = _duel(player, opponent, "rps", rounds=2)
    services.orders_submit(match_id=match.pk, user=player, turn=0, orders={"throw": "paper"})
    services.orders_submit(match_id=match.pk, user=opponent, turn=0, orders={"throw": "rock"})
    wait_for(lambda: _at_turn(match, 1), what="the worker to resolve turn 0")
    resolution = Resolution.objects.get(match=match, turn_number=0)
    assert resolution.seat == AT_ONCE and [o["throw"] for o in resolution.orders] == [
        "paper",
        "rock",
    ]
    match.refresh_from_db()
    assert match.state is not None and match.state["scores"] == {"1": 1, "2": 0}


def test_the_clock_sweep_resolves_a_simultaneous_turn_at_the_deadline(
    celery_worker, player, opponent
):
    match = _duel(player, opponent, "rps", rounds=2)
    services.orders_submit(match_id=match.pk, user=opponent, turn=0, orders={"throw": "rock"})
    Turn.objects.filter(match=match, number=0).update(
        deadline_at=timezone.now() - timedelta(seconds=1)
    )
    assert services.clock_sweep().passed == 1
    wait_for(lambda: _at_turn(match, 1), what="the worker to resolve the passed turn")
    orders = Resolution.objects.get(match=match, turn_number=0).orders
    assert orders == [
        {"seat": 1, "turn": 0, "throw": None},
        {"throw": "rock", "seat": 2, "turn": 0},
    ]
    assert Orders.objects.get(match=match, turn_number=0, seat=1).source == Orders.Source.CLOCK


def test_a_setup_phase_then_the_bots_turns_are_played_by_the_worker(celery_worker, player):
    match = services.match_create(
        creator=player, seat_count=2, ruleset="race", options={"target": 5}, bots=["greedy"]
    )
    # The bot's setup orders are stored as the match starts; the player's complete the phase.
    assert Orders.objects.filter(match=match, turn_number=0, seat=2).exists()
    services.orders_submit(match_id=match.pk, user=player, turn=0, orders={"head_start": 0})
    wait_for(lambda: _at_turn(match, 1), what="the setup to resolve")
    services.orders_submit(match_id=match.pk, user=player, turn=1, orders={"add": 1})
    # The bot's race turn (turn 2) is the worker's: 3 + 3 reaches the target.
    wait_for(
        lambda: Match.objects.filter(pk=match.pk, status=Match.Status.FINISHED).exists(),
        what="the bot to win",
    )
    match.refresh_from_db()
    assert match.winners == [2]
    assert match.record is not None and isinstance(match.record["turns"][0]["orders"], list)


def test_a_bots_steps_are_the_workers_and_a_persons_are_resolved_in_the_request(
    celery_worker, player
):
    match = services.match_create(
        creator=player,
        seat_count=2,
        ruleset="dig",
        options={"steps": 3, "rounds": 1},
        bots=["walker"],
    )
    services.orders_submit(
        match_id=match.pk, user=player, turn=0, orders={"action": "scan", "step_no": 0}
    )
    # No worker needed for a step: resolved before the service returned.
    assert Resolution.objects.filter(match=match, turn_number=0, step=0).exists()
    services.orders_submit(
        match_id=match.pk, user=player, turn=0, orders={"action": "end", "step_no": 1}
    )
    wait_for(
        lambda: Match.objects.filter(pk=match.pk, status=Match.Status.FINISHED).exists(),
        what="the bot's turn and the end",
    )
    bot = Resolution.objects.filter(match=match, turn_number=1)
    assert bot.exists() and {r.seat for r in bot} == {2}
