"""games/frame.py on its own: a page cut at its slots and filled in gives what putting
each part in its slot gives, with one CSRF token for the whole answer that Django's
own check reads back as the viewer's secret."""

from __future__ import annotations

from typing import Any

import pytest
from django.middleware.csrf import _get_new_csrf_string, _unmask_cipher_token
from django.test import RequestFactory

from games import frame


class _Frame:
    """What frame.parts reads of a Frame; the parts themselves are given below."""


def _request(secret: str | None) -> Any:
    request = RequestFactory().get("/matches/1/")
    if secret is not None:
        request.META["CSRF_COOKIE"] = secret
    return request


def _replaced(content: bytes, parts: dict[str, bytes], token: bytes) -> bytes:
    """The fill of old: each frame slot replaced in turn, then every CSRF slot."""
    for name, part in parts.items():
        content = content.replace(frame.SLOTS[name], part)
    return content.replace(frame.CSRF_SLOT, token)


PAGE = (
    b"<title>" + frame.SLOTS["title"] + b"Match 1</title>"
    b"<header>"
    + frame.SLOTS["header"]
    + b"</header>"
    + frame.SLOTS["banner"]
    + b'<form><input name="csrfmiddlewaretoken" value="'
    + frame.CSRF_SLOT
    + b'"></form>'
    b"<p>the board</p>"
    b'<form><input name="csrfmiddlewaretoken" value="' + frame.CSRF_SLOT + b'"></form>'
)
PARTS = {
    "title": b"(2) ",
    "header": b'<a>alice</a><form><input value="' + frame.CSRF_SLOT + b'"></form>',
    "banner": b"",
}


@pytest.mark.parametrize("content", [PAGE, frame.cut(PAGE)], ids=["bytes", "cut"])
def test_a_filled_page_is_the_page_with_each_part_and_one_token_in_place(content, monkeypatch):
    monkeypatch.setattr(
        frame, "parts", lambda request, shown: {k: frame.cut(v) for k, v in PARTS.items()}
    )
    secret = _get_new_csrf_string()
    request = _request(secret)
    filled = frame.fill(request, content, _Frame())  # type: ignore[arg-type]
    token = filled.split(b'value="')[1].split(b'"')[0]
    assert filled == _replaced(PAGE, PARTS, token)
    assert filled.count(token) == 3 and b"\x00" not in filled
    assert _unmask_cipher_token(token.decode()) == secret
    # As get_token: the cookie goes out again, its expiry renewed.
    assert request.META["CSRF_COOKIE_NEEDS_UPDATE"] is True


def test_a_page_without_a_form_asks_for_no_token(monkeypatch):
    monkeypatch.setattr(frame, "parts", lambda request, shown: {"title": (b"",)})
    request = _request(None)
    page = b"<title>" + frame.SLOTS["title"] + b"x</title>"
    assert frame.fill(request, frame.cut(page), _Frame()) == b"<title>x</title>"  # type: ignore[arg-type]
    assert "CSRF_COOKIE" not in request.META


def test_each_token_is_masked_afresh_and_unmasks_to_the_secret():
    secret = _get_new_csrf_string()
    tokens = set()
    for _ in range(200):
        token = frame._csrf_token(_request(secret)).decode()
        assert len(token) == 64 and token.isalnum() and token.isascii()
        assert _unmask_cipher_token(token) == secret
        tokens.add(token)
    assert len(tokens) == 200


def test_without_a_csrf_cookie_the_token_is_djangos_new_one():
    request = _request(None)
    token = frame._csrf_token(request).decode()
    assert _unmask_cipher_token(token) == request.META["CSRF_COOKIE"]
