"""Reads of the bot ladder: who is on a game's ladder, its latest matches, an owner's
entries (with why a bot was taken off)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import User
from django.db.models import Prefetch

import engine
from games import catalog
from games.compete.models import BOT_PREFIX, Kind, Rating
from games.compete.rating import MU, SIGMA, shown_rating
from games.ladder.models import LadderEntry, LadderMatch, LadderSlot
from games.models import Seat

LATEST = 20


@dataclass(frozen=True)
class LadderBot:
    player: str
    kind: str
    rating: int
    provisional: bool
    matches: int
    running: int


def ladder_members(game: str) -> list[LadderBot]:
    """Everyone on `game`'s ladder, ranked as the matchmaker ranks them (mu - 3 sigma,
    provisional ratings included): its API bots and its built-in bots."""
    entries = list(
        LadderEntry.objects.filter(game=game, on=True, user__is_active=True).select_related("user")
    )
    names = list(engine.bot_names(game))
    ratings = Rating.objects.filter(game=game, user_id__in=[e.user_id for e in entries])
    ratings |= Rating.objects.filter(game=game, bot__in=names)
    by_key = {(f"user:{r.user_id}" if r.user_id else f"bot:{r.bot}"): r for r in ratings}
    running = Counter(LadderSlot.objects.filter(game=game).values_list("player", flat=True))
    rows = [(f"user:{e.user_id}", e.user.get_username(), Kind.API_BOT) for e in entries]
    rows += [(f"bot:{n}", BOT_PREFIX + n, Kind.BUILTIN_BOT) for n in names]
    members = []
    for key, player, kind in rows:
        rating = by_key.get(key)
        mu, sigma = (rating.mu, rating.sigma) if rating is not None else (MU, SIGMA)
        members.append(
            (
                -(mu - 3 * sigma),
                key,
                LadderBot(
                    player=player,
                    kind=str(kind),
                    rating=shown_rating(mu),
                    provisional=rating.provisional if rating is not None else True,
                    matches=rating.matches if rating is not None else 0,
                    running=running[key],
                ),
            )
        )
    return [m for _, _, m in sorted(members, key=lambda row: (row[0], row[1]))]


def latest_matches(game: str, limit: int = LATEST) -> list[LadderMatch]:
    """`game`'s latest ladder matches, newest first, with their match and seats."""
    seats = Prefetch("match__seats", queryset=Seat.objects.select_related("user"))
    return list(
        LadderMatch.objects.filter(game=game)
        .select_related("match")
        .prefetch_related(seats)
        .order_by("-created_at", "-match_id")[:limit]
    )


def seat_name(seat: Seat) -> str:
    if seat.bot:
        return BOT_PREFIX + seat.bot
    return seat.user.get_username() if seat.user is not None else "?"


@dataclass(frozen=True)
class OwnerLadder:
    """One game's switch on the owner's tokens page."""

    game: str
    title: str
    on: bool
    joined_at: datetime | None
    removed_at: datetime | None
    removed_reason: str


def owner_ladders(user: User) -> list[OwnerLadder]:
    entries = {e.game: e for e in LadderEntry.objects.filter(user=user)}
    rows = []
    shown = list(catalog.names())
    # A game the site does not list (a test ruleset) where the bot has an entry too.
    shown += sorted(g for g in entries if g not in shown and g in engine.ruleset_names())
    for game in shown:
        entry = entries.get(game)
        rows.append(
            OwnerLadder(
                game=game,
                title=catalog.title(game) if game in catalog.names() else game,
                on=bool(entry and entry.on),
                joined_at=entry.joined_at if entry and entry.on else None,
                removed_at=entry.removed_at if entry and not entry.on else None,
                removed_reason=entry.removed_reason if entry and not entry.on else "",
            )
        )
    return rows


def running_count(user: User, game: str) -> int:
    return LadderSlot.objects.filter(game=game, player=f"user:{user.pk}").count()
