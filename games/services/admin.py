"""Staff actions on a match. Each one is recorded as an AdminAction row in the
same transaction as the change it makes."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

import engine
from games.errors import Conflict, ServiceError
from games.models import AdminAction, Match, Orders, Seat, Turn
from games.services.matches import bot_unknown_message
from games.services.turns import (
    bot_joins_turn,
    deadline_queue_if_short,
    queue_resolution,
    turn_pass,
)


def _record(admin: User | None, match: Match, action: str, **details: Any) -> None:
    AdminAction.objects.create(admin=admin, match=match, action=action, details=details)


def _current_turn(match: Match) -> Turn | None:
    return (
        Turn.objects.filter(match=match, status__in=[Turn.Status.WAITING, Turn.Status.ACCEPTED])
        .order_by("-number")
        .first()
    )


def match_pause(*, match_id: int, admin: User | None) -> Match:
    """Stop the clock. The current turn keeps the time it had left."""
    with transaction.atomic():
        match = Match.objects.select_for_update().get(pk=match_id)
        if match.status != Match.Status.RUNNING:
            raise Conflict("not_running", f"Match {match.pk} is not running.")
        now = timezone.now()
        turn = _current_turn(match)
        remaining = None
        if turn is not None and turn.deadline_at is not None:
            left = max(turn.deadline_at - now, timedelta(0))
            turn.paused_remaining = left
            turn.deadline_at = None
            turn.save(update_fields=["paused_remaining", "deadline_at"])
            remaining = left.total_seconds()
        match.status = Match.Status.PAUSED
        match.save(update_fields=["status"])
        _record(admin, match, "pause", turn=turn.number if turn else None, remaining_s=remaining)
        return match


def match_resume(*, match_id: int, admin: User | None) -> Match:
    """Restart the clock with the time the turn had left when it was paused."""
    with transaction.atomic():
        match = Match.objects.select_for_update().get(pk=match_id)
        if match.status != Match.Status.PAUSED:
            raise Conflict("not_paused", f"Match {match.pk} is not paused.")
        now = timezone.now()
        turn = _current_turn(match)
        if turn is not None and turn.paused_remaining is not None:
            deadline = now + turn.paused_remaining
            turn.deadline_at = deadline
            turn.warn_at = deadline - timedelta(seconds=match.turn_seconds / 4)
            turn.paused_remaining = None
            turn.save(update_fields=["deadline_at", "warn_at", "paused_remaining"])
            deadline_queue_if_short(match=match, number=turn.number, deadline=deadline)
        match.status = Match.Status.RUNNING
        match.save(update_fields=["status"])
        if turn is not None and turn.status == Turn.Status.ACCEPTED:
            queue_resolution(match.pk, turn.number)
        _record(
            admin,
            match,
            "resume",
            turn=turn.number if turn else None,
            deadline=turn.deadline_at.isoformat() if turn and turn.deadline_at else None,
        )
        return match


def turn_pass_now(*, match_id: int, admin: User | None) -> Turn:
    """Resolve the current turn now as a pass (it does not count as a missed turn)."""
    with transaction.atomic():
        match = Match.objects.select_for_update().get(pk=match_id)
        if match.status != Match.Status.RUNNING:
            raise Conflict("not_running", f"Match {match.pk} is not running.")
        turn = _current_turn(match)
        if turn is None or turn.status != Turn.Status.WAITING:
            raise Conflict("not_waiting", "The current turn already has orders.")
        # Every awaited seat without orders passes (one seat, or several in a turn at once).
        turn_pass(
            match=match, turn=turn, source=Orders.Source.ADMIN, user=admin, now=timezone.now()
        )
        _record(admin, match, "pass_turn", turn=turn.number, seat=turn.seat)
        return turn


def seat_replace_with_bot(*, match_id: int, seat_number: int, bot: str, admin: User | None) -> Seat:
    """A built-in bot takes the seat for good; the person (if any) leaves it."""
    with transaction.atomic():
        match = Match.objects.select_for_update().get(pk=match_id)
        if bot not in engine.bot_names(match.ruleset):
            # Said as the site and the API say it: whose bot it is, and this game's bots.
            raise ServiceError("unknown_bot", bot_unknown_message(bot, match.ruleset))
        if match.status in (Match.Status.FINISHED, Match.Status.ABORTED):
            raise Conflict("match_over", f"Match {match.pk} is over.")
        seat = Seat.objects.select_related("user").filter(match=match, number=seat_number).first()
        if seat is None:
            raise ServiceError("no_such_seat", f"Match {match.pk} has no seat {seat_number}.")
        previous = seat.label
        seat.user = None
        seat.bot = bot
        seat.standin_bot = ""
        seat.missed_in_row = 0
        seat.joined_at = seat.joined_at or timezone.now()
        seat.save()
        _record(admin, match, "replace_seat", seat=seat_number, bot=bot, previous=previous)
        if match.status == Match.Status.OPEN:
            if not Seat.objects.filter(match=match, user__isnull=True, bot="").exists():
                from games.services.matches import match_start

                match_start(match=match, now=timezone.now())
        elif match.status == Match.Status.RUNNING:
            bot_joins_turn(match=match, seat=seat, now=timezone.now())
        return seat


def match_abort(*, match_id: int, admin: User | None) -> Match:
    """End a match without a result. Open turns become void."""
    with transaction.atomic():
        match = Match.objects.select_for_update().get(pk=match_id)
        if match.status in (Match.Status.FINISHED, Match.Status.ABORTED):
            raise Conflict("match_over", f"Match {match.pk} is over already.")
        previous = match.status
        Turn.objects.filter(
            match=match, status__in=[Turn.Status.WAITING, Turn.Status.ACCEPTED]
        ).update(status=Turn.Status.VOID)
        match.status = Match.Status.ABORTED
        match.finished_at = timezone.now()
        match.save(update_fields=["status", "finished_at"])
        _record(admin, match, "abort", previous_status=previous)
        return match
