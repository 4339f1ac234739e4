"""Halite matches for the site's tests: made through the services, played through them."""

from __future__ import annotations

import re
from typing import Any

from site_support import drain

import engine
from games import services
from games.models import Match, Orders, Seat

HALITE = "halite"
PIECE = re.compile(r'<use class="hl-piece seat-(\d)"[^>]*>')


def pieces(html: str) -> list[dict[str, int]]:
    """Every piece element of the board(s) in the HTML, by its data attributes."""
    found = []
    for match in PIECE.finditer(html):
        tag = match.group(0)
        attrs = dict(re.findall(r'data-(x|y|owner|strength)="(\d+)"', tag))
        found.append({k: int(v) for k, v in attrs.items()} | {"class_seat": int(match.group(1))})
    return found


def owned_cells(state: dict[str, Any]) -> dict[tuple[int, int], tuple[int, int]]:
    """(x, y) -> (owner, strength) for every owned cell of a state."""
    return {
        (x, y): (owner, state["strength"][y][x])
        for y, row in enumerate(state["owner"])
        for x, owner in enumerate(row)
        if owner
    }


def halite_match(creator: Any, *, opponent: Any = None, size: int = 20, **kwargs: Any) -> Match:
    """A running Halite match: the creator in seat 1, the opponent (a person) or the
    grower bot in seat 2."""
    bots = [] if opponent is not None else kwargs.pop("bots", ["grower"])
    match = services.match_create(
        creator=creator,
        seat_count=kwargs.pop("seat_count", 2),
        turn_seconds=kwargs.pop("turn_seconds", 3600),
        ruleset=HALITE,
        options={"width": size, "height": size},
        bots=bots,
        **kwargs,
    )
    if opponent is not None:
        services.seat_join(match_id=match.pk, user=opponent)
    match.refresh_from_db()
    assert match.status == Match.Status.RUNNING
    return match


def play_turns(match: Match, turns: int, *, emails: bool = False) -> None:
    """Every person in play passes, the bots play, for `turns` turns (or to the end)."""
    for _ in range(turns):
        drain(match, emails=emails)
        if match.status != Match.Status.RUNNING:
            return
        waiting = set(engine.awaiting(match.state))
        done = set(
            Orders.objects.filter(match=match, turn_number=match.turn_number).values_list(
                "seat", flat=True
            )
        )
        for seat in Seat.objects.filter(match=match, number__in=waiting - done, user__isnull=False):
            services.orders_submit(
                match_id=match.pk, user=seat.user, turn=match.turn_number, orders={"moves": []}
            )
        drain(match, emails=emails)
