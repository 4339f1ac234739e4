"""Writes of the bot ladder: on and off, the matchmaker's round, the first-five rule
and telling an owner their bot was taken off. A ladder match's turns last
LADDER_TURN_SECONDS and the site's clock keeps them, as any match's.

A round claims its game before it makes anything (LadderGame: a conditional update,
as the clock sweep claims a turn), and each match takes a slot of every bot in it
(LadderSlot, unique per bot and number) in the transaction that creates the match:
two beat processes or a repeated task never make two matches for one slot, and a
bot never has more than LADDER_MATCHES_PER_BOT ladder matches running.
"""

from __future__ import annotations

import logging
import random
from collections import Counter
from datetime import datetime, timedelta
from functools import partial

from celery import current_app
from django.conf import settings
from django.contrib.auth.models import User
from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.db.models import F
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

import engine
from games.compete.models import Rating
from games.compete.rating import MU, SIGMA
from games.compete.selectors import game_or_404
from games.errors import Conflict
from games.guests.selectors import refuse_guest
from games.ladder import matchmaking
from games.ladder.models import LadderEntry, LadderGame, LadderMatch, LadderSlot
from games.models import SEATS_MAX, SEATS_MIN, Match, Orders, Seat
from games.services.matches import match_start, seat_numbers

log = logging.getLogger(__name__)

# A bot that misses its turns in each of its first FIRST_MATCHES ladder matches is
# taken off the ladder.
FIRST_MATCHES = 5
# Draws per round and game: a draw that finds no match costs one try.
DRAWS_PER_ROUND = 40
LADDER_TITLE = "Ladder match"
REMOVAL_TELL = "games.ladder.tasks.ladder_removal_tell_task"
OVER = (Match.Status.FINISHED, Match.Status.ABORTED)


def user_key(user_id: int) -> str:
    return f"user:{user_id}"


def bot_key(name: str) -> str:
    return f"bot:{name}"


# --- on and off -----------------------------------------------------------------------


def ladder_set(*, user: User, game: str, on: bool, now: datetime | None = None) -> LadderEntry:
    """Put the user's API bot on `game`'s ladder, or take it off. Putting it back on
    starts a fresh count of its first five ladder matches; asking for what already is
    changes nothing. Its running ladder matches play on either way."""
    game_or_404(game)
    refuse_guest(user)
    now = now or timezone.now()
    with transaction.atomic():
        entry = LadderEntry.objects.select_for_update().filter(user=user, game=game).first()
        if entry is None:
            if not on:
                return LadderEntry(user=user, game=game, on=False, joined_at=now)
            try:
                with transaction.atomic():
                    return LadderEntry.objects.create(user=user, game=game, on=True, joined_at=now)
            except IntegrityError:  # a second request of the same owner got there first
                entry = LadderEntry.objects.select_for_update().get(user=user, game=game)
        if entry.on == on:
            return entry
        entry.on = on
        fields = ["on"]
        if on:
            entry.joined_at = now
            entry.settled = False
            entry.removed_at = None
            entry.removed_reason = ""
            entry.told_at = None
            fields += ["joined_at", "settled", "removed_at", "removed_reason", "told_at"]
        entry.save(update_fields=fields)
        return entry


def ladder_set_from_page(*, user: User, game: str, on: bool) -> LadderEntry:
    """The tokens page's switch: as ladder_set, and a bot with no token cannot play."""
    if on and not user.api_tokens.filter(revoked_at__isnull=True).exists():
        raise Conflict("no_token", "Create a token first: your bot plays the ladder through it.")
    return ladder_set(user=user, game=game, on=on)


# --- the matchmaker ---------------------------------------------------------------------


def ladder_games() -> list[str]:
    """The games with an API bot on their ladder (a ladder needs one to seed a match)."""
    on = LadderEntry.objects.filter(on=True).values_list("game", flat=True).distinct()
    known = set(engine.ruleset_names())
    return sorted(g for g in on if g in known)


def slots_release() -> int:
    """Free the slots of ladder matches that are over."""
    deleted, _ = LadderSlot.objects.filter(match__status__in=OVER).delete()
    return deleted


