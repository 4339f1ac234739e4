"""The browser's side of Web Push: the service worker at the site's root, and the
settings page's opt-in and opt-out (JSON POSTs carrying the CSRF token)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.http import require_GET, require_POST

from games.errors import ServiceError
from games.webpush.services import push_subscription_delete, push_subscription_save

MAX_BODY = 4096  # a subscription is a few hundred bytes


@cache
def _worker_source() -> str:
    return (Path(__file__).parent / "push-sw.js").read_text(encoding="utf-8")


@require_GET
def service_worker(request: HttpRequest) -> HttpResponse:
    response = HttpResponse(_worker_source(), content_type="text/javascript; charset=utf-8")
    response["Service-Worker-Allowed"] = "/"
    # Browsers look for a new worker on their own; no cache may hold an old one back.
    response["Cache-Control"] = "no-cache"
    return response


class NotSignedIn(ServiceError):
    status = 403


def _user(request: HttpRequest) -> User:
    if not isinstance(request.user, User) or not request.user.is_authenticated:
        raise NotSignedIn("not_signed_in", "Sign in to get notifications.")
    return request.user


def _body(request: HttpRequest) -> object:
    if len(request.body) > MAX_BODY:
        raise ServiceError("too_big", f"A subscription is under {MAX_BODY} bytes.")
    try:
        return json.loads(request.body)
    except (ValueError, UnicodeDecodeError) as error:
        raise ServiceError("bad_json", "Send the subscription as JSON.") from error


@require_POST
def subscribe(request: HttpRequest) -> JsonResponse:
    """Opt this browser in: the body is its PushSubscription.toJSON() and "key"."""
    try:
        push_subscription_save(user=_user(request), data=_body(request))
    except ServiceError as error:
        return JsonResponse(error.to_json(), status=error.status)
    return JsonResponse({"subscribed": True}, status=201)


@require_POST
def unsubscribe(request: HttpRequest) -> JsonResponse:
    """Opt this browser out: the body is {"endpoint": ...}."""
    try:
        user = _user(request)
        data = _body(request)
        endpoint = data.get("endpoint") if isinstance(data, dict) else None
        deleted = push_subscription_delete(user=user, endpoint=endpoint)
    except ServiceError as error:
        return JsonResponse(error.to_json(), status=error.status)
    return JsonResponse({"deleted": deleted})
