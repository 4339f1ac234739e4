"""Requesting every URL as one viewer and keeping what came back, normalised only
for what is proven to differ between two identical requests (CSRF tokens)."""

from __future__ import annotations

import difflib
import itertools
import json
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user
from django.middleware.csrf import _unmask_cipher_token
from django.test import Client, override_settings
from django.utils.functional import SimpleLazyObject, empty

from games.models import Match

# Response headers that carry per-request noise: the session and CSRF cookies.
NOISY_HEADERS = {"set-cookie"}
# Production's sessions (helium3_site/settings.py, when the cache is shared).
SHARED_CACHE_SESSIONS = "django.contrib.sessions.backends.cached_db"
_TOKEN = re.compile(r"(?<![A-Za-z0-9])[A-Za-z0-9]{64}(?![A-Za-z0-9])")
_JSON_SCRIPT = re.compile(
    r"<script\b[^>]*type=[\"']application/json[\"'][^>]*>(.*?)</script>", re.S | re.I
)


@dataclass(frozen=True)
class Request:
    """One request of a crawl. `label` names it in a report and must be unique."""

    label: str
    method: str
    path: str
    key: str  # the URL pattern it should reach
    match: Match | None = field(default=None, compare=False, hash=False)
    data: Any = field(default=None, compare=False, hash=False)
    content_type: str | None = None
    headers: tuple[tuple[str, str], ...] = ()


@dataclass
class Answer:
    status: int
    headers: tuple[tuple[str, str], ...]
    body: str

    def summary(self) -> str:
        """For a diff: status, headers, and the body with one tag a line."""
        head = "\n".join(f"{k}: {v}" for k, v in self.headers)
        return f"{self.status}\n{head}\n\n" + self.body.replace("><", ">\n<")


@dataclass
class Crawl:
    answers: dict[str, Answer] = field(default_factory=dict)
    reached: set[str] = field(default_factory=set)  # pattern keys the responses came from
    errors: list[str] = field(default_factory=list)  # 5xx and exceptions
    secrets: list[str] = field(default_factory=list)  # what the direct check found


def _body(response: Any) -> bytes:
    if getattr(response, "streaming", False):
        return b"".join(response.streaming_content)
    return bytes(response.content)


def normalise(text: str, csrf_secret: str | None) -> str:
    """Replace masked CSRF tokens of this client's secret; nothing else changes."""
    if not csrf_secret:
        return text

    def mask(found: re.Match[str]) -> str:
        token = found.group(0)
        try:
            return "<csrf-token>" if _unmask_cipher_token(token) == csrf_secret else token
        except Exception:
            return token

    return _TOKEN.sub(mask, text)


def json_documents(content_type: str, text: str) -> Iterator[Any]:
    """The JSON a response carries: the body itself, or a page's JSON script blocks."""
    if content_type.startswith("application/json"):
        try:
            yield json.loads(text)
        except ValueError:
            return
    elif content_type.startswith("text/html"):
        for block in _JSON_SCRIPT.findall(text):
            try:
                yield json.loads(block)
            except ValueError:
                continue


def crawl(
    client: Client,
    requests: list[Request],
    *,
    check: Callable[[Request, Any], Iterator[str]] | None = None,
    sign_in: Callable[[Client], None] | None = None,
) -> Crawl:
    """Send every request with this client and keep the normalised answers.

    `sign_in` signs the viewer in again after a page that signed it out (allauth's
    password reset link does), so that the rest of the crawl is still the viewer's.
    """
    result = Crawl()
    for request in requests:
        extra = {f"HTTP_{k.upper().replace('-', '_')}": v for k, v in request.headers}
        try:
            if request.method == "GET":
                response = client.get(request.path, **extra)
            elif request.content_type is not None:
                response = client.generic(
                    request.method,
                    request.path,
                    request.data,
                    content_type=request.content_type,
                    **extra,
                )
            else:
                response = client.post(request.path, request.data or {}, **extra)
        except Exception as error:  # a 500 in a test client raises
            result.errors.append(f"{request.label}: raised {type(error).__name__}: {error}")
            continue
        if response.status_code >= 500:
            result.errors.append(f"{request.label}: answered {response.status_code}")
        match = getattr(response, "resolver_match", None)
        if match is not None:
            result.reached.add(f"{':'.join(match.namespaces)}:{match.route}")
        cookie = client.cookies.get("csrftoken")
        text = normalise(_body(response).decode("utf-8", "replace"), cookie and cookie.value)
        headers = tuple(
            sorted((k.lower(), v) for k, v in response.items() if k.lower() not in NOISY_HEADERS)
        )
        result.answers[request.label] = Answer(response.status_code, headers, text)
        if sign_in is not None and signed_out(response.wsgi_request):
            sign_in(client)
        if check is not None:
            found = [
                where
                for document in json_documents(response.get("Content-Type", ""), text)
                for where in check(request, document)
            ]
            if found:
                shown = ", ".join(found[:4]) + (", ..." if len(found) > 4 else "")
                result.secrets.append(f"{request.label}: {len(found)} hidden facts: {shown}")
    return result


def signed_out(request: Any) -> bool:
    """Whether the viewer, signed in when the request came, was signed out by it.

    Only what the request touched is looked at: a signed-in viewer stays signed in
    unless its session changed (a logout flushes it) or the user it loaded says
    otherwise, so a request that did neither loads no session or user here.
    """
    if request.session.modified:
        return not get_user(request).is_authenticated
    user = request.user
    if isinstance(user, SimpleLazyObject) and user._wrapped is empty:
        return False
    return not user.is_authenticated


@contextmanager
def cache_space(name: str) -> Iterator[None]:
    """Every cache under a key prefix of its own: what was cached under another name
    is not seen, and what is cached here is not seen elsewhere.

    The planted world's crawls share one space, as a site's viewers share its
    cache, so a page cached for one viewer and served to another differs from what
    the second viewer gets in the rewritten world, where each crawl has a space of
    its own that nothing cached before.

    Sessions are kept in the cache too (read from it, written through to the
    database), as production keeps them in its shared cache: a crawl's requests
    then read no session row.
    """
    spaced = {
        alias: {**config, "KEY_PREFIX": f"{config.get('KEY_PREFIX', '')}{name}:"}
        for alias, config in settings.CACHES.items()
    }
    with override_settings(CACHES=spaced, SESSION_ENGINE=SHARED_CACHE_SESSIONS):
        yield


def differences(first: Crawl, second: Crawl, *, limit: int = 12) -> list[str]:
    """Each request whose answer differs between two crawls, with a short diff."""
    found = []
    for label, answer in first.answers.items():
        other = second.answers.get(label)
        if other is None:
            found.append(f"{label}: answered in one world only")
            continue
        if other == answer:
            continue
        diff = difflib.unified_diff(
            answer.summary().splitlines(),
            other.summary().splitlines(),
            "planted world",
            "rewritten world",
            n=1,
            lineterm="",
        )
        lines = [line[:300] for line in itertools.islice(diff, 40)]
        found.append(f"{label}:\n" + "\n".join(lines))
    return found[:limit] + ([f"... and {len(found) - limit} more"] if len(found) > limit else [])
