"""Email notifications: one row per (user, match, kind, turn), sent by the worker.

The unique row is what makes an email go out at most once per event; the sender
claims the row with a conditional update before sending and marks it sent only
after the mail server took it. A claim whose worker died goes back to pending
(clock sweep, notification_requeue_stale), so no email is lost; an email is sent
twice only if a worker dies between the server taking it and the row's update.
Bots have no user and get nothing; a kind the user switched off is never created,
and is skipped if it was switched off after the row was made. A seat driven
through the bot API gets none either.

An address waiting for its confirmation link (a guest who signed up and has not
clicked it yet) is sent nothing from here: the confirmation email, which allauth
sends, is the only one it gets. The rows made meanwhile are skipped when their
time comes; once the address is confirmed the emails go as to everyone. An
address allauth never saw (an account made in the admin or with createsuperuser)
was typed by the site's operator and counts as confirmed.

"Your turn" is for a player who is away: its row is due a while after the turn
began (your_turn_delay) and the clock sweep queues it then; it is sent only if
the turn is still that player's and the player has not opened the match since
the turn began (seat_seen records every look at the page and its poll). In a
turn at once (all seats move together, so every turn is everyone's) a player who
is away gets one reminder ("Your turn" or the deadline's warning) until they open
the match again, however fast the turns go by.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from allauth.account.models import EmailAddress
from django.conf import settings
from django.contrib.auth.models import User
from django.db import connections, router, transaction
from django.db.models import Exists, F, Model, OuterRef, Q
from django.db.models.constants import OnConflict
from django.db.models.sql.subqueries import InsertQuery
from django.utils import timezone

from games.errors import ServiceError
from games.faults import fault_point
from games.models import (
    AT_ONCE,
    Match,
    Notification,
    NotificationKind,
    NotificationSettings,
    Orders,
    Seat,
    Turn,
)
from games.queue import notification_send_queue
from games.services.unsubscribe import unsubscribe_token_read
from helium3_site import pagecache

log = logging.getLogger(__name__)

MAX_SEND_ATTEMPTS = 5
# A player's looks at a match are written at most once a turn per this many
# seconds and web process (the page and its poll are the most requested URLs).
SEEN_WRITE_SECONDS = 30


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
    later: list[Notification] | None = None,
) -> Notification | None:
    """Record that `user` should hear about this, and queue the email after commit;
    "Your turn" is due later (your_turn_delay) and the clock sweep queues it then.

    `seat`: the user's seat in the match when the caller holds it (saves a query).
    `later`: where a row due later goes instead of being inserted now, by a caller
    that inserts it (as insert_unless_present does) before its transaction commits
    (a resolution's chain, with its other rows); the row returned has no pk then.
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
    now = timezone.now()
    delay = your_turn_delay(match.turn_seconds) if kind == NotificationKind.YOUR_TURN else 0
    row = Notification(
        user=user,
        match=match,
        kind=kind,
        turn_number=turn_number,
        context=context or {},
        send_after=now + timedelta(seconds=delay),
        queued_at=None if delay else now,
    )
    if later is not None and delay:
        later.append(row)  # nothing is queued for it at the commit: the sweep does
        return row
    # The row is new nearly always: insert first (one statement), look up on a clash.
    if not insert_unless_present(row):
        return Notification.objects.get(user=user, match=match, kind=kind, turn_number=turn_number)
    if not delay:
        pk = row.pk
        # robust: with the broker down the row stays pending; the sweep queues it.
        transaction.on_commit(lambda: _queue_send(pk), robust=True)
    # A delayed row is queued by the clock sweep once it is due.
    return row


def insert_unless_present(row: Model) -> bool:
    """Insert `row` unless a row with the same unique values is there already (the
    database's own ON CONFLICT DO NOTHING, or SQLite's INSERT OR IGNORE): True, and
    `row` has its pk, if it was inserted. One statement, where an INSERT in a
    savepoint that catches the clash takes three (the savepoint, the INSERT, its
    release) and leaves an error in the server's log at every clash."""
    meta = row._meta
    query = InsertQuery(type(row), on_conflict=OnConflict.IGNORE)
    query.insert_values([f for f in meta.local_concrete_fields if f is not meta.pk], [row])
    compiler = query.get_compiler(using=router.db_for_write(type(row)))
    compiler.returning_fields = [meta.pk]
    with compiler.connection.cursor() as cursor:
        for sql, params in compiler.as_sql():
            cursor.execute(sql, params)
        got = cursor.fetchone()
    if got is None:
        return False
    row.pk = got[0]
    row._state.adding = False
    row._state.db = compiler.using
    return True


def your_turn_delay(turn_seconds: int) -> float:
    """Seconds after a turn began before its "Your turn" email may go: a few
    minutes, or a fraction of a short turn time (settings.YOUR_TURN_EMAIL_*)."""
    return min(
        float(settings.YOUR_TURN_EMAIL_AFTER_SECONDS),
        turn_seconds * settings.YOUR_TURN_EMAIL_TURN_FRACTION,
    )


def _queue_send(notification_id: int) -> None:
    notification_send_queue(notification_id)


def seat_seen(*, match: Match, user_id: int, now: datetime | None = None) -> None:
    """The player opened the match (its page or its poll): remember when.

    `match` needs pk, created_at and turn_number (the page's version row will do).
    Only the first look in a turn matters to the "Your turn" email, so each web
    process writes at most once a turn per SEEN_WRITE_SECONDS; the memo is in the
    process's memory (the "pages" cache, looked up once: `pagecache.pages()`), so a
    look costs no query most times.

    On PostgreSQL, outside a transaction, its commit does not wait for the disk (as a
    resolution's: games/services/resolution.py), set by the statement itself: waiting
    for the flush was about half of the write's time. A crash in the fraction of a
    second before the flush forgets the look, and at worst sends a "Your turn" email
    to a player who had looked. Inside a transaction it waits as the rest does.
    """
    key = seen_memo_key(match, user_id)
    memo = pagecache.pages()
    try:
        if memo.get(key) is not None:
            return
    except Exception:  # a cache that fails is a miss
        log.warning("seen memo unavailable", exc_info=True)
    # As Seat.objects.filter(match_id=..., user_id=...).update(last_seen_at=...), in
    # SQL written once per database (the ORM took longer to write it than the
    # database to run it, once a turn on a player's page or poll).
    db = connections[router.db_for_write(Seat)]
    unflushed = db.vendor == "postgresql" and not db.in_atomic_block
    sql = _seen_sqls.get((db.vendor, unflushed))
    if sql is None:

        def column(name: str) -> str:
            return str(db.ops.quote_name(str(Seat._meta.get_field(name).column)))  # type: ignore[union-attr]

        sql = (
            f"UPDATE {db.ops.quote_name(Seat._meta.db_table)} SET {column('last_seen_at')} = %s"
            f" WHERE {column('match')} = %s AND {column('user')} = %s"
        )
        if unflushed:  # for this statement's own transaction
            sql += " AND set_config('synchronous_commit', 'off', true) IS NOT NULL"
        _seen_sqls[db.vendor, unflushed] = sql
    seen = Seat._meta.get_field("last_seen_at").get_db_prep_save(now or timezone.now(), db)
    with db.cursor() as cursor:
        cursor.execute(sql, [seen, match.pk, user_id])
    try:
        memo.set(key, 1, SEEN_WRITE_SECONDS)
    except Exception:
        log.warning("seen memo unavailable", exc_info=True)


_seen_sqls: dict[tuple[str, bool], str] = {}


def seen_memo_key(match: Match, user_id: int) -> str:
    # created_at too: a match id that SQLite hands out again never meets the old memo.
    born = int(match.created_at.timestamp() * 1e6) if match.created_at else 0
    return f"seen:{match.pk}.{born}:{user_id}:{match.turn_number}"


def notification_send(*, notification_id: int, now: datetime | None = None) -> bool:
    """Send one notification email if it is due. True if this call sent it.

    `now`: the time that decides whether it is due (tests; default: the clock).
    """
    from games.services.emails import render_notification

    claimed = Notification.objects.filter(
        pk=notification_id,
        status=Notification.Status.PENDING,
        send_after__lte=now or timezone.now(),
    ).update(
        status=Notification.Status.SENDING,
        claimed_at=timezone.now(),
        attempts=F("attempts") + 1,
    )
    if claimed != 1:
        return False  # not due, sent, skipped or being sent by another delivery
    row = Notification.objects.select_related("user", "match").get(pk=notification_id)
    if not _still_wanted(row):
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
        # Pending again, queued now as far as the sweep is concerned: it tries
        # again after the grace period.
        Notification.objects.filter(pk=row.pk).update(status=status, queued_at=timezone.now())
        raise
    fault_point("email_sent")
    Notification.objects.filter(pk=row.pk).update(
        status=Notification.Status.SENT, sent_at=timezone.now()
    )
    return True


def address_confirmed(user: User) -> bool:
    """Whether the user's address may be sent email: allauth holds it confirmed, or
    holds no record of it at all (an operator typed it)."""
    verified = list(
        EmailAddress.objects.filter(user=user, email__iexact=user.email).values_list(
            "verified", flat=True
        )
    )
    return not verified or any(verified)


def _still_wanted(row: Notification) -> bool:
    """Whether the email should still go, checked when it is sent."""
    user = row.user
    if not user.email or not user.is_active or not wants(user, row.kind):
        return False
    if not address_confirmed(user):
        return False  # not yet: the confirmation link is the only email it gets
    seat = Seat.objects.filter(match=row.match, user=user).first()
    if seat is not None and seat.api:
        return False  # the seat went to a program since the row was made
    if row.kind not in REMINDERS:
        return True
    if row.kind == NotificationKind.DEADLINE_WARNING:
        at_once = Turn.objects.filter(
            match=row.match, number=row.turn_number, seat=AT_ONCE
        ).exists()
        return not (at_once and seat is not None and _reminded_while_away(row, seat))
    # "Your turn" only while the turn waits for this player, and only to a player
    # who has not opened the match since it began: one who is there needs no email.
    turn = Turn.objects.filter(
        match=row.match, number=row.turn_number, status=Turn.Status.WAITING
    ).first()
    if (
        turn is not None
        and turn.seat == AT_ONCE
        and seat is not None
        and _reminded_while_away(row, seat)
    ):
        return False
    return awaited_and_away(match=row.match, seat=seat, turn=turn)


def awaited_and_away(*, match: Match, seat: Seat | None, turn: Turn | None) -> bool:
    """The "only when away" rule of "Your turn", by email and by web push alike: the
    match runs, `turn` (the waiting turn, None if it moved on) waits for this seat,
    a person plays the seat, and they have not opened the match since it began."""
    # In a turn at once (seat AT_ONCE) the seats whose orders are in wait no more.
    return (
        match.status == Match.Status.RUNNING
        and turn is not None
        and seat is not None
        and (
            seat.number == turn.seat
            or (
                turn.seat == AT_ONCE
                and not Orders.objects.filter(
                    match=match, turn_number=turn.number, seat=seat.number
                ).exists()
            )
        )
        and not seat.driver_bot
        and not seat.api
        and (seat.last_seen_at is None or seat.last_seen_at < turn.started_at)
    )


# The emails that ask a player to move. In a turn at once every turn is every
# player's, one after another as fast as the others send: a player who is away
# hears once, not every turn, until they open the match again.
REMINDERS = (NotificationKind.YOUR_TURN, NotificationKind.DEADLINE_WARNING)


def _reminded_while_away(row: Notification, seat: Seat) -> bool:
    """Whether a reminder about this match already went to the player since they
    last opened it (since it began, if they never did)."""
    # One being sent counts if it is older: of two claimed at once, the older goes.
    sent = Notification.objects.filter(
        Q(status=Notification.Status.SENT) | Q(status=Notification.Status.SENDING, pk__lt=row.pk),
        match_id=row.match_id,
        user_id=row.user_id,
        kind__in=REMINDERS,
    ).exclude(pk=row.pk)
    if seat.last_seen_at is not None:
        sent = sent.filter(claimed_at__gt=seat.last_seen_at)
    return sent.exists()


def notifications_queue_due(*, now: datetime, grace: timedelta, limit: int) -> int:
    """Queue the send of every pending email that is due and was not queued within
    `grace` (never, for a delayed "Your turn"; a lost task, otherwise). How many.

    A due "Your turn" whose turn no longer waits is skipped here first, all of them
    in one statement, without a task: its send would only find that out and skip it
    (awaited_and_away), after a claim and five reads. Nearly every "Your turn" row
    ends so (the player moved within the delay), one a turn of each person.
    """
    notifications_skip_moved_on(now=now, limit=MOVED_ON_BATCH)
    due = list(
        Notification.objects.filter(status=Notification.Status.PENDING, send_after__lte=now)
        .exclude(queued_at__gt=now - grace)
        .values_list("pk", flat=True)[:limit]
    )
    if due:
        Notification.objects.filter(pk__in=due).update(queued_at=now)
        for pk in due:
            _queue_send(pk)
    return len(due)


# The "Your turn" rows a sweep skips at most, in one statement: several sweeps'
# worth at the busiest pace measured (1,000 matches, some 30 people's turns a second,
# bench/scale.py), so a backlog is gone within a few sweeps.
MOVED_ON_BATCH = 5_000


def notifications_skip_moved_on(*, now: datetime, limit: int) -> int:
    """Skip the pending "Your turn" rows that are due and whose turn no longer waits
    (played, passed, or void: a turn never waits again), at most `limit` of them in
    one statement. How many. The send would skip each: no turn waiting for the seat
    (awaited_and_away)."""
    waiting = Turn.objects.filter(
        match_id=OuterRef("match_id"),
        number=OuterRef("turn_number"),
        status=Turn.Status.WAITING,
    )
    moved_on = (
        Notification.objects.filter(
            status=Notification.Status.PENDING,
            send_after__lte=now,
            kind=NotificationKind.YOUR_TURN,
        )
        .exclude(Exists(waiting))
        .order_by()
        .values("pk")[:limit]
    )
    # Pending again in the UPDATE itself: a row a worker claimed meanwhile is its own.
    return Notification.objects.filter(pk__in=moved_on, status=Notification.Status.PENDING).update(
        status=Notification.Status.SKIPPED
    )


def notifications_requeue_stale(*, now: datetime, limit: int) -> int:
    """Put back to pending every claim older than settings.EMAIL_CLAIM_STALE_SECONDS:
    its worker died between the claim and the send (or before marking it sent).
    The sweep's next pass, or this one's notifications_queue_due, sends it. How many."""
    stale = now - timedelta(seconds=settings.EMAIL_CLAIM_STALE_SECONDS)
    rows = list(
        Notification.objects.filter(
            status=Notification.Status.SENDING, claimed_at__lte=stale
        ).values_list("pk", "attempts")[:limit]
    )
    requeued = 0
    for pk, attempts in rows:
        status = (
            Notification.Status.FAILED
            if attempts >= MAX_SEND_ATTEMPTS
            else Notification.Status.PENDING
        )
        # Conditional: a worker that was only slow and marks it sent meanwhile wins.
        changed = Notification.objects.filter(
            pk=pk, status=Notification.Status.SENDING, claimed_at__lte=stale
        ).update(status=status, queued_at=None)
        if changed and status == Notification.Status.PENDING:
            log.warning("email %s: its claim went stale; sending it again", pk)
            requeued += 1
    return requeued


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


def notification_unsubscribe(*, token: str) -> tuple[User, str]:
    """Switch off the kind named in a signed unsubscribe token."""
    user, kind = unsubscribe_token_read(token=token)
    notification_settings_update(user=user, **{kind: False})
    return user, kind
