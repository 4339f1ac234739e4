"""Web Push use cases: a browser opts in or out; "your turn" is pushed to a player
who is away, under the email's rule (notifications.awaited_and_away), at most once.

A notice row is made when a turn begins for a player with a subscription, due a
while after (notifications.your_turn_delay, as the email); the sweep (tasks.py)
queues it once due, and the send claims it with a conditional update, so a task
delivered twice sends nothing the second time. A worker that dies between its
sends and marking the row sent leaves a stale claim that is sent again: a browser
may then get the same message twice, which it shows once (the same tag).
"""

from __future__ import annotations

import json
import logging
from datetime import datetime, timedelta
from typing import Any

import requests
from celery import current_app
from django.conf import settings
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.urls import reverse
from django.utils import timezone

from games import catalog
from games.errors import ServiceError
from games.models import AT_ONCE, Match, Seat, Turn
from games.services.notifications import awaited_and_away, your_turn_delay
from games.webpush.endpoints import endpoint_check, subscription_parse
from games.webpush.keys import vapid_current, vapid_signer, vapid_subject
from games.webpush.models import PushNotice, PushSubscription, VapidKey

log = logging.getLogger(__name__)

SEND_TASK = "games.webpush.tasks.webpush_send_task"
MAX_SEND_ATTEMPTS = 5
# A player's browsers kept at most; the oldest goes when one more opts in.
SUBSCRIPTIONS_PER_USER = 10
# Refusals in a row (other than 404/410, which end it at once) that end a subscription.
FAILURES_BEFORE_DROP = 5
TTL_MIN_SECONDS = 60
TTL_MAX_SECONDS = 7 * 24 * 3600


def push_subscription_save(*, user: User, data: Any) -> PushSubscription:
    """Store a browser's subscription for `user` (its PushSubscription.toJSON(), and
    "key": the VAPID public key it subscribed with). The same browser again updates
    its row; a browser another player had opted in with becomes this one's."""
    sub = subscription_parse(data)
    if sub.key is None:
        key = vapid_current()
    else:
        found = VapidKey.objects.filter(public_key=sub.key).first()
        if found is None:
            raise ServiceError("stale_key", "The site's push key changed: reload the page.")
        key = found
    with transaction.atomic():
        row, _ = PushSubscription.objects.update_or_create(
            endpoint=sub.endpoint,
            defaults={
                "user": user,
                "p256dh": sub.p256dh,
                "auth": sub.auth,
                "vapid_key": key,
                "failures": 0,
                "last_error": "",
            },
        )
        extra = PushSubscription.objects.filter(user=user).order_by("-created_at", "-pk")
        stale = list(extra.values_list("pk", flat=True)[SUBSCRIPTIONS_PER_USER:])
        if stale:
            PushSubscription.objects.filter(pk__in=stale).delete()
    return row


def push_subscription_delete(*, user: User, endpoint: Any) -> int:
    """Forget one of the user's browsers (it unsubscribed). How many rows went."""
    if not isinstance(endpoint, str) or not endpoint:
        raise ServiceError("bad_endpoint", "Send the endpoint of the subscription to end.")
    deleted, _ = PushSubscription.objects.filter(user=user, endpoint=endpoint).delete()
    return deleted


def webpush_your_turn(
    *, user: User | None, match: Match, turn_number: int, seat: Seat | None = None
) -> PushNotice | None:
    """A turn began for `user`'s seat: if they opted in, push "your turn" when it is
    due, should they still be away then. Called in the transaction that begins it."""
    if user is None or not user.is_active:
        return None
    if seat is not None and (seat.api or seat.driver_bot):
        return None
    # One indexed look a person's turn; no row at all for a player who never opted in.
    if not PushSubscription.objects.filter(user=user).exists():
        return None
    now = timezone.now()
    delay = your_turn_delay(match.turn_seconds)
    try:
        with transaction.atomic():
            row = PushNotice.objects.create(
                user=user,
                match=match,
                turn_number=turn_number,
                send_after=now + timedelta(seconds=delay),
                queued_at=None if delay else now,
            )
    except IntegrityError:
        return PushNotice.objects.get(user=user, match=match, turn_number=turn_number)
    if not delay:
        pk = row.pk
        transaction.on_commit(lambda: _queue_send(pk), robust=True)
    return row


