"""A page rendered once and given to many viewers, with each viewer's own parts put
in afterwards: the frame's (the tab title's count, the header with the name, the
badges and the menu, the guest's banner) and the CSRF token.

The match page (games/views/match.py) renders its body with a slot for each of
these (SLOTS, in templates/games/match_detail.html's blocks) and keeps it in the
page cache; every answer, a fresh render or a cached one, is that body with the
requesting viewer's parts filled in. A viewer's rendered parts are kept too, under
everything they show (the counts among them), so a view of an unchanged page
renders no template at all.
"""

from __future__ import annotations

import hashlib
import logging
import re
from typing import Any

from django.core.cache import caches
from django.http import HttpRequest
from django.middleware.csrf import get_token
from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe

from games.context_processors import Frame

log = logging.getLogger(__name__)

# No page holds a NUL: Django's forms refuse them, and escaping leaves them alone.
CSRF_SLOT = b"\x00csrf\x00"
SLOTS: dict[str, bytes] = {
    "title": b"\x00frame:title\x00",
    "header": b"\x00frame:header\x00",
    "banner": b"\x00frame:banner\x00",
}
_CSRF_VALUE = re.compile(rb'(name="csrfmiddlewaretoken" value=")[^"]*(")')
PARTS_SECONDS = 60


def slots() -> dict[str, SafeString]:
    """The template's `frame_slots`: where each part goes."""
    return {name: mark_safe(slot.decode()) for name, slot in SLOTS.items()}  # noqa: S308


def without_csrf(content: bytes) -> bytes:
    """The content with each CSRF token taken out (a slot in its place)."""
    return _CSRF_VALUE.sub(rb"\g<1>" + CSRF_SLOT + rb"\g<2>", content)


def _parts_key(request: HttpRequest, frame: Frame) -> str:
    viewer = frame.viewer
    shown = (
        viewer.pk,
        viewer.name,
        viewer.guest,
        frame.count if viewer.is_authenticated else 0,
        frame.challenges if viewer.is_authenticated else 0,
        request.resolver_match.url_name if request.resolver_match else "",
        request.get_full_path(),
    )
    return "frame-parts:" + hashlib.sha256(repr(shown).encode()).hexdigest()


def parts(request: HttpRequest, frame: Frame) -> dict[str, bytes]:
    """This viewer's parts of the frame, each with its CSRF tokens as slots: kept
    under everything they show, else rendered (the templates of base.html)."""
    key = _parts_key(request, frame)
    memo = caches["pages"]
    try:
        hit = memo.get(key)
    except Exception:  # a cache that fails is a miss
        log.warning("frame parts cache unavailable", exc_info=True)
        hit = None
    if hit is not None:
        return dict(hit)
    context: dict[str, Any] = {"frame": frame, "your_move": frame}
    header = render_to_string("_site_header.html", context, request=request)
    banner = render_to_string("guests/_banner.html", context, request=request)
    made = {
        "title": f"({frame.count}) ".encode() if frame.count else b"",
        "header": without_csrf(header.encode()),
        "banner": without_csrf(banner.encode()),
    }
    try:
        memo.set(key, made, PARTS_SECONDS)
    except Exception:
        log.warning("frame parts cache unavailable", exc_info=True)
    return made


def fill(request: HttpRequest, content: bytes, frame: Frame) -> bytes:
    """A page rendered with SLOTS (and its CSRF tokens taken out) as this viewer gets it."""
    for name, part in parts(request, frame).items():
        content = content.replace(SLOTS[name], part)
    if CSRF_SLOT in content:
        content = content.replace(CSRF_SLOT, get_token(request).encode())
    return content
