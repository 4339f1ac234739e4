"""A rematch: the same match once more, from a new seed."""

from __future__ import annotations

from datetime import datetime

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from games.errors import Conflict, NotAPlayer
from games.guests.selectors import refuse_guest
from games.models import Match, Seat
from games.services.matches import match_start

_UNDER_WAY = (Match.Status.OPEN, Match.Status.RUNNING, Match.Status.PAUSED)


def match_rematch(*, match_id: int, user: User) -> Match:
    """A new match like a finished one: same game, options (a 10 x 10 map, the
    rounds), size, settings, title and bots in the same seats, and `user` in their old seat. The seats of the other people are left
    open for them (or anybody) to join; with no seat open it starts at once, from a
    new seed (match_start).

    Once one player asked, the others' Rematch takes them to that match, in their
    old seat if it is still open, and a second click gives the same match again.
    """
    with transaction.atomic():
        # The old match's row lock: two players asking at once make one rematch.
        old = Match.objects.select_for_update().get(pk=match_id)
        seats = list(Seat.objects.filter(match=old).order_by("number"))
        mine = next((s for s in seats if s.user_id == user.pk), None)
        if mine is None:
            raise NotAPlayer("not_a_player", "Only a player of this match can ask for a rematch.")
        if old.status != Match.Status.FINISHED:
            raise Conflict("not_finished", "A rematch is for a finished match.")
        if not all(s.bot for s in seats if s.pk != mine.pk):
            refuse_guest(user)  # a rematch with other people: guests play bots only
        now = timezone.now()
        asked = _rematch_asked(old, seats, user, mine.number, now)
        if asked is not None:
            return asked
        match = Match.objects.create(
            created_by=user,
            seat_count=old.seat_count,
            turn_seconds=old.turn_seconds,
            length_ms=old.length_ms,
            ruleset=old.ruleset,
            options=dict(old.options or {}),
            rated=old.rated,
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
            match_start(match=match, now=now, started_by=user)
        return match


def _rematch_asked(
    old: Match, seats: list[Seat], user: User, number: int, now: datetime
) -> Match | None:
    """The rematch of `old` a player of it made already, if one is under way: `user`
    sits in it already, or takes their old seat there (the last seat taken starts
    it). None if there is none, or its seat is taken by somebody else.

    A rematch is told by what it copies: made by a player of `old` since `old`
    finished, with the same game, options and settings and the same bots in the
    same seats.
    """
    if old.finished_at is None:
        return None
    bots = {s.number: s.bot for s in seats if s.bot}
    candidates = (
        Match.objects.select_for_update()
        .filter(
            status__in=_UNDER_WAY,
            created_by_id__in=[s.user_id for s in seats if s.user_id is not None],
            created_at__gte=old.finished_at,
            seat_count=old.seat_count,
            turn_seconds=old.turn_seconds,
            length_ms=old.length_ms,
            ruleset=old.ruleset,
            public=old.public,
            title=old.title,
        )
        .order_by("created_at", "pk")
    )
    for match in candidates:
        if match.options != old.options:
            continue  # another match of the same game (a 30 x 30 map, not a 10 x 10)
        there = list(Seat.objects.filter(match=match))
        if {s.number: s.bot for s in there if s.bot} != bots:
            continue
        if any(s.user_id == user.pk for s in there):
            return match
        seat = next((s for s in there if s.number == number), None)
        if match.status != Match.Status.OPEN or seat is None or not seat.is_free:
            continue
        Seat.objects.filter(pk=seat.pk).update(user=user, joined_at=now)
        if not any(s.is_free for s in there if s.pk != seat.pk):
            match_start(match=match, now=now, started_by=user)
        return match
    return None
