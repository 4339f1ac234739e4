"""What every page's frame (templates/base.html) shows: how many matches wait for
the signed-in player's move, for the badge in the navigation and the tab title."""

from __future__ import annotations

from functools import cached_property
from typing import Any

from django.http import HttpRequest

from games import selectors, viewers


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
        return selectors.your_move_seats(viewer.pk).count()


def your_move(request: HttpRequest) -> dict[str, Any]:
    return {"your_move": YourMove(request)}
