"""Who is a guest (reads only)."""

from __future__ import annotations

from typing import Any

from games.errors import ServiceError
from games.guests.models import Guest

# The session key that marks a guest's browser, so that every page can show the
# guest banner without a query (the session is read anyway to know the user).
SESSION_FLAG = "h3_guest"


def is_guest(user: Any) -> bool:
    """Whether this user is a guest: a Guest row stands beside it (one query)."""
    if user is None or not getattr(user, "is_authenticated", False) or user.pk is None:
        return False
    return Guest.objects.filter(user_id=user.pk).exists()


class GuestsPlayBotsOnly(ServiceError):
    """A guest asked for a seat that another person could take."""

    status = 403


def refuse_guest(user: Any) -> None:
    """Raise GuestsPlayBotsOnly if `user` is a guest: guests play against bots only."""
    if is_guest(user):
        raise GuestsPlayBotsOnly(
            "guests_play_bots_only",
            "Guests play against bots only. Sign up to play with other people.",
        )
