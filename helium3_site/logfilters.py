"""Filters of the site's log (settings.LOGGING)."""

from __future__ import annotations

import logging


class RefusalOneLine(logging.Filter):
    """A refusal (a 4xx answer) is one line in the log, whatever raised it.

    Django's request log attaches the exception to its "Forbidden (Permission
    denied)" line, so every routine 403 (an outsider on a private match) wrote a
    whole PermissionDenied traceback; the 404s and 400s never had one. A server
    error (5xx) keeps its traceback: that one is somebody's bug.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        status = getattr(record, "status_code", None)
        if isinstance(status, int) and 400 <= status < 500 and record.exc_info:
            record.exc_info = None
            record.exc_text = None
        return True
