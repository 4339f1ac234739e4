"""Challenges: one account asks another to play a match it describes (docs/compete.md).

Writes are here, each in one transaction: make, accept, decline, cancel; and the
sweep celery beat runs (`challenges_sweep`): challenges past their time expire, and
a challenged player who is away is emailed. Every answer claims the pending row
with a conditional update or under its lock, so a challenge is answered once: a
second answer, a sweep run twice, or two beats at once change nothing.

Accepting makes the match with the existing match service: the challenger in the
first seat, the challenged in the next, the other seats as the challenge gave
them (built-in bots, or open for anyone); it starts when no seat is left open.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core.cache import cache
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

import engine
from games.compete.models import Challenge, ChallengePolicy
from games.errors import Conflict, NotAPlayer, ServiceError
from games.guests.selectors import is_guest, refuse_guest
from games.models import TURN_SECONDS_MAX, TURN_SECONDS_MIN, Match, Seat
from games.services.matches import (
    bot_unknown_message,
    match_create,
    match_options_clean,
    match_rated,
    seat_join,
    seat_numbers,
)

log = logging.getLogger(__name__)

# Pending challenges one account may have out at once.
PENDING_MAX = 20
# Rows one sweep handles of each kind; the next sweep takes the rest.
SWEEP_BATCH = 200
# An email claim older than this was lost with its worker: it is tried again.
EMAIL_CLAIM_STALE = timedelta(minutes=10)


# The navigation's count of a player's challenges waiting for an answer is kept this
# long in the cache (games/compete/templatetags/compete.py challenges_waiting); every
# write here that changes it forgets it after commit.
WAITING_CACHE_SECONDS = 60


def waiting_key(user_id: int, joined: datetime) -> str:
    # date_joined too: an id that SQLite hands out again never meets the old count.
    return f"challenges-waiting:{user_id}.{int(joined.timestamp() * 1e6)}"


def waiting_count(user: User) -> int:
    """How many challenges wait for the player's answer: from the cache, or one query."""
    user_id = user.pk
    key = waiting_key(user_id, user.date_joined)
    try:
        cached = cache.get(key)
    except Exception:  # a cache that fails is a miss
        log.warning("challenge count cache unavailable", exc_info=True)
        cached = None
    if cached is not None:
        return int(cached)
    count = Challenge.objects.filter(
        challenged_id=user_id, status=Challenge.Status.PENDING, expires_at__gt=timezone.now()
    ).count()
    try:
        cache.set(key, count, WAITING_CACHE_SECONDS)
    except Exception:
        log.warning("challenge count cache unavailable", exc_info=True)
    return count


def _forget_waiting(*users: tuple[int, datetime]) -> None:
    """Forget the counts of these players (id, date_joined) once the change commits."""

    def forget() -> None:
        try:
            cache.delete_many([waiting_key(u, joined) for u, joined in users])
        except Exception:
            log.warning("challenge count cache unavailable", exc_info=True)

    if users:
        transaction.on_commit(forget, robust=True)


class NotFound(ServiceError):
    status = 404


class Closed(ServiceError):
    """The player does not take challenges (from this challenger)."""

    status = 403


def _closed(challenge: Challenge) -> Conflict:
    said = {
        Challenge.Status.ACCEPTED: "was accepted",
        Challenge.Status.DECLINED: "was declined",
        Challenge.Status.CANCELLED: "was cancelled",
        Challenge.Status.EXPIRED: "has expired",
    }.get(Challenge.Status(challenge.status), "is closed")
    return Conflict("challenge_closed", f"This challenge {said}; it cannot be answered now.")


def policy_of(user: User) -> ChallengePolicy:
    """The player's challenge policy (the defaults when never set)."""
    found = ChallengePolicy.objects.filter(user=user).first()
    return found if found is not None else ChallengePolicy(user=user)


def have_played(a: User, b: User) -> bool:
    """Whether the two sat in one match that started."""
    return Seat.objects.filter(
        user=b,
        match__seats__user=a,
        match__status__in=[Match.Status.RUNNING, Match.Status.PAUSED, Match.Status.FINISHED],
    ).exists()


