"""Who may see or act on a match: one helper per object, raising 404 or
PermissionDenied, and the refusal page a service's error becomes."""

from __future__ import annotations

import logging

from django.contrib.auth.models import User
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from games import selectors
from games.errors import ServiceError
from games.models import Match, Seat

log = logging.getLogger(__name__)


def signed_in_user(request: HttpRequest) -> User:
    """The signed-in user (every view that calls this is behind login_required)."""
    assert isinstance(request.user, User)
    return request.user


def may_watch(request: HttpRequest, match: Match, seat: Seat | None) -> HttpResponse | None:
    """None if the viewer may see the match (selectors.can_watch); otherwise the
    answer: the login page for an anonymous visitor (a player may just be logged
    out), PermissionDenied (403) for anybody else."""
    if selectors.can_watch(match, request.user, seat):
        return None
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    raise PermissionDenied("This match is private to its players.")


def match_for(request: HttpRequest, match_id: int) -> tuple[Match, Seat | None]:
    """The match and the viewer's seat in it (None: a spectator). 404 if no match,
    403 if it is another's private match. Without the replay columns (as big as the
    state): no page these views render needs them."""
    match = get_object_or_404(Match.objects.defer("initial_state", "record"), pk=match_id)
    seat = selectors.seat_of(match, request.user)
    if not selectors.can_watch(match, request.user, seat):
        raise PermissionDenied("This match is private to its players.")
    return match, seat


def player_seat(request: HttpRequest, match_id: int) -> tuple[Match, Seat]:
    match, seat = match_for(request, match_id)
    if seat is None:
        raise PermissionDenied("You do not play in this match.")
    return match, seat


def refused(request: HttpRequest, error: ServiceError, match: Match | None = None) -> HttpResponse:
    return render(
        request, "games/error.html", {"error": error, "match": match}, status=error.status
    )