def ladder_bots(game: str) -> list[matchmaking.Bot]:
    """Everyone on `game`'s ladder: the API bots on it (active, with a token) and the
    game's built-in bots, with their ratings and whether a slot is free."""
    users = list(
        LadderEntry.objects.filter(
            game=game, on=True, user__is_active=True, user__api_tokens__revoked_at__isnull=True
        )
        .values_list("user_id", flat=True)
        .distinct()
    )
    names = list(engine.bot_names(game))
    ratings = {
        (user_key(r.user_id) if r.user_id is not None else bot_key(r.bot)): r
        for r in Rating.objects.filter(game=game, user_id__in=users)
        | Rating.objects.filter(game=game, bot__in=names)
    }
    running = Counter(LadderSlot.objects.filter(game=game).values_list("player", flat=True))
    limit = settings.LADDER_MATCHES_PER_BOT
    keys = [(user_key(u), True) for u in users] + [(bot_key(n), False) for n in names]
    bots = []
    for key, api in keys:
        rating = ratings.get(key)
        sigma = rating.sigma if rating is not None else SIGMA
        mu = rating.mu if rating is not None else MU
        bots.append(
            matchmaking.Bot(
                key=key,
                sigma=sigma,
                conservative=mu - 3 * sigma,
                free=running[key] < limit,
                seeds=api,
            )
        )
    return bots


def _round_claim(game: str, now: datetime) -> int | None:
    """Claim the next round of `game`'s matchmaking; its number, or None when another
    process (a second beat, a repeated task) ran one within half an interval."""
    half = timedelta(seconds=settings.LADDER_INTERVAL_SECONDS / 2)
    LadderGame.objects.get_or_create(game=game, defaults={"claimed_at": now - 2 * half})
    with transaction.atomic():
        claimed = LadderGame.objects.filter(game=game, claimed_at__lte=now - half).update(
            claimed_at=now, round=F("round") + 1
        )
        if claimed != 1:
            return None
        return LadderGame.objects.get(game=game).round


def ladder_round(
    *, game: str, now: datetime | None = None, rng: random.Random | None = None
) -> list[Match]:
    """One round of `game`'s matchmaking: rated ladder matches while draws find them
    (docs/compete.md). Nothing when another process has this round."""
    now = now or timezone.now()
    rng = rng or random.Random()
    number = _round_claim(game, now)
    if number is None:
        return []
    return ladder_fill(game=game, number=number, now=now, rng=rng)


def ladder_fill(*, game: str, number: int, now: datetime, rng: random.Random) -> list[Match]:
    """The matches of round `number` (claimed by the caller): draws while they find
    matches and some API bot has a free slot. Each match takes its bots' slots, so
    even two fills at once never give a bot more than LADDER_MATCHES_PER_BOT."""
    allowed = [n for n in engine.ruleset(game).seats if SEATS_MIN <= n <= SEATS_MAX]
    made: list[Match] = []
    for _ in range(DRAWS_PER_ROUND):
        bots = ladder_bots(game)
        if not any(b.free and b.seeds for b in bots):
            break
        picked = matchmaking.draw(rng, bots, allowed)
        if picked is None:
            continue
        try:
            match = _ladder_match_create(game, number, len(made), picked, rng, now)
        except IntegrityError:
            # A slot was taken under us: another maker is at work; leave it the rest.
            log.info("ladder %s round %s: a slot was taken by another process", game, number)
            break
        if match is not None:
            made.append(match)
    return made


def _free_slot(game: str, key: str) -> int | None:
    taken = set(LadderSlot.objects.filter(game=game, player=key).values_list("number", flat=True))
    free = [n for n in range(settings.LADDER_MATCHES_PER_BOT) if n not in taken]
    return free[0] if free else None


def _ladder_match_create(
    game: str,
    number: int,
    index: int,
    picked: list[matchmaking.Bot],
    rng: random.Random,
    now: datetime,
) -> Match | None:
    """Create and start one ladder match of the picked bots, each in a seat drawn at
    random, taking a slot of each. IntegrityError (nothing made) when a slot or the
    round's index was taken by another process meanwhile."""
    options = matchmaking.options(rng, game)
    numbers = seat_numbers(len(picked), game, options)
    seated = list(picked)
    rng.shuffle(seated)
    with transaction.atomic():
        free = {b.key: _free_slot(game, b.key) for b in picked}
        slots = {key: n for key, n in free.items() if n is not None}
        if len(slots) < len(picked):
            return None
        match = Match.objects.create(
            created_by=None,
            seat_count=len(picked),
            # Bots' turn time, shorter than a person may choose (TURN_SECONDS_MIN);
            # the site's clock keeps it as any match's.
            turn_seconds=settings.LADDER_TURN_SECONDS,
            length_ms=int(options.get("length_ms", 600_000)),
            public=True,
            title=LADDER_TITLE,
            ruleset=game,
            options=options,
            rated=True,
        )
        LadderMatch.objects.create(
            match=match, game=game, round=number, index=index, created_at=now
        )
        # In one order for every maker: two fills taking slots of the same bots then
        # queue on the first, where in the draw's order each could hold a slot the
        # other waits for (a deadlock instead of the loser's IntegrityError).
        LadderSlot.objects.bulk_create(
            [
                LadderSlot(game=game, player=key, number=slot, match=match)
                for key, slot in sorted(slots.items())
            ]
        )
        for seat_number, bot in zip(numbers, seated, strict=True):
            kind, _, name = bot.key.partition(":")
            if kind == "user":
                Seat.objects.create(
                    match=match, number=seat_number, user_id=int(name), api=True, joined_at=now
                )
            else:
                Seat.objects.create(match=match, number=seat_number, bot=name, joined_at=now)
        match_start(match=match, now=now)
        return match


