"""Every error of the API is docs/protocol.md's error object: ninja's own answers (401,
validation errors, a body that is not JSON) are replaced here, and the middleware
covers what Django answers before ninja runs (405, unknown paths)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from django.core.exceptions import PermissionDenied, RequestDataTooBig
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from ninja import NinjaAPI
from ninja.errors import AuthenticationError, HttpError, ValidationError

from games.api.ratelimit import RateLimited
from games.errors import ServiceError

log = logging.getLogger(__name__)


class ApiError(Exception):
    """Refuse a request with a status and a protocol error object."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


def error_body(code: str, message: str, action: int | None = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message}
    if action is not None:
        error["action"] = action
    return {"error": error}


def error_response(status: int, code: str, message: str) -> JsonResponse:
    return JsonResponse(error_body(code, message), status=status)


def _where(loc: Any) -> str:
    parts = [str(p) for p in loc if p not in ("body", "payload", "query", "path")]
    return ".".join(parts) or "the request"


def _validation(request: HttpRequest, exc: ValidationError) -> HttpResponse:
    first = exc.errors[0] if exc.errors else {}
    where = _where(first.get("loc", ()))
    message = f"{where}: {first.get('msg', 'is not valid')}."
    return error_response(400, "bad_shape", message[:300])


def _unauthorized(request: HttpRequest, exc: AuthenticationError) -> HttpResponse:
    response = error_response(
        401,
        "unauthorized",
        "Send a valid API token: Authorization: Bearer <token> (create one on your settings page).",
    )
    response["WWW-Authenticate"] = 'Bearer realm="helium3"'
    return response


def _rate_limited(request: HttpRequest, exc: RateLimited) -> HttpResponse:
    response = error_response(
        429,
        "rate_limited",
        f"Too many requests with this token; try again in {exc.retry_after} s.",
    )
    response["Retry-After"] = str(exc.retry_after)
    return response


def _http_error(request: HttpRequest, exc: HttpError) -> HttpResponse:
    if exc.status_code == 400:  # ninja's "Cannot parse request body"
        return error_response(400, "bad_json", "The request body is not valid JSON.")
    return error_response(exc.status_code, "error", str(exc))


def _api_error(request: HttpRequest, exc: ApiError) -> HttpResponse:
    return error_response(exc.status, exc.code, exc.message)


def _service_error(request: HttpRequest, exc: ServiceError) -> HttpResponse:
    return JsonResponse(exc.to_json(), status=exc.status)


def _not_found(request: HttpRequest, exc: Http404) -> HttpResponse:
    return error_response(404, "not_found", "There is no such match.")


def _forbidden(request: HttpRequest, exc: PermissionDenied) -> HttpResponse:
    return error_response(403, "forbidden", str(exc) or "You may not see this.")


def _too_big(request: HttpRequest, exc: RequestDataTooBig) -> HttpResponse:
    return error_response(413, "too_large", "The request body is too large.")


def _unexpected(request: HttpRequest, exc: Exception) -> HttpResponse:
    # A bug, not an input: logged with its traceback, answered as an error object.
    log.exception("API error on %s %s", request.method, request.path)
    return error_response(500, "internal", "Something went wrong on our side.")


_HANDLERS: dict[type[Exception], Callable[[HttpRequest, Any], HttpResponse]] = {
    ValidationError: _validation,
    AuthenticationError: _unauthorized,
    RateLimited: _rate_limited,
    HttpError: _http_error,
    ApiError: _api_error,
    ServiceError: _service_error,
    Http404: _not_found,
    PermissionDenied: _forbidden,
    RequestDataTooBig: _too_big,
    Exception: _unexpected,
}


def install(api: NinjaAPI) -> None:
    """Replace ninja's error answers with error objects (the most specific class wins)."""
    for exc_class, handler in _HANDLERS.items():
        api.add_exception_handler(exc_class, handler)
