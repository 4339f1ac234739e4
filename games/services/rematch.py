"""A rematch: the same match once more, from a new seed."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from games.errors import Conflict, NotAPlayer
from games.models import Match, Seat
from games.services.matches import match_start


def match_rematch(*, match_id: int, user: User) -> Match:
    """A new match like a finished one: same size, settings, title and bots in the
    same seats, and `user` in their old seat. The seats of the other people are left
    open for them (or anybody) to join; with no seat open it starts at once, from a
    new seed (match_start).
    """
    with transaction.atomic():
        old = Match.objects.select_for_update().get(pk=match_id)
        seats = list(Seat.objects.filter(match=old).order_by("number"))
        mine = next((s for s in seats if s.user_id == user.pk), None)
        if mine is None:
            raise NotAPlayer("not_a_player", "Only a player of this match can ask for a rematch.")
        if old.status != Match.Status.FINISHED:
            raise Conflict("not_finished", "A rematch is for a finished match.")
        now = timezone.now()
        match = Match.objects.create(
            created_by=user,
            seat_count=old.seat_count,
            turn_seconds=old.turn_seconds,
            length_ms=old.length_ms,
            ruleset=old.ruleset,
            public=old.public,
            title=old.title,
        )
        for seat in seats:
            if seat.pk == mine.pk:
                Seat.objects.create(
                    match=match, number=seat.number, user=user, joined_at=now, api=seat.api
                )
            elif seat.bot:
                Seat.objects.create(match=match, number=seat.number, bot=seat.bot, joined_at=now)
            else:
                Seat.objects.create(match=match, number=seat.number)
        if all(s.bot for s in seats if s.pk != mine.pk):
            match_start(match=match, now=now)
        return match
