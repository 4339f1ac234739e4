"""Invitation links for private matches: whoever opens one, signed in, takes the next
open seat; the link stops working once the match is full, has started or is over.

A link is the match's id and creation time signed with the site's secret key
(django.core.signing), so it cannot be guessed or made for another match, and it
needs no row: what it allows follows the match's status.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.core import signing
from django.urls import reverse

from games.compete.challenges import NotFound
from games.errors import Conflict
from games.models import Match, Seat
from games.services.matches import seat_join

SALT = "games.compete.invitation"


def _born(match: Match) -> int:
    # created_at too: an id that SQLite hands out again never opens the old link.
    return int(match.created_at.timestamp() * 1e6)


def invitation_token(match: Match) -> str:
    return signing.dumps([match.pk, _born(match)], salt=SALT, compress=False)


def invitation_path(match: Match) -> str:
    return reverse("compete:invitation", args=[invitation_token(match)])


def may_invite(match: Match, user: User | None) -> bool:
    """Whether the page of `match` shows `user` its invitation link: a private match
    still open, to its creator or a player seated in it."""
    if match.public or match.status != Match.Status.OPEN or user is None or user.pk is None:
        return False
    return match.created_by_id == user.pk or Seat.objects.filter(match=match, user=user).exists()


def invitation_match(token: str) -> Match:
    """The match a link invites to, whatever its status; NotFound for a link that is
    not one of ours (mistyped, cut short, or of a match that is gone)."""
    try:
        match_id, born = signing.loads(token, salt=SALT)
    except (signing.BadSignature, ValueError, TypeError):
        raise NotFound("invitation_unknown", "This invitation link is not valid.") from None
    match = Match.objects.filter(pk=match_id).defer("initial_state", "record").first()
    if match is None or _born(match) != born:
        raise NotFound("invitation_unknown", "The match of this invitation is gone.")
    return match


def invitation_closed(match: Match) -> Conflict | None:
    """Why the link no longer works (None while it does)."""
    if match.status == Match.Status.OPEN:
        return None
    if match.status == Match.Status.ABORTED:
        return Conflict("invitation_expired", "This match was called off before it began.")
    return Conflict("invitation_used", "Every seat of this match was taken and it has started.")


def invitation_accept(*, token: str, user: User) -> Seat:
    """Take the next open seat of the link's match (seat_join: the last seat taken
    starts it)."""
    match = invitation_match(token)
    closed = invitation_closed(match)
    if closed is not None:
        raise closed
    return seat_join(match_id=match.pk, user=user)
