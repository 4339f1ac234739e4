"""Rated matches of the test ruleset rps, played through the services."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from site_support import drain

from games import services
from games.models import Match


def rps_match(
    users: Sequence[Any], throws: Sequence[str | None], *, bots: Sequence[str] = (), **kw: Any
) -> Match:
    """A one-round rps match: users[0] creates it, the others join, bots fill the
    last seats; each user throws throws[i] (None passes). Returns it finished."""
    match = services.match_create(
        creator=users[0],
        seat_count=len(users) + len(bots),
        ruleset="rps",
        options={"rounds": 1},
        turn_seconds=3600,
        bots=[""] * (len(users) - 1) + list(bots),
        **kw,
    )
    for user in users[1:]:
        services.seat_join(match_id=match.pk, user=user)
    match.refresh_from_db()
    for user, throw in zip(users, throws, strict=True):
        services.orders_submit(
            match_id=match.pk, user=user, turn=match.turn_number, orders={"throw": throw}
        )
    drain(match)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED, match.status
    return match
