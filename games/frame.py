"""A page rendered once and given to many viewers, with each viewer's own parts put
in afterwards: the frame's (the tab title's count, the header with the name, the
badges and the menu, the guest's banner) and the CSRF token.

The match page (games/views/match.py) renders its body with a slot for each of
these (SLOTS, in templates/games/match_detail.html's blocks) and keeps it in the
page cache; every answer, a fresh render or a cached one, is that body with the
requesting viewer's parts filled in. A viewer's rendered parts are kept too, under
everything they show (the counts among them), so a view of an unchanged page
renders no template at all.

Both are kept cut at their slots (`Pieces`: the text between the slots and the
slots' names in turn), so that filling a page in is one join of its pieces and the
viewer's, not a search of the whole page for each slot.
"""

from __future__ import annotations

import hashlib
import logging
import re
import secrets
from typing import Any

from django.http import HttpRequest
from django.middleware.csrf import CSRF_ALLOWED_CHARS, CSRF_SECRET_LENGTH, get_token
from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe

from games.context_processors import Frame
from helium3_site import pagecache

log = logging.getLogger(__name__)

# No page holds a NUL: Django's forms refuse them, and escaping leaves them alone.
CSRF_SLOT = b"\x00csrf\x00"
SLOTS: dict[str, bytes] = {
    "title": b"\x00frame:title\x00",
    "header": b"\x00frame:header\x00",
    "banner": b"\x00frame:banner\x00",
}
_CSRF_VALUE = re.compile(rb'(name="csrfmiddlewaretoken" value=")[^"]*(")')
# What a template rendered here gets for `csrf_token` (over the context processor's,
# which masks a new token for every {% csrf_token %}): without_csrf puts a slot in
# its place, and fill gives every answer its own token.
CSRF_STANDIN = "csrf-slot"
PARTS_SECONDS = 60
# Any slot, its name in the group: re.split gives text, name, text, name, ..., text.
_ANY_SLOT = re.compile(
    b"\x00("
    + b"|".join(re.escape(s.strip(b"\x00")) for s in (CSRF_SLOT, *SLOTS.values()))
    + b")\x00"
)
_CSRF_NAME = CSRF_SLOT.strip(b"\x00")
_FRAME_NAMES = {slot.strip(b"\x00"): name for name, slot in SLOTS.items()}
# A page or a part cut at its slots: the text before the first slot, then each
# slot's name and the text after it.
Pieces = tuple[bytes, ...]


def slots() -> dict[str, SafeString]:
    """The template's `frame_slots`: where each part goes."""
    return {name: mark_safe(slot.decode()) for name, slot in SLOTS.items()}  # noqa: S308


def without_csrf(content: bytes) -> bytes:
    """The content with each CSRF token taken out (a slot in its place)."""
    return _CSRF_VALUE.sub(rb"\g<1>" + CSRF_SLOT + rb"\g<2>", content)


def cut(content: bytes) -> Pieces:
    """A page rendered with SLOTS (and its CSRF tokens taken out) cut at its slots."""
    return tuple(_ANY_SLOT.split(content))


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
    return "frame-pieces:" + hashlib.sha256(repr(shown).encode()).hexdigest()


def parts(request: HttpRequest, frame: Frame) -> dict[str, Pieces]:
    """This viewer's parts of the frame, each cut at its CSRF tokens' slots: kept
    under everything they show, else rendered (the templates of base.html)."""
    key = _parts_key(request, frame)
    memo = pagecache.pages()
    try:
        hit = memo.get(key)
    except Exception:  # a cache that fails is a miss
        log.warning("frame parts cache unavailable", exc_info=True)
        hit = None
    if hit is not None:
        return dict(hit)
    context: dict[str, Any] = {"frame": frame, "your_move": frame, "csrf_token": CSRF_STANDIN}
    header = render_to_string("_site_header.html", context, request=request)
    banner = render_to_string("guests/_banner.html", context, request=request)
    made = {
        "title": cut(f"({frame.count}) ".encode() if frame.count else b""),
        "header": cut(without_csrf(header.encode())),
        "banner": cut(without_csrf(banner.encode())),
    }
    try:
        # As pairs: a tuple is kept as it is, not pickled (helium3_site/pagecache.py).
        memo.set(key, tuple(made.items()), PARTS_SECONDS)
    except Exception:
        log.warning("frame parts cache unavailable", exc_info=True)
    return made


def fill(request: HttpRequest, content: bytes | Pieces, frame: Frame) -> bytes:
    """A page rendered with SLOTS (and its CSRF tokens taken out), or cut at them, as
    this viewer gets it: one CSRF token for the whole answer, asked for only if the
    page or the viewer's parts have a form."""
    pieces = cut(content) if isinstance(content, bytes) else content
    own = parts(request, frame)
    out: list[bytes] = []
    token: bytes | None = None
    for index, piece in enumerate(pieces):
        if not index % 2:
            out.append(piece)
            continue
        name = _FRAME_NAMES.get(piece)
        # A frame part is text and CSRF slots in turn, as the page is.
        for at, part in enumerate(own[name] if name is not None else (b"", _CSRF_NAME, b"")):
            if not at % 2:
                out.append(part)
                continue
            if token is None:
                token = _csrf_token(request)
            out.append(token)
    return b"".join(out)


_CHARS = CSRF_ALLOWED_CHARS.encode()
_BASE = len(_CHARS)
# Random bytes below this are used (mod the alphabet's size): every character is as likely.
_FAIR = 256 - 256 % _BASE
# Translation tables, so that masking is a few calls over all the characters at once
# instead of Python's work for each: a random byte to its place in the alphabet
# (the unfair ones deleted), a place (or the sum of two, below 2 * _BASE) to its
# character, a secret's character to its place (anything else to 255).
_PLACE = bytes(b % _BASE if b < _FAIR else 0 for b in range(256))
_UNFAIR = bytes(range(_FAIR, 256))
_CHAR = bytes(_CHARS[b % _BASE] if b < 2 * _BASE else 0 for b in range(256))
_OF_CHAR = bytes(_CHARS.index(b) if b in _CHARS else 255 for b in range(256))


def _csrf_token(request: HttpRequest) -> bytes:
    """get_token(request), masked as Django masks it (django.middleware.csrf's
    _mask_cipher_secret: a random mask, then each secret character shifted by the
    mask's) from one read of the system's random source instead of a call a character.

    The shift is an addition of two numbers whose bytes are the places of the secret's
    characters and the mask's: each byte's sum is below 256, so none carries over into
    the next, and each is taken mod the alphabet's size as it is turned back into a
    character."""
    secret = request.META.get("CSRF_COOKIE")
    if not isinstance(secret, str) or len(secret) != CSRF_SECRET_LENGTH:
        return get_token(request).encode()
    places = secret.encode().translate(_OF_CHAR)
    if len(places) != CSRF_SECRET_LENGTH or 255 in places:
        return get_token(request).encode()  # not a secret Django made: its own function decides
    # As get_token: the cookie is sent again, its expiry renewed.
    request.META["CSRF_COOKIE_NEEDS_UPDATE"] = True
    mask = b""
    while len(mask) < CSRF_SECRET_LENGTH:
        mask += secrets.token_bytes(48).translate(_PLACE, _UNFAIR)
    mask = mask[:CSRF_SECRET_LENGTH]
    shifted = int.from_bytes(places) + int.from_bytes(mask)
    return (mask + shifted.to_bytes(CSRF_SECRET_LENGTH)).translate(_CHAR)