def may_challenge(challenger: User, challenged: User) -> str:
    """Why `challenger` may not challenge `challenged` ("" when it may)."""
    if is_guest(challenged):
        return f"{challenged.get_username()} plays as a guest and cannot be challenged."
    policy = policy_of(challenged)
    if policy.accept_from == ChallengePolicy.From.NOBODY:
        return f"{challenged.get_username()} does not take challenges."
    if policy.accept_from == ChallengePolicy.From.PLAYED and not have_played(
        challenger, challenged
    ):
        return f"{challenged.get_username()} takes challenges only from players they have played."
    return ""


@dataclass(frozen=True)
class Terms:
    """A challenge's match, checked: what match_create will be given."""

    ruleset: str
    options: dict[str, Any]
    seats: int
    bots: list[str]
    rated: bool
    turn_seconds: int


def terms_clean(
    *,
    challenger: User,
    ruleset: str,
    options: Mapping[str, Any] | None,
    seats: int | None,
    bots: Sequence[str],
    rated: bool | None,
    turn_seconds: int,
) -> Terms:
    """The match a challenge asks for, checked as match_create checks it (ServiceError
    with its code otherwise): the game, its options, the seats, the bots, the time."""
    values = match_options_clean(ruleset, options)  # unknown_ruleset, bad_option
    rules = engine.ruleset(ruleset)
    allowed = [n for n in rules.seats if 2 <= n <= 8]
    # By default the fewest seats the game has (two, for every game here), as the
    # challenge form offers: a challenge is between two players, and the game's usual
    # count (Helium 3's four) would leave seats open for strangers.
    count = (min(allowed) if allowed else rules.default_seats) if seats is None else seats
    if count not in allowed:
        said = ", ".join(str(n) for n in allowed)
        raise ServiceError("bad_seats", f"A match of this game has {said} seats.")
    if len(bots) > count - 2:
        raise ServiceError(
            "bad_seats",
            f"{count} seats leave {count - 2} for bots or other players; {len(bots)} were named.",
        )
    known = set(engine.bot_names(ruleset))
    for name in bots:
        if name and name not in known:
            raise ServiceError("unknown_bot", bot_unknown_message(name, ruleset))
    if not TURN_SECONDS_MIN <= turn_seconds <= TURN_SECONDS_MAX:
        raise ServiceError("bad_deadline", "The time per turn is from 1 minute to 3 days.")
    seat_numbers(count, ruleset, values)  # bad_option: options that do not fit the seats
    filled = list(bots) + [""] * (count - 2 - len(bots))
    return Terms(
        ruleset=ruleset,
        options=values,
        seats=count,
        bots=filled,
        rated=match_rated(creator=challenger, bots=filled, asked=rated),
        turn_seconds=turn_seconds,
    )


def challenge_create(
    *,
    challenger: User,
    to: str,
    ruleset: str,
    options: Mapping[str, Any] | None = None,
    seats: int | None = None,
    bots: Sequence[str] = (),
    rated: bool | None = None,
    turn_seconds: int = 24 * 3600,
    public: bool = True,
    api: bool = False,
    now: datetime | None = None,
) -> Challenge:
    """Challenge the account named `to` to a match of `ruleset`. Refused (nothing
    made): a guest challenger, an unknown player, oneself, a player who takes no
    challenges (from this challenger), bad terms, too many pending challenges."""
    refuse_guest(challenger)
    challenged = get_user_model().objects.filter(username=to, is_active=True).first()
    if challenged is None:
        raise NotFound("unknown_player", f"There is no player {to[:40]!r}.")
    if challenged.pk == challenger.pk:
        raise ServiceError("bad_player", "You cannot challenge yourself.")
    why = may_challenge(challenger, challenged)
    if why:
        raise Closed("challenges_closed", why)
    terms = terms_clean(
        challenger=challenger,
        ruleset=ruleset,
        options=options,
        seats=seats,
        bots=bots,
        rated=rated,
        turn_seconds=turn_seconds,
    )
    now = now or timezone.now()
    with transaction.atomic():
        # The challenger's row, locked: two requests at once cannot both pass the cap.
        get_user_model().objects.select_for_update().filter(pk=challenger.pk).first()
        pending = Challenge.objects.filter(
            challenger=challenger, status=Challenge.Status.PENDING, expires_at__gt=now
        ).count()
        if pending >= PENDING_MAX:
            raise Conflict(
                "too_many_challenges",
                f"You have {pending} challenges waiting for an answer; cancel one first.",
            )
        _forget_waiting((challenged.pk, challenged.date_joined))
        return Challenge.objects.create(
            challenger=challenger,
            challenged=challenged,
            ruleset=terms.ruleset,
            options=terms.options,
            seats=terms.seats,
            bots=terms.bots,
            rated=terms.rated,
            turn_seconds=terms.turn_seconds,
            public=public,
            api=api,
            created_at=now,
            expires_at=now + timedelta(seconds=settings.CHALLENGE_EXPIRE_SECONDS),
            email_after=now + timedelta(seconds=settings.YOUR_TURN_EMAIL_AFTER_SECONDS),
        )