# --- the first five ---------------------------------------------------------------------


def _missed(match_id: int, seat: int) -> bool:
    """Whether the clock passed a turn of the seat (or a stand-in bot played it)."""
    return Orders.objects.filter(
        match_id=match_id, seat=seat, source__in=[Orders.Source.CLOCK, Orders.Source.STANDIN]
    ).exists()


def ladder_first_matches(*, now: datetime | None = None) -> list[LadderEntry]:
    """Apply the first-five rule to every bot on a ladder that has not played its turns
    in a ladder match since it joined: one that did is settled (never looked at
    again); one that missed its turns in each of its first five (finished) ladder
    matches is taken off, and its owner is emailed. The entries taken off."""
    now = now or timezone.now()
    removed = []
    for entry in LadderEntry.objects.filter(on=True, settled=False):
        seats = list(
            Seat.objects.filter(
                user_id=entry.user_id,
                match__ladder__game=entry.game,
                match__ladder__created_at__gte=entry.joined_at,
            )
            .exclude(match__status=Match.Status.ABORTED)
            .select_related("match")
            .order_by("match__ladder__created_at", "match_id")[:FIRST_MATCHES]
        )
        over = [s for s in seats if s.match.status == Match.Status.FINISHED]
        missed = [s for s in over if _missed(s.match_id, s.number)]
        if len(missed) < len(over):
            LadderEntry.objects.filter(pk=entry.pk, joined_at=entry.joined_at).update(settled=True)
        elif len(missed) == FIRST_MATCHES:
            ids = ", ".join(str(s.match_id) for s in missed)
            reason = (
                f"It missed its turns in each of its first {FIRST_MATCHES} ladder matches ({ids})."
            )
            with transaction.atomic():
                taken = LadderEntry.objects.filter(
                    pk=entry.pk, on=True, joined_at=entry.joined_at
                ).update(on=False, removed_at=now, removed_reason=reason[:200])
                if taken == 1:
                    transaction.on_commit(partial(_queue_tell, entry.pk), robust=True)
                    entry.refresh_from_db()
                    removed.append(entry)
    return removed


def _queue_tell(entry_id: int) -> None:
    # By the task's name (games/queue.py says why: the tasks import the services).
    current_app.send_task(REMOVAL_TELL, args=(entry_id,), queue=settings.EMAIL_TASK_QUEUE)


def removals_requeue(*, now: datetime | None = None) -> int:
    """Queue again the email of a removal not sent within the grace period (the broker
    was down, the worker died)."""
    now = now or timezone.now()
    grace = now - timedelta(seconds=settings.RESOLVE_GRACE_SECONDS)
    ids = list(
        LadderEntry.objects.filter(
            on=False, removed_at__lte=grace, told_at__isnull=True
        ).values_list("pk", flat=True)[:100]
    )
    for pk in ids:
        _queue_tell(pk)
    return len(ids)


def ladder_removal_tell(*, entry_id: int, now: datetime | None = None) -> bool:
    """Email the owner why their bot was taken off a ladder. Once: the send is claimed
    (told_at), and given back if the mail server refused it."""
    now = now or timezone.now()
    claimed = LadderEntry.objects.filter(
        pk=entry_id, on=False, removed_at__isnull=False, told_at__isnull=True
    ).update(told_at=now)
    if claimed != 1:
        return False
    entry = LadderEntry.objects.select_related("user").get(pk=entry_id)
    if not entry.user.email:
        return True  # the tokens page tells it
    from games import catalog

    context = {
        "user": entry.user,
        "entry": entry,
        "game_title": catalog.title(entry.game) if entry.game in catalog.names() else entry.game,
        "tokens_url": f"{settings.SITE_URL}{reverse('games:tokens')}",
        "site_name": settings.SITE_NAME,
    }
    subject = render_to_string("ladder/email/removed_subject.txt", context).strip()
    body = render_to_string("ladder/email/removed.txt", context)
    try:
        send_mail(subject, body, None, [entry.user.email])
    except Exception:
        LadderEntry.objects.filter(pk=entry_id).update(told_at=None)
        raise
    return True
