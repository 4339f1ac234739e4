"""The site as an ASGI application: what `make run` serves, and production's stream
process (uvicorn; Procfile).

Every path goes to Django's handler except the bot API's event stream, which is
served by games/api/stream_asgi.py on the event loop itself: through Django's
handler each open stream would keep a thread (asgiref gives each request one for
the site's synchronous middleware, and it lasts as long as the response).
docs/api-stream.md says why and what it costs.
"""

from __future__ import annotations

import os
import warnings
from typing import Any

from asgiref.sync import ThreadSensitiveContext, sync_to_async
from django.core.asgi import get_asgi_application
from django.db import connections

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "helium3_site.settings")
django_application = get_asgi_application()

# WhiteNoise answers a static file with a synchronous file iterator, which Django's
# ASGI handler reads whole before sending, warning each time. Static files are small
# and, in production, served by the pages' WSGI server: the warning says nothing.
warnings.filterwarnings(
    "ignore",
    message="StreamingHttpResponse must consume synchronous iterators",
    module="django.core.handlers.asgi",
)

# Imported once Django is set up (it reads the models).
from games.api.stream import STREAM_PATH  # noqa: E402
from games.api.stream_asgi import Receive, Scope, Send, stream_app  # noqa: E402
from games.push.asgi import PUSH_PATH, push_app  # noqa: E402


async def _lifespan(receive: Receive, send: Send) -> None:
    """Nothing to start or stop: the stream's threads come and go with its streams."""
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return


async def _django(scope: Scope, receive: Receive, send: Send) -> None:
    """Django's handler, then the request's database connections closed.

    Under ASGI each request's synchronous code runs on a thread of its own, which
    ends with the request: a connection kept for reuse (CONN_MAX_AGE) would stay
    open until garbage collection, never reused. Django's documentation says to
    turn persistent connections off under ASGI; this does so here alone, leaving
    gunicorn's (and the stream's own threads') as they are. The context is entered
    here so that the close runs on the request's thread (Django's own, inside
    it, then does nothing: asgiref lets the outermost one decide).
    """
    async with ThreadSensitiveContext():
        try:
            await django_application(scope, receive, send)
        finally:
            await sync_to_async(connections.close_all)()


async def application(scope: Scope, receive: Receive, send: Send) -> Any:
    if scope["type"] == "http" and scope["path"] == STREAM_PATH:
        return await stream_app(scope, receive, send)
    if scope["type"] == "http" and scope["path"] == PUSH_PATH:
        # The pages' push channel (docs/push.md), also on the event loop itself.
        return await push_app(scope, receive, send)
    if scope["type"] == "lifespan":
        return await _lifespan(receive, send)
    return await _django(scope, receive, send)