def _pending_for(challenge_id: int, user: User, *, role: str, now: datetime) -> Challenge:
    """The challenge, locked, if `user` is its `role` ("challenged" or "challenger")
    and it waits for an answer. NotFound when the user is neither party (nobody
    else learns that it exists), NotAPlayer when the other one, Conflict when closed."""
    challenge = (
        Challenge.objects.select_for_update(of=("self",))
        .select_related("challenged")
        .filter(Q(challenger=user) | Q(challenged=user), pk=challenge_id)
        .first()
    )
    if challenge is None:
        raise NotFound("not_found", "There is no such challenge of yours.")
    if getattr(challenge, f"{role}_id") != user.pk:
        if role == "challenged":
            raise NotAPlayer("not_challenged", "Only the challenged player answers a challenge.")
        raise NotAPlayer("not_challenger", "Only the challenger may cancel a challenge.")
    # Answered, or found expired, below.
    _forget_waiting((challenge.challenged_id, challenge.challenged.date_joined))
    if challenge.status == Challenge.Status.PENDING and challenge.expires_at <= now:
        # Its time is over and the sweep has not come by yet: it expires now.
        challenge.status = Challenge.Status.EXPIRED
        challenge.answered_at = now
        challenge.save(update_fields=["status", "answered_at"])
    if challenge.status != Challenge.Status.PENDING:
        raise _closed(challenge)
    return challenge


def challenge_accept(
    *, challenge_id: int, user: User, api: bool = False, now: datetime | None = None
) -> Match:
    """The challenged player accepts: the match is made (match_create) with the
    challenge's game, options, seats and rating, the challenger in the first seat and
    the challenged in the next (`api`: that seat driven through the bot API). It
    starts when no seat is left open. If the match cannot be made, nothing changes."""
    now = now or timezone.now()
    closed: Conflict | None = None
    with transaction.atomic():
        try:
            challenge = _pending_for(challenge_id, user, role="challenged", now=now)
        except Conflict as error:
            closed = error  # an expiry found now is kept: raised after the commit
        else:
            challenger = challenge.challenger
            match = match_create(
                creator=challenger,
                seat_count=challenge.seats,
                turn_seconds=challenge.turn_seconds,
                bots=["", *challenge.bots],
                public=challenge.public,
                api=challenge.api,
                ruleset=challenge.ruleset,
                options=challenge.options,
                rated=challenge.rated,
            )
            seat_join(match_id=match.pk, user=user, api=api)
            challenge.status = Challenge.Status.ACCEPTED
            challenge.answered_at = now
            challenge.match = match
            challenge.seen_at = challenge.seen_at or now
            challenge.save(update_fields=["status", "answered_at", "match", "seen_at"])
            match.refresh_from_db()
            return match
    assert closed is not None
    raise closed


def _answer(challenge_id: int, user: User, *, role: str, status: str, now: datetime) -> Challenge:
    closed: Conflict | None = None
    with transaction.atomic():
        try:
            challenge = _pending_for(challenge_id, user, role=role, now=now)
        except Conflict as error:
            closed = error
        else:
            challenge.status = status
            challenge.answered_at = now
            if role == "challenged":
                challenge.seen_at = challenge.seen_at or now
            challenge.save(update_fields=["status", "answered_at", "seen_at"])
            return challenge
    assert closed is not None
    raise closed


def challenge_decline(*, challenge_id: int, user: User, now: datetime | None = None) -> Challenge:
    """The challenged player says no. Nothing else changes."""
    return _answer(
        challenge_id,
        user,
        role="challenged",
        status=Challenge.Status.DECLINED,
        now=now or timezone.now(),
    )


def challenge_cancel(*, challenge_id: int, user: User, now: datetime | None = None) -> Challenge:
    """The challenger takes a pending challenge back."""
    return _answer(
        challenge_id,
        user,
        role="challenger",
        status=Challenge.Status.CANCELLED,
        now=now or timezone.now(),
    )


