"""Guests: created on "Play now", claimed on sign-up, cleaned up after a week.

A guest is a real User (unusable password, no email) with a Guest row beside it.
Guests play against bots only: the match services refuse them seats that other
people could take (games/services/matches.py asks is_guest).
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from games.guests.models import Guest, Showcase
from games.models import Match, Seat

log = logging.getLogger(__name__)

GUEST_PREFIX = "guest-"
# An unclaimed guest and its matches are deleted this long after it was created.
GUEST_LIFETIME = timedelta(days=7)
# A showcase match that ended is kept this long (it is a public match like any
# other), then deleted: the showcase plays one every ten minutes or so.
SHOWCASE_KEEP = timedelta(days=1)
CLEANUP_BATCH = 500


def guest_create() -> User:
    """A new guest: a User named guest-<random>, no email, an unusable password."""
    for _ in range(5):
        username = GUEST_PREFIX + secrets.token_hex(4)
        try:
            with transaction.atomic():
                user = User.objects.create_user(username=username, email="", password=None)
                Guest.objects.create(user=user)
        except IntegrityError:
            continue  # the name was taken: draw another
        return user
    raise RuntimeError("could not find a free guest name")  # 2**32 names: never in practice


def guest_claim(*, user: User) -> bool:
    """The guest became an account (sign-up filled in its name, email and password):
    the guest flag goes, everything else stays. True if it was a guest."""
    deleted, _ = Guest.objects.filter(user=user).delete()
    return deleted > 0


def guest_delete(*, user_id: int) -> int:
    """Delete a guest and the matches only it played in (with bots); returns how
    many matches went. A seat it held in a match with other people (there should
    be none) is freed, as deleting any user frees it."""
    with transaction.atomic():
        guest = Guest.objects.select_for_update().filter(user_id=user_id).first()
        if guest is None:
            return 0  # claimed in the meantime
        others = Seat.objects.filter(user__isnull=False).exclude(user_id=user_id)
        mine = Match.objects.filter(Q(seats__user_id=user_id) | Q(created_by_id=user_id))
        only_mine = mine.exclude(pk__in=others.values("match_id")).distinct()
        matches = list(only_mine.values_list("pk", flat=True))
        Match.objects.filter(pk__in=matches).delete()
        User.objects.filter(pk=user_id).delete()
        return len(matches)


@dataclass(frozen=True)
class CleanupReport:
    guests: int = 0
    matches: int = 0
    showcases: int = 0


def guests_cleanup(*, now: datetime | None = None) -> CleanupReport:
    """Delete the guests nobody claimed within GUEST_LIFETIME, with their matches,
    and the showcase matches that ended more than SHOWCASE_KEEP ago."""
    now = now or timezone.now()
    expired = list(
        Guest.objects.filter(created_at__lt=now - GUEST_LIFETIME).values_list("user_id", flat=True)[
            :CLEANUP_BATCH
        ]
    )
    matches = sum(guest_delete(user_id=user_id) for user_id in expired)
    old = Showcase.objects.filter(live=False, match__finished_at__lt=now - SHOWCASE_KEEP)
    old_matches = list(old.values_list("match_id", flat=True)[:CLEANUP_BATCH])
    Match.objects.filter(pk__in=old_matches).delete()
    if expired or old_matches:
        log.info(
            "cleanup: %d guests, %d of their matches, %d showcases",
            len(expired),
            matches,
            len(old_matches),
        )
    return CleanupReport(guests=len(expired), matches=matches, showcases=len(old_matches))