def _queue_send(notice_id: int) -> None:
    current_app.send_task(SEND_TASK, args=(notice_id,))


def push_payload(notice: PushNotice) -> dict[str, Any]:
    """What the browser is told: the match, its game and the turn, no more (all of it
    on the player's own page). The service worker shows it; tag folds repeats."""
    match = notice.match
    name = f"match {match.pk}" + (f" “{match.title}”" if match.title else "")
    game = catalog.title(match.ruleset)
    return {
        "title": f"Your turn in {name}",
        "body": f"{game}, turn {notice.turn_number}",
        "url": reverse("games:match-detail", args=[match.pk]),
        "tag": f"match-{match.pk}",
        "match": match.pk,
        "game": game,
        "turn": notice.turn_number,
    }


def _still_wanted(notice: PushNotice) -> Turn | None:
    """The waiting turn if the push should still go (the email's rule), else None."""
    if not notice.user.is_active:
        return None
    seat = Seat.objects.filter(match=notice.match, user=notice.user).first()
    turn = Turn.objects.filter(
        match=notice.match, number=notice.turn_number, status=Turn.Status.WAITING
    ).first()
    if not awaited_and_away(match=notice.match, seat=seat, turn=turn):
        return None
    assert turn is not None and seat is not None  # awaited_and_away says so
    if turn.seat == AT_ONCE and _pushed_while_away(notice, seat):
        return None  # every turn at once is theirs: one push until they come back
    return turn


def _pushed_while_away(notice: PushNotice, seat: Seat) -> bool:
    sent = PushNotice.objects.filter(
        Q(status=PushNotice.Status.SENT) | Q(status=PushNotice.Status.SENDING, pk__lt=notice.pk),
        match_id=notice.match_id,
        user_id=notice.user_id,
    ).exclude(pk=notice.pk)
    if seat.last_seen_at is not None:
        sent = sent.filter(claimed_at__gt=seat.last_seen_at)
    return sent.exists()


def webpush_send(*, notice_id: int, now: datetime | None = None) -> bool:
    """Push one due notice to every browser of its player. True if one took it."""
    claimed = PushNotice.objects.filter(
        pk=notice_id, status=PushNotice.Status.PENDING, send_after__lte=now or timezone.now()
    ).update(
        status=PushNotice.Status.SENDING, claimed_at=timezone.now(), attempts=F("attempts") + 1
    )
    if claimed != 1:
        return False  # not due, done, or another delivery has it
    notice = PushNotice.objects.select_related("user", "match").get(pk=notice_id)
    turn = _still_wanted(notice)
    subscriptions = list(
        PushSubscription.objects.filter(user=notice.user).select_related("vapid_key")
    )
    if turn is None or not subscriptions:
        PushNotice.objects.filter(pk=notice.pk).update(status=PushNotice.Status.SKIPPED)
        return False
    data = json.dumps(push_payload(notice)).encode()
    ttl = _ttl(turn)
    results = [
        _deliver(sub, data, ttl=ttl, topic=f"match{notice.match_id}") for sub in subscriptions
    ]
    if any(results):
        PushNotice.objects.filter(pk=notice.pk).update(
            status=PushNotice.Status.SENT, sent_at=timezone.now()
        )
        return True
    if not PushSubscription.objects.filter(user=notice.user).exists():
        status = PushNotice.Status.SKIPPED  # every browser is gone
    elif notice.attempts >= MAX_SEND_ATTEMPTS:
        status = PushNotice.Status.FAILED
    else:
        status = PushNotice.Status.PENDING  # the sweep tries again after its grace
    PushNotice.objects.filter(pk=notice.pk).update(status=status, queued_at=timezone.now())
    return False


def _ttl(turn: Turn) -> int:
    """How long the push service keeps it for a browser that is offline: until the
    turn's deadline, when "your turn" stops being true."""
    if turn.deadline_at is None:
        return TTL_MAX_SECONDS
    left = (turn.deadline_at - timezone.now()).total_seconds()
    return int(min(TTL_MAX_SECONDS, max(TTL_MIN_SECONDS, left)))


