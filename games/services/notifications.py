"""Email notifications: one row per (user, match, kind, turn), sent by the worker.

The unique row is what makes an email go out at most once; the sender claims the
row with a conditional update before sending. Bots have no user and get nothing;
a kind the user switched off is never created, and is skipped if it was switched
off after the row was made. A seat driven through the bot API gets none either.
"""

from __future__ import annotations

import logging
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core import signing
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from games.errors import ServiceError
from games.faults import fault_point
from games.models import Match, Notification, NotificationKind, NotificationSettings, Seat

log = logging.getLogger(__name__)

UNSUBSCRIBE_SALT = "games.unsubscribe"
MAX_SEND_ATTEMPTS = 5


def wants(user: User, kind: str) -> bool:
    """Whether the user wants this kind of email; no query when the caller loaded
    the settings with the user (select_related("user__notification_settings"))."""
    descriptor = type(user).notification_settings
    if descriptor.is_cached(user):
        prefs = getattr(user, "notification_settings", None)
    else:
        prefs = NotificationSettings.objects.filter(user=user).first()
    return prefs is None or prefs.wants(kind)


def notify(
    *,
    user: User | None,
    match: Match,
    kind: str,
    turn_number: int = 0,
    context: dict[str, Any] | None = None,
    seat: Seat | None = None,
) -> Notification | None:
    """Record that `user` should hear about this, and queue the email after commit.

    `seat`: the user's seat in the match when the caller holds it (saves a query).
    """
    if user is None or not getattr(user, "email", "") or not user.is_active:
        return None
    if not wants(user, kind):
        return None
    api = (
        seat.api
        if seat is not None
        else Seat.objects.filter(match=match, user=user, api=True).exists()
    )
    if api:
        return None  # an API-driven seat: a program plays it and reads no email
    try:
        # The row is new nearly always: insert first (one query), look up on a clash.
        with transaction.atomic():
            row = Notification.objects.create(
                user=user, match=match, kind=kind, turn_number=turn_number, context=context or {}
            )
    except IntegrityError:
        return Notification.objects.get(user=user, match=match, kind=kind, turn_number=turn_number)
    from games.tasks import notification_send_task

    pk = row.pk
    # robust: with the broker down the row stays pending; the sweep queues it.
    transaction.on_commit(lambda: notification_send_task.delay(pk), robust=True)
    return row


def notification_send(*, notification_id: int) -> bool:
    """Send one notification email. True if this call sent it."""
    from games.emails import render_notification

    claimed = Notification.objects.filter(
        pk=notification_id, status=Notification.Status.PENDING
    ).update(status=Notification.Status.SENDING, attempts=F("attempts") + 1)
    if claimed != 1:
        return False  # sent, skipped or being sent by another delivery
    row = Notification.objects.select_related("user", "match").get(pk=notification_id)
    if (
        not row.user.email
        or not row.user.is_active
        or not wants(row.user, row.kind)
        or Seat.objects.filter(match=row.match, user=row.user, api=True).exists()
    ):
        Notification.objects.filter(pk=row.pk).update(status=Notification.Status.SKIPPED)
        return False
    message = render_notification(row)
    fault_point("email_claimed")
    try:
        message.send()
    except Exception:
        status = (
            Notification.Status.FAILED
            if row.attempts >= MAX_SEND_ATTEMPTS
            else Notification.Status.PENDING
        )
        Notification.objects.filter(pk=row.pk).update(status=status)
        raise
    fault_point("email_sent")
    Notification.objects.filter(pk=row.pk).update(
        status=Notification.Status.SENT, sent_at=timezone.now()
    )
    return True


def notification_settings_update(*, user: User, **flags: bool) -> NotificationSettings:
    unknown = set(flags) - set(NotificationKind.values)
    if unknown:
        raise ServiceError("bad_kind", f"Unknown notification kinds: {sorted(unknown)}.")
    with transaction.atomic():
        prefs, _ = NotificationSettings.objects.get_or_create(user=user)
        for kind, value in flags.items():
            setattr(prefs, kind, bool(value))
        prefs.save()
        return prefs


def unsubscribe_token(*, user: User, kind: str) -> str:
    return signing.dumps({"u": user.pk, "k": kind}, salt=UNSUBSCRIBE_SALT, compress=True)


def notification_unsubscribe(*, token: str) -> tuple[User, str]:
    """Switch off the kind named in a signed unsubscribe token."""
    try:
        data = signing.loads(token, salt=UNSUBSCRIBE_SALT)
        user_id, kind = data["u"], data["k"]
    except (signing.BadSignature, KeyError, TypeError, ValueError) as error:
        raise ServiceError("bad_token", "This unsubscribe link is not valid.") from error
    if kind not in NotificationKind.values:
        raise ServiceError("bad_token", "This unsubscribe link is not valid.")
    user = get_user_model().objects.filter(pk=user_id).first()
    if user is None:
        raise ServiceError("bad_token", "This unsubscribe link is not valid.")
    notification_settings_update(user=user, **{kind: False})
    return user, kind
