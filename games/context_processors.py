"""What every page's frame (templates/base.html) shows of the viewer: the name and
menu, whether the session is a guest's, how many matches wait for their move (the
navigation badge and the tab title) and how many challenges wait for their answer."""

from __future__ import annotations

from functools import cached_property
from typing import Any

from django.contrib.auth.models import User
from django.http import HttpRequest

from games import selectors, viewers


class Frame:
    """The viewer's part of the page frame, each read once and only if a template
    asks for it (a count is one query; none for a visitor without a session).

    The viewer comes from games.viewers, as on the match page and its poll. The
    match page gives its viewer and both counts, read with the page's version
    (selectors.match_page_version), so its frame costs no query of its own.
    """

    def __init__(
        self,
        request: HttpRequest,
        *,
        viewer: viewers.Viewer | None = None,
        moves: int | None = None,
        challenges: int | None = None,
    ) -> None:
        self._request = request
        self._viewer = viewer
        self._moves = moves
        self._challenges = challenges

    @cached_property
    def viewer(self) -> viewers.Viewer:
        return self._viewer if self._viewer is not None else viewers.viewer_of(self._request)

    @property
    def signed_in(self) -> bool:
        return self.viewer.is_authenticated

    @cached_property
    def name(self) -> str:
        return self.viewer.name

    @cached_property
    def guest(self) -> bool:
        return self.viewer.guest

    @cached_property
    def count(self) -> int:
        """The matches waiting for the viewer's move."""
        if self._moves is not None:
            return self._moves
        if self.viewer.pk is None:
            return 0
        return selectors.your_move_count(self.viewer.pk)

    @cached_property
    def challenges(self) -> int:
        """The challenges waiting for the viewer's answer (none shown to a guest)."""
        if self._challenges is not None:
            return self._challenges
        user = self._request.user
        if self.viewer.pk is None or self.guest or not isinstance(user, User):
            return 0
        from games.compete.challenges import waiting_count

        return waiting_count(user)


def your_move(request: HttpRequest) -> dict[str, Any]:
    frame = Frame(request)
    # "your_move" is the badge's older name (games/_move_badge.html, the poll).
    return {"frame": frame, "your_move": frame}
