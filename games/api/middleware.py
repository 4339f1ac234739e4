"""Error objects for what Django answers under /api/v1/ before ninja runs.

Ninja answers a method a path does not have with a bare 405, and Django its own
pages for whatever else goes wrong outside an operation. A bot reads JSON, so any
error response under the API's prefix that is not JSON becomes docs/protocol.md's
error object with the same status (and the same Allow header).
"""

from __future__ import annotations

from collections.abc import Callable
from http import HTTPStatus

from django.http import HttpRequest, HttpResponse, JsonResponse

from games.api.errors import error_body

API_PREFIX = "/api/v1/"
_CODES = {404: "not_found", 405: "method_not_allowed", 413: "too_large"}


class ApiErrorBodyMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if not request.path.startswith(API_PREFIX) or response.status_code < 400:
            return response
        if response.get("Content-Type", "").startswith("application/json"):
            return response
        status = response.status_code
        try:
            phrase = HTTPStatus(status).phrase
        except ValueError:
            phrase = "Error"
        code = _CODES.get(status, "bad_request" if status < 500 else "internal")
        message = {
            404: "There is no such API path (paths end with a slash).",
            405: f"This path does not take {request.method}.",
        }.get(status, f"{phrase}.")
        replaced = JsonResponse(error_body(code, message), status=status)
        for header in ("Allow", "Retry-After", "WWW-Authenticate"):
            if header in response:
                replaced[header] = response[header]
        return replaced