def _deliver(sub: PushSubscription, data: bytes, *, ttl: int, topic: str) -> bool:
    """One encrypted, signed POST to the browser's push service. A 404 or 410 (the
    browser unsubscribed or the subscription expired) ends the subscription."""
    try:
        endpoint_check(sub.endpoint)  # the rule may have narrowed since it was stored
    except ServiceError:
        log.warning("push subscription %s: its endpoint is no longer allowed", sub.pk)
        sub.delete()
        return False
    # Imported here, not with the module: pywebpush brings aiohttp, a third of a second
    # of CPU in every process that starts the site (web, worker, beat, push, each test
    # process), and only the send needs it.
    from pywebpush import WebPushException, webpush  # type: ignore[import-untyped]

    session = requests.Session()
    session.trust_env = False  # no proxy from the environment, as no redirect: this URL only
    session.max_redirects = 0
    try:
        webpush(
            subscription_info={
                "endpoint": sub.endpoint,
                "keys": {"p256dh": sub.p256dh, "auth": sub.auth},
            },
            data=data,
            vapid_private_key=vapid_signer(sub.vapid_key),
            vapid_claims={"sub": vapid_subject()},  # aud: the endpoint's origin
            ttl=ttl,
            headers={"Topic": topic, "Urgency": "normal"},
            timeout=settings.WEBPUSH_TIMEOUT_SECONDS,
            requests_session=session,
        )
    except WebPushException as error:
        status = error.response.status_code if error.response is not None else None
        if status in (404, 410):
            log.info("push subscription %s is gone (%s): removed", sub.pk, status)
            sub.delete()
            return False
        return _failed(sub, f"HTTP {status}")
    except requests.RequestException as error:
        return _failed(sub, type(error).__name__)
    finally:
        session.close()
    PushSubscription.objects.filter(pk=sub.pk).update(
        last_success_at=timezone.now(), failures=0, last_error=""
    )
    return True


def _failed(sub: PushSubscription, why: str) -> bool:
    log.warning("push to subscription %s failed: %s", sub.pk, why)
    if sub.failures + 1 >= FAILURES_BEFORE_DROP:
        sub.delete()
    else:
        PushSubscription.objects.filter(pk=sub.pk).update(
            failures=F("failures") + 1, last_error=why[:200]
        )
    return False


def webpush_queue_due(*, now: datetime, grace: timedelta, limit: int) -> int:
    """Queue the send of every pending notice that is due and was not queued within
    `grace` (a delayed one never was; a lost task's was). How many."""
    due = list(
        PushNotice.objects.filter(status=PushNotice.Status.PENDING, send_after__lte=now)
        .exclude(queued_at__gt=now - grace)
        .values_list("pk", flat=True)[:limit]
    )
    if due:
        PushNotice.objects.filter(pk__in=due).update(queued_at=now)
        for pk in due:
            _queue_send(pk)
    return len(due)


def webpush_requeue_stale(*, now: datetime, limit: int) -> int:
    """Put back to pending each claim older than settings.EMAIL_CLAIM_STALE_SECONDS
    (its worker died); or failed, after MAX_SEND_ATTEMPTS. How many went back."""
    stale = now - timedelta(seconds=settings.EMAIL_CLAIM_STALE_SECONDS)
    rows = list(
        PushNotice.objects.filter(
            status=PushNotice.Status.SENDING, claimed_at__lte=stale
        ).values_list("pk", "attempts")[:limit]
    )
    requeued = 0
    for pk, attempts in rows:
        status = (
            PushNotice.Status.FAILED if attempts >= MAX_SEND_ATTEMPTS else PushNotice.Status.PENDING
        )
        changed = PushNotice.objects.filter(
            pk=pk, status=PushNotice.Status.SENDING, claimed_at__lte=stale
        ).update(status=status, queued_at=None)
        requeued += int(bool(changed) and status == PushNotice.Status.PENDING)
    return requeued


def webpush_sweep(*, now: datetime | None = None, limit: int = 500) -> dict[str, int]:
    now = now or timezone.now()
    stale = webpush_requeue_stale(now=now, limit=limit)
    grace = timedelta(seconds=settings.RESOLVE_GRACE_SECONDS)
    return {"stale": stale, "queued": webpush_queue_due(now=now, grace=grace, limit=limit)}
