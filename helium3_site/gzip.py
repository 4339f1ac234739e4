"""Pages go out gzipped to a browser that asks; the bot API's answers and its event
stream go out as they are, for programs that read them line by line."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponseBase
from django.middleware.gzip import GZipMiddleware


class PageGZipMiddleware(GZipMiddleware):
    def process_response(
        self, request: HttpRequest, response: HttpResponseBase
    ) -> HttpResponseBase:
        if request.path.startswith("/api/"):
            return response
        return super().process_response(request, response)
