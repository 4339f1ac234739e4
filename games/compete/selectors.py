"""Reads: leaderboards, a player's ratings and history, a match's rating changes."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import connection
from django.db.models import BooleanField, QuerySet
from django.db.models.expressions import RawSQL
from django.utils import timezone

import engine
from games.compete.models import BOT_PREFIX, Kind, Rating, RatingChange
from games.compete.rating import PROVISIONAL_SIGMA
from games.errors import ServiceError
from games.models import Match


class UnknownPlayer(ServiceError):
    status = 404


class UnknownGame(ServiceError):
    status = 404


def game_or_404(game: str) -> str:
    if game not in engine.ruleset_names():
        known = ", ".join(engine.ruleset_names())
        raise UnknownGame("unknown_game", f"There is no game {game[:40]!r}; known: {known}.")
    return game


@dataclass(frozen=True)
class Account:
    """A rated account by its public name: a User, or a built-in bot ("bot:fighter")."""

    name: str
    user: User | None = None
    bot: str = ""

    def ratings(self) -> QuerySet[Rating]:
        if self.user is not None:
            return Rating.objects.filter(user=self.user)
        return Rating.objects.filter(bot=self.bot)


def account_by_name(name: str) -> Account:
    """The account shown as `name`; UnknownPlayer (404) if there is none. A built-in
    bot's name is "bot:<name>" ("bot:" is never part of a username)."""
    if name.startswith(BOT_PREFIX):
        bot = name[len(BOT_PREFIX) :]
        if any(bot in engine.bot_names(r) for r in engine.ruleset_names()):
            return Account(name=name, bot=bot)
    else:
        user = get_user_model().objects.filter(username=name, is_active=True).first()
        if user is not None:
            return Account(name=user.get_username(), user=user)
    raise UnknownPlayer("unknown_player", f"There is no player {name[:40]!r}.")


def active_since(now: datetime | None = None) -> datetime:
    """Ratings not played since then are off the leaderboards (RATING_ACTIVE_DAYS)."""
    return (now or timezone.now()) - timedelta(days=settings.RATING_ACTIVE_DAYS)


def leaderboard(game: str, kind: str = "", *, now: datetime | None = None) -> QuerySet[Rating]:
    """Who is ranked in `game`, best first: settled ratings (not provisional) played
    within RATING_ACTIVE_DAYS, of one `kind` or all, by mu - 3 sigma.

    The sigma condition is the partial indexes' (rating_board, rating_board_kind),
    so this is an index scan in rank order, not a sort of the table.
    """
    rows = Rating.objects.filter(
        game=game, sigma__lte=PROVISIONAL_SIGMA, last_played_at__gte=active_since(now)
    )
    if kind:
        rows = rows.filter(kind=kind)
    return rows.select_related("user").order_by("-conservative", "pk")


def leaderboard_rank(rating: Rating, kind: str = "", *, now: datetime | None = None) -> int | None:
    """`rating`'s rank on its game's leaderboard (of `kind`), None when not on it: one
    more than the ratings ahead of it, a higher score or the same and a smaller id."""
    board = leaderboard(rating.game, kind, now=now)
    if not board.filter(pk=rating.pk).exists():
        return None
    return board.filter(_ahead_of(rating)).count() + 1


def _ahead_of(rating: Rating) -> RawSQL:
    """Ahead of `rating` in rank order, as one row comparison: (conservative, -id) >
    (its score, -its id). PostgreSQL takes the score as a bound of rating_board's
    (game, conservative DESC, id, last_played_at) and counts the entries before the
    rating's by an index-only scan; the same condition written as "higher, or equal
    and a smaller id" (an OR) was two bitmap scans and a visit of every table page
    holding a rating ahead (docs/benchmarks.md, the ratings' figures)."""
    table = connection.ops.quote_name(Rating._meta.db_table)
    return RawSQL(
        f"({table}.conservative, -{table}.id) > (%s, %s)",
        (rating.conservative, -rating.pk),
        output_field=BooleanField(),
    )


def rating_of(game: str, user: User) -> Rating | None:
    return Rating.objects.filter(game=game, user=user).select_related("user").first()


def match_rating_changes(match: Match) -> dict[int, RatingChange]:
    """Each seat's rating change in a finished rated match ({} otherwise, no query)."""
    if not match.rated or match.status != Match.Status.FINISHED:
        return {}
    return {c.seat: c for c in RatingChange.objects.filter(match=match)}


def rating_history(rating: Rating) -> list[RatingChange]:
    """Every change of one rating, oldest first."""
    return list(rating.changes.order_by("created_at", "pk"))


def recent_changes(account: Account, limit: int = 20) -> list[RatingChange]:
    """The account's last rated matches (every game), newest first, with their match."""
    if account.user is not None:
        rows = RatingChange.objects.filter(rating__user=account.user)
    else:
        rows = RatingChange.objects.filter(rating__bot=account.bot)
    return list(rows.select_related("match", "rating").order_by("-created_at", "-pk")[:limit])


KINDS = [k.value for k in Kind]
