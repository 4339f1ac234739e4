"""What every page's frame (templates/base.html) shows: how many matches wait for
the signed-in player's move, for the badge in the navigation and the tab title."""

from __future__ import annotations

from functools import cached_property
from typing import Any

from django.db.models import Exists, F, OuterRef, Q
from django.http import HttpRequest

from games import viewers
from games.models import AT_ONCE, Match, Orders, Seat, Turn


class YourMove:
    """The count of the viewer's seats whose turn it is, read once and only if a
    template asks for it (one query; none for a visitor without a session).

    The viewer comes from games.viewers, as on the match page and its poll, so the
    poll's fragment costs the count's query and no session lookups.
    """

    def __init__(self, request: HttpRequest) -> None:
        self._request = request

    @cached_property
    def signed_in(self) -> bool:
        return viewers.viewer_of(self._request).is_authenticated

    @cached_property
    def count(self) -> int:
        viewer = viewers.viewer_of(self._request)
        if viewer.pk is None:
            return 0
        # The lobby's "your move" (selectors.lobby_my_matches): a running match
        # whose seat to move is this player's own, not played by a stand-in bot, or
        # whose turn at once waits for this seat's orders.
        at_once = Turn.objects.filter(
            match=OuterRef("match_id"),
            number=OuterRef("match__turn_number"),
            seat=AT_ONCE,
            status=Turn.Status.WAITING,
        )
        given = Orders.objects.filter(
            match=OuterRef("match_id"),
            turn_number=OuterRef("match__turn_number"),
            seat=OuterRef("number"),
            step=0,
        )
        return (
            Seat.objects.filter(
                user_id=viewer.pk, standin_bot="", match__status=Match.Status.RUNNING
            )
            .filter(Q(match__to_move=F("number")) | (Exists(at_once) & ~Exists(given)))
            .count()
        )


def your_move(request: HttpRequest) -> dict[str, Any]:
    return {"your_move": YourMove(request)}
