"""Writes: rating a finished match, and recomputing a game's ratings from its matches.

A rated match changes every seat's rating once, in the transaction that finishes it
(games/services/turns.py match_finish calls `match_rate`); the RatingChange rows,
one per (match, seat), are what makes a second run change nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db import transaction

from games.compete.models import Kind, Rating, RatingChange
from games.compete.rating import rate
from games.guests.models import Guest
from games.models import Match, Seat
from games.records import standings


@dataclass(frozen=True)
class Entrant:
    seat: int
    place: int
    user: User | None
    bot: str
    api: bool


def match_entrants(match: Match) -> list[Entrant]:
    """The rated seats of a finished match with their places, or [] when the match
    is not rated: casual, not finished, a guest in it, or fewer than two accounts.

    A person's seat that a stand-in bot played, or that the clock passed, is still
    that person's, at the place it finished: a loss counts.
    """
    if not match.rated or match.status != Match.Status.FINISHED or match.state is None:
        return []
    seats = list(Seat.objects.filter(match=match).select_related("user"))
    users = [s.user_id for s in seats if s.user_id is not None]
    if users and Guest.objects.filter(user_id__in=users).exists():
        return []
    places = {s.seat: s.place for s in standings(match.state)}
    entrants = [
        Entrant(seat=s.number, place=places[s.number], user=s.user, bot=s.bot, api=s.api)
        for s in seats
        if s.number in places and (s.user is not None or s.bot)
    ]
    return entrants if len(entrants) >= 2 else []


def _ratings_for(game: str, entrants: list[Entrant]) -> list[Rating]:
    """Each entrant's rating row in `game` (created at the defaults), locked, in the
    entrants' order. The rows are locked in primary key order, so that two matches
    of the same accounts finishing at once wait for each other instead of
    deadlocking."""
    pks = []
    for entrant in entrants:
        if entrant.user is not None:
            rating, _ = Rating.objects.get_or_create(
                game=game, user=entrant.user, defaults={"kind": Kind.PERSON}
            )
        else:
            rating, _ = Rating.objects.get_or_create(
                game=game, bot=entrant.bot, defaults={"kind": Kind.BUILTIN_BOT}
            )
        pks.append(rating.pk)
    locked = {r.pk: r for r in Rating.objects.select_for_update().filter(pk__in=pks).order_by("pk")}
    ratings = [locked[pk] for pk in pks]
    for entrant, rating in zip(entrants, ratings, strict=True):
        if entrant.user is not None:
            rating.kind = Kind.API_BOT if entrant.api else Kind.PERSON
    return ratings


def match_rate(*, match: Match) -> list[RatingChange]:
    """Rate a finished rated match: every seat at once from its places (openskill's
    Plackett-Luce; equal places tie). Nothing happens for a casual match, or a match
    rated already. The caller holds the match row in its transaction (match_finish).
    """
    entrants = match_entrants(match)
    if not entrants or RatingChange.objects.filter(match=match).exists():
        return []
    finished_at = match.finished_at
    assert finished_at is not None  # a finished match has its time
    with transaction.atomic():
        ratings = _ratings_for(match.ruleset, entrants)
        after = rate([r.skill for r in ratings], [e.place for e in entrants])
        changes = []
        for entrant, rating, skill in zip(entrants, ratings, after, strict=True):
            changes.append(
                RatingChange(
                    rating=rating,
                    match=match,
                    seat=entrant.seat,
                    place=entrant.place,
                    mu_before=rating.mu,
                    sigma_before=rating.sigma,
                    mu_after=skill.mu,
                    sigma_after=skill.sigma,
                    created_at=finished_at,
                )
            )
            rating.mu, rating.sigma = skill.mu, skill.sigma
            rating.conservative = skill.conservative
            rating.matches += 1
            rating.last_played_at = finished_at
            rating.save(
                update_fields=["kind", "mu", "sigma", "conservative", "matches", "last_played_at"]
            )
        return RatingChange.objects.bulk_create(changes)


def ratings_recompute(*, game: str) -> int:
    """Rebuild `game`'s ratings by rating its finished rated matches again in the
    order they finished, from new ratings. Gives the same numbers as rating them as
    they finished did. Returns the number of matches rated."""
    rated = 0
    with transaction.atomic():
        Rating.objects.filter(game=game).delete()  # and their changes
        matches = Match.objects.filter(ruleset=game, rated=True, status=Match.Status.FINISHED)
        for match in matches.order_by("finished_at", "pk").defer("initial_state", "record"):
            rated += bool(match_rate(match=match))
    return rated
