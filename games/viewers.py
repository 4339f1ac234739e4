"""Who is asking, for the two most requested URLs (the match page and its poll)
without loading the session and the user on every request.

Django's authentication reads the session row and then the user row on every
request that looks at `request.user`: two ORM queries, most of a cached match
page's cost (docs/benchmarks.md). These views need only the user's id and staff
flag, and the page's frame the user's name and whether the session is a guest's
(games/guests), so the first request of a session resolves them the usual way (the session,
the user, the session's auth hash) and remembers them, under a digest of the
session cookie, in this process's memory for VIEWER_SECONDS; later requests with
the same cookie read them from there.

What that costs: a session ended elsewhere (a password change, a user made
inactive or no longer staff, a logout in another web process) still shows that
cookie's holder the match pages and polls they could see for at most
VIEWER_SECONDS. A logout in this process forgets at once. Nothing else reads the
memo: every other view, every form and every POST authenticates as usual.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib.auth.signals import user_logged_out
from django.dispatch import receiver
from django.http import HttpRequest

from helium3_site import pagecache

log = logging.getLogger(__name__)

VIEWER_SECONDS = 30


@dataclass(frozen=True)
class Viewer:
    """The parts of a user that watching a match depends on (selectors.can_watch),
    and what the page's frame shows of them (the name, the guest's menu)."""

    pk: int | None
    is_staff: bool = False
    name: str = ""
    guest: bool = False

    @property
    def is_authenticated(self) -> bool:
        return self.pk is not None


ANONYMOUS = Viewer(None)


def _memo_key(raw_cookie: str) -> str:
    return "viewer:" + hashlib.sha256(raw_cookie.encode()).hexdigest()


def viewer_of(request: HttpRequest) -> Viewer:
    """The requesting viewer: remembered for this session cookie, or authenticated
    now (Django's own checks) and remembered."""
    raw = request.COOKIES.get(settings.SESSION_COOKIE_NAME)
    if not raw:
        return ANONYMOUS  # no session, so nobody is logged in
    key = _memo_key(raw)
    memo = pagecache.pages()
    try:
        hit = memo.get(key)
    except Exception:  # a cache that fails is a miss
        log.warning("viewer memo unavailable", exc_info=True)
        hit = None
    if hit is not None:
        return Viewer(*hit)
    user = request.user
    viewer = ANONYMOUS
    if user.is_authenticated:
        # A guest's flag is in the session (games/guests); signing up cycles the
        # session's key, so the cookie that was a guest's is never looked up again.
        from games.guests.selectors import SESSION_FLAG

        guest = bool(request.session.get(SESSION_FLAG))
        viewer = Viewer(user.pk, bool(user.is_staff), user.get_username(), guest)
    # Only a cookie that names a live session is remembered: a made-up one costs
    # its sender the two queries every time, not this process a memo entry each.
    if viewer.is_authenticated:
        try:
            memo.set(key, (viewer.pk, viewer.is_staff, viewer.name, viewer.guest), VIEWER_SECONDS)
        except Exception:
            log.warning("viewer memo unavailable", exc_info=True)
    return viewer


@receiver(user_logged_out, dispatch_uid="games.viewers.forget")
def forget_on_logout(sender: Any, request: HttpRequest | None, **kwargs: Any) -> None:
    raw = request.COOKIES.get(settings.SESSION_COOKIE_NAME) if request is not None else None
    if raw:
        try:
            pagecache.pages().delete(_memo_key(raw))
        except Exception:
            log.warning("viewer memo unavailable", exc_info=True)
