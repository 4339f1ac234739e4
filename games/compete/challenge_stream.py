"""Challenges on the bot API's event stream (games/api/stream.py): the challenged
account hears `challenge` when one comes (and, on connecting, every one pending), the
challenger `challenge_answered` when it is accepted, declined or expires; the
challenged `challenge_closed` when one it was told of is cancelled or expires."""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from games.compete.challenge_schemas import challenge_json
from games.compete.models import Challenge

ANSWERED = (Challenge.Status.ACCEPTED, Challenge.Status.DECLINED, Challenge.Status.EXPIRED)
CLOSED = (Challenge.Status.CANCELLED, Challenge.Status.EXPIRED)


def challenge_events(
    user_id: int, challenge_id: int, told: dict[int, str], *, connecting: bool
) -> list[dict[str, Any]]:
    """What the stream of `user_id` tells about one challenge whose row changed
    (`told`: each challenge's status when last told, updated here)."""
    challenge = (
        Challenge.objects.select_related("challenger", "challenged").filter(pk=challenge_id).first()
    )
    if challenge is None:
        return []
    status = challenge.status
    last = told.get(challenge_id)
    told[challenge_id] = status
    if last == status:
        return []
    incoming = challenge.challenged_id == user_id
    event: str | None = None
    if status == Challenge.Status.PENDING:
        if incoming and last is None:
            event = "challenge"
    elif connecting:
        event = None  # answered before this stream: the past
    elif not incoming and status in ANSWERED:
        event = "challenge_answered"
    elif incoming and status in CLOSED and last == Challenge.Status.PENDING:
        event = "challenge_closed"
    if event is None:
        return []
    if event == "challenge" and challenge.seen_at is None:
        # Told to a program that listens: the player is there, and gets no email.
        Challenge.objects.filter(pk=challenge_id, seen_at__isnull=True).update(
            seen_at=timezone.now()
        )
    return [{"type": event, "match_id": challenge.match_id, "challenge": challenge_json(challenge)}]
