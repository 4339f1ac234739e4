"""/api/v1/: the ninja API, then a JSON 404 for every other path under it (so that
no path under the prefix falls through to the site's HTML pages or to
APPEND_SLASH's redirect, which cannot redirect a POST)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, JsonResponse
from django.urls import path, re_path
from django.views.decorators.csrf import csrf_exempt

from games.api.app import api
from games.api.errors import error_body
from games.api.stream import stream_view


@csrf_exempt
def not_found(request: HttpRequest, *args: Any, **kwargs: Any) -> JsonResponse:
    message = "There is no such API path (paths end with a slash)."
    return JsonResponse(error_body("not_found", message), status=404)


urlpatterns = [
    path("stream/", stream_view, name="api-stream"),
    path("", api.urls),
    re_path(r"", not_found, name="api-not-found"),
]
