"""Reads for the archive of finished matches and the players' records.

Both only count matches the viewer may see (selectors.watchable_matches): public
ones for everybody, private ones for their players and staff. The numbers come
from the record each seat got when its match finished (games.records): won and
played for every game, and per game what that game counts (Seat.counts, the keys
its presentation's `record_fields` declare).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import BigIntegerField, Count, Exists, Max, OuterRef, Q, QuerySet, Sum
from django.db.models.fields.json import KT
from django.db.models.functions import Cast

from games import presentation
from games.models import Match, Seat
from games.presentation_shape import RecordField
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

    @property
    def win_rate(self) -> float:
        return self.won / self.played if self.played else 0.0


def player_record(viewer: User | AnonymousUser, player: User) -> PlayerRecord:
    """The player's matches and wins over the finished matches the viewer may see
    (what each game counts is per game: `player_records_by_game`)."""
    totals = _finished_seats(viewer, player).aggregate(
        played=Count("pk"), won=Count("pk", filter=Q(won=True))
    )
    return PlayerRecord(played=int(totals["played"] or 0), won=int(totals["won"] or 0))


@dataclass(frozen=True)
class Total:
    """One of a game's counts added up over a player's matches: in all, or their best."""

    field: RecordField
    value: int | None  # None: no match of theirs counted it

    @property
    def heading(self) -> str:
        return self.field.heading


@dataclass(frozen=True)
class GameRecord:
    """A player's totals in one game: played and won, and what the game counts, in the
    order its presentation declares (`record_fields`)."""

    ruleset: str
    record: PlayerRecord
    totals: list[Total] = field(default_factory=list)


def _alias(f: RecordField) -> str:
    return f"c_{f.total}_{f.key}"


def _total(f: RecordField) -> Sum | Max:
    value = Cast(KT(f"counts__{f.key}"), BigIntegerField())
    return Sum(value) if f.total == "sum" else Max(value)


def player_records_by_game(viewer: User | AnonymousUser, player: User) -> list[GameRecord]:
    """The player's totals per game over the finished matches the viewer may see, the
    game played most first (one query: every game's counts are added up by the
    database, each within its own game's rows)."""
    declared = {name: presentation.get(name).record_fields for name in presentation.names()}
    wanted = {_alias(f): f for fields in declared.values() for f in fields}
    rows = (
        _finished_seats(viewer, player)
        .values("match__ruleset")
        .annotate(
            played=Count("pk"),
            won=Count("pk", filter=Q(won=True)),
            **{alias: _total(f) for alias, f in wanted.items()},
        )
        .order_by("-played", "match__ruleset")
    )
    out = []
    for row in rows:
        values: dict[str, Any] = dict(row)
        ruleset = str(values["match__ruleset"])
        fields = declared.get(ruleset) or presentation.get(ruleset).record_fields
        totals = [Total(field=f, value=_whole(values.get(_alias(f)))) for f in fields]
        record = PlayerRecord(played=int(values["played"]), won=int(values["won"]))
        out.append(GameRecord(ruleset=ruleset, record=record, totals=totals))
    return out


def _whole(value: Any) -> int | None:
    return None if value is None else int(value)


def _finished_seats(viewer: User | AnonymousUser, player: User) -> QuerySet[Seat]:
    return Seat.objects.filter(
        user=player,
        match__status=Match.Status.FINISHED,
        match__in=watchable_matches(viewer),
    )


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
