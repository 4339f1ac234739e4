"""A finished match's results in the pages: the results table, "You came 3rd" in
the lists, and the battle clock. The wording is games.records'; these tags only
hand it what a page has (the viewer's view, the seats)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django import template
from django.template.defaultfilters import date as date_filter

import engine
from games import presentation, records, words
from games.models import Match, Seat

register = template.Library()
log = logging.getLogger(__name__)


@register.filter(expects_localtime=True, is_safe=False)
def iso_time(value: Any) -> str:
    """{{ deadline|iso_time }}: what {{ deadline|date:'c' }} gives (ISO 8601, in the
    current time zone), without the format lookup, which for 'c' (no format setting
    of that name) walks the locale's format modules on every call."""
    if value in (None, ""):
        return ""
    if isinstance(value, datetime):
        return value.isoformat()
    return str(date_filter(value, "c"))


def seat_name(seat: Seat) -> str:
    """A seat's player as the results name it: the username, or "bot miner"."""
    if seat.bot:
        return words.bot_label(seat.bot)
    if seat.user is not None:
        return seat.user.get_username()
    return ""


@dataclass(frozen=True)
class ResultRow:
    place: str
    seat: int
    name: str
    won: bool
    me: bool
    money: str  # "1,240", as the sentence writes it
    robots_left: int | None  # None: the game has no robots
    counts: str = ""  # what the game counted for the seat, in its words (games.records)
    piece: str = "robot"  # what the game calls a piece: the remake's "vehicle"

    @property
    def detail(self) -> str:
        """The seat's pieces left and what its game counted, in a line: "1 robot
        left · 20 helium mined · 3 robots destroyed · 4 robots lost" (a game without
        pieces says only its counts; the remake's pieces are vehicles)."""
        parts = []
        if self.robots_left is not None:
            noun = self.piece if self.robots_left == 1 else f"{self.piece}s"
            parts.append(f"{self.robots_left} {noun} left")
        if self.counts:
            parts.append(self.counts)
        return " · ".join(parts)


@dataclass(frozen=True)
class Results:
    rows: list[ResultRow]
    decided: str
    mine: str  # "You came 3rd", or "" for a spectator
    bots: bool  # a built-in bot plays a seat (a rematch keeps it)
    others: list[int]  # the seats of the viewer's human opponents (a rematch leaves them open)


@register.simple_tag
def match_results(view: dict[str, Any], seats: list[Seat], viewer: Seat | None) -> Results:
    """The results table of a finished match, from the viewer's view (everything is
    public once it is over) and the seats' stored records."""
    shown = presentation.get(view.get("ruleset", engine.rulesets.DEFAULT))
    by_number = {s.number: s for s in seats}
    names = {n: seat_name(s) for n, s in by_number.items()}
    table = records.standings(view)
    nobody_won = not any(s.won for s in table)
    rows = []
    mine = ""
    for standing in table:
        seat = by_number.get(standing.seat)
        me = viewer is not None and viewer.number == standing.seat
        if me:
            mine = records.result_phrase(standing, nobody_won=nobody_won)
        place = records.ordinal(standing.place)
        rows.append(
            ResultRow(
                place=f"{place} (tie)" if standing.tied else place,
                seat=standing.seat,
                name=names.get(standing.seat, ""),
                won=standing.won,
                me=me,
                money=words.number(standing.money),
                robots_left=standing.robots_left,
                counts=records.record_text(shown.name, seat.counts, scores=False) if seat else "",
                piece=shown.piece,
            )
        )
    return Results(
        rows=rows,
        decided=shown.decided(view, names),
        mine=mine,
        bots=any(s.bot for s in seats),
        others=[
            s.number for s in seats if not s.bot and (viewer is None or s.number != viewer.number)
        ],
    )


@register.simple_tag
def seat_counts(seat: Seat) -> str:
    """What the seat's game counted for it in its finished match, in the game's words:
    "1,200 money at the end · 340 helium mined · 1 robot destroyed" ("" if nothing)."""
    return records.record_text(seat.match.ruleset, seat.counts)


def _final(match: Match) -> dict[str, Any] | None:
    state = match.state
    if match.status != Match.Status.FINISHED or not isinstance(state, dict):
        return None
    return state if state.get("over") else None


@register.simple_tag
def match_result(match: Match, user: Any) -> str:
    """A finished match in a list: "You won", "You came 3rd" for one of its players,
    "Seat 2 (alice) won" for anybody else; "" while it is not finished.

    The match's seats should be prefetched (the lists do: prefetch_related).
    """
    final = _final(match)
    if final is None:
        return ""
    seats = list(match.seats.all())
    user_id = user.pk if user is not None and user.is_authenticated else None
    mine = next((s for s in seats if user_id is not None and s.user_id == user_id), None)
    try:
        if mine is None:
            return records.winner_phrase(final, {s.number: seat_name(s) for s in seats})
        return _phrase(final, mine.number, "You")
    except (KeyError, TypeError, ValueError):  # a list never fails for one odd row
        log.exception("match %s: no result to show", match.pk)
        return ""


@register.simple_tag
def seat_result(seat: Seat, viewer: Any) -> str:
    """One player's result in one finished match (a player page's row): "You won"
    for the viewer's own, "alice came 3rd" for another's."""
    final = _final(seat.match)
    if final is None:
        return ""
    own = viewer is not None and viewer.is_authenticated and viewer.pk == seat.user_id
    subject = "You" if own or seat.user is None else seat.user.get_username()
    try:
        return _phrase(final, seat.number, subject)
    except (KeyError, TypeError, ValueError):
        log.exception("match %s: no result to show", seat.match_id)
        return ""


def _phrase(final: dict[str, Any], number: int, subject: str) -> str:
    table = records.standings(final)
    standing = next((s for s in table if s.seat == number), None)
    if standing is None:
        return ""
    nobody_won = not any(s.won for s in table)
    return records.result_phrase(standing, nobody_won=nobody_won, subject=subject)


@register.simple_tag
def battle_clock(clock_ms: int | str, length_ms: int | str) -> str:
    """The battle clock's text: "4:12 of 10:00", never past its length; nothing
    before the match has a board (an open match's panel has no clock yet)."""
    if not isinstance(clock_ms, int) or not isinstance(length_ms, int):
        return ""
    return records.battle_clock_text(clock_ms, length_ms)