def challenges_seen(*, user: User, now: datetime | None = None) -> int:
    """The player has seen their pending challenges (their page, the API's list, the
    stream): none of them is emailed any more. How many were new to them."""
    return Challenge.objects.filter(
        challenged=user, status=Challenge.Status.PENDING, seen_at__isnull=True
    ).update(seen_at=now or timezone.now())


def policy_update(*, user: User, accept_from: str, email: bool) -> ChallengePolicy:
    if accept_from not in ChallengePolicy.From.values:
        raise ServiceError(
            "bad_policy",
            "Choose who may challenge you: anyone, players you have played, or nobody.",
        )
    with transaction.atomic():
        policy, _ = ChallengePolicy.objects.get_or_create(user=user)
        policy.accept_from = accept_from
        policy.email = email
        policy.save()
        return policy


# --- the sweep (celery beat) --------------------------------------------------------


@dataclass(frozen=True)
class SweepReport:
    expired: int = 0
    emailed: int = 0
    skipped: int = 0


def challenges_expire(*, now: datetime) -> int:
    """Every pending challenge whose time is over expires: one conditional update,
    so two sweeps at once, or a sweep and an answer, never both close one."""
    over = Challenge.objects.filter(status=Challenge.Status.PENDING, expires_at__lte=now)
    _forget_waiting(*set(over.values_list("challenged_id", "challenged__date_joined")))
    return over.update(status=Challenge.Status.EXPIRED, answered_at=now)


def _away(challenge: Challenge) -> bool:
    """The "only when away" rule of the turn emails: the player has not seen the
    challenge, and has opened none of their matches since it was made."""
    if challenge.seen_at is not None:
        return False
    return not Seat.objects.filter(
        user_id=challenge.challenged_id, last_seen_at__gte=challenge.created_at
    ).exists()


def _wants_email(challenge: Challenge) -> bool:
    user = challenge.challenged
    return (
        challenge.status == Challenge.Status.PENDING
        and bool(user.email)
        and user.is_active
        and policy_of(user).email
        and _away(challenge)
    )


def challenge_email_send(*, challenge_id: int, now: datetime) -> bool:
    """Email one challenge to its challenged player if it is due and they are away.
    Claimed first (conditional update), so it goes at most once. True if sent."""
    from games.compete.challenge_emails import render_challenge_email

    claimed = Challenge.objects.filter(
        pk=challenge_id, email=Challenge.Email.WAITING, email_after__lte=now
    ).update(email=Challenge.Email.SENDING, email_claimed_at=now)
    if claimed != 1:
        return False
    challenge = Challenge.objects.select_related("challenger", "challenged").get(pk=challenge_id)
    if not _wants_email(challenge):
        Challenge.objects.filter(pk=challenge_id).update(email=Challenge.Email.SKIPPED)
        return False
    try:
        render_challenge_email(challenge).send()
    except Exception:
        log.exception("challenge %s: the email was not sent; trying again later", challenge_id)
        Challenge.objects.filter(pk=challenge_id, email=Challenge.Email.SENDING).update(
            email=Challenge.Email.WAITING
        )
        return False
    Challenge.objects.filter(pk=challenge_id).update(email=Challenge.Email.SENT)
    return True


def challenges_sweep(*, now: datetime | None = None) -> SweepReport:
    """What celery beat runs: expire what is over, then email each challenge that
    waited long enough for a player who is away. Safe to run twice or at once."""
    now = now or timezone.now()
    expired = challenges_expire(now=now)
    # Claims lost with their worker go back to waiting.
    Challenge.objects.filter(
        email=Challenge.Email.SENDING, email_claimed_at__lte=now - EMAIL_CLAIM_STALE
    ).update(email=Challenge.Email.WAITING)
    skipped = (
        Challenge.objects.filter(email=Challenge.Email.WAITING)
        .exclude(status=Challenge.Status.PENDING)
        .update(email=Challenge.Email.SKIPPED)
    )
    due = list(
        Challenge.objects.filter(
            email=Challenge.Email.WAITING,
            email_after__lte=now,
            status=Challenge.Status.PENDING,
        ).values_list("pk", flat=True)[:SWEEP_BATCH]
    )
    emailed = sum(challenge_email_send(challenge_id=pk, now=now) for pk in due)
    return SweepReport(expired=expired, emailed=emailed, skipped=skipped)
