"""Reads for the archive of finished matches and the players' records.

Both only count matches the viewer may see (selectors.watchable_matches): public
ones for everybody, private ones for their players and staff. The numbers come
from the record each seat got when its match finished (games.records).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Count, Exists, OuterRef, Q, QuerySet, Sum

from games.models import Match, Seat
from games.selectors import watchable_matches


def archive_matches(
    viewer: User | AnonymousUser,
    *,
    player: str = "",
    since: date | None = None,
    until: date | None = None,
    bots: str = "",
    ruleset: str = "",
) -> QuerySet[Match]:
    """Finished matches, newest first. `bots`: "yes" with a built-in bot, "no" without;
    `ruleset`: of that game only."""
    matches = watchable_matches(viewer).filter(status=Match.Status.FINISHED)
    if ruleset:
        matches = matches.filter(ruleset=ruleset)
    if player:
        matches = matches.filter(
            Exists(Seat.objects.filter(match=OuterRef("pk"), user__username__iexact=player))
        )
    if since is not None:
        matches = matches.filter(finished_at__date__gte=since)
    if until is not None:
        matches = matches.filter(finished_at__date__lte=until)
    with_bot = Exists(Seat.objects.filter(match=OuterRef("pk")).exclude(bot=""))
    if bots == "yes":
        matches = matches.filter(with_bot)
    elif bots == "no":
        matches = matches.filter(~with_bot)
    return matches.prefetch_related("seats__user").order_by("-finished_at", "-pk")


@dataclass(frozen=True)
class PlayerRecord:
    played: int
    won: int
    mined: int
    money: int
    robots_destroyed: int
    robots_lost: int

    @property
    def win_rate(self) -> float:
        return self.won / self.played if self.played else 0.0


def player_record(viewer: User | AnonymousUser, player: User) -> PlayerRecord:
    """The player's totals over the finished matches the viewer may see."""
    seats = Seat.objects.filter(
        user=player,
        match__status=Match.Status.FINISHED,
        match__in=watchable_matches(viewer),
    )
    totals = seats.aggregate(
        played=Count("pk"),
        won=Count("pk", filter=Q(won=True)),
        mined=Sum("mined", default=0),
        money=Sum("final_money", default=0),
        robots_destroyed=Sum("robots_destroyed", default=0),
        robots_lost=Sum("robots_lost", default=0),
    )
    return PlayerRecord(**{key: int(value or 0) for key, value in totals.items()})


@dataclass(frozen=True)
class GameRecord:
    """A player's totals in one game."""

    ruleset: str
    record: PlayerRecord


def player_records_by_game(viewer: User | AnonymousUser, player: User) -> list[GameRecord]:
    """The player's totals per game over the finished matches the viewer may see, the
    game played most first (one query)."""
    rows = (
        Seat.objects.filter(
            user=player,
            match__status=Match.Status.FINISHED,
            match__in=watchable_matches(viewer),
        )
        .values("match__ruleset")
        .annotate(
            played=Count("pk"),
            won=Count("pk", filter=Q(won=True)),
            mined=Sum("mined", default=0),
            money=Sum("final_money", default=0),
            robots_destroyed=Sum("robots_destroyed", default=0),
            robots_lost=Sum("robots_lost", default=0),
        )
        .order_by("-played", "match__ruleset")
    )
    fields = ("played", "won", "mined", "money", "robots_destroyed", "robots_lost")
    return [
        GameRecord(
            ruleset=str(row["match__ruleset"]),
            record=PlayerRecord(**{key: int(row[key] or 0) for key in fields}),  # type: ignore[literal-required]
        )
        for row in rows
    ]


def player_recent_seats(viewer: User | AnonymousUser, player: User, limit: int = 20) -> list[Seat]:
    """The player's latest finished matches (as their seats), newest first."""
    return list(
        Seat.objects.filter(
            user=player,
            match__status=Match.Status.FINISHED,
            match__in=watchable_matches(viewer),
        )
        .select_related("match")
        .order_by("-match__finished_at", "-match__pk")[:limit]
    )
