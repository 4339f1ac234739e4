"""The site as an ASGI application: what `make run` and production serve (uvicorn).

Every path goes to Django's handler except the bot API's event stream, which is
served by games/api/stream_asgi.py on the event loop itself: through Django's
handler each open stream would keep a thread (asgiref gives each request one for
the site's synchronous middleware, and it lasts as long as the response).
docs/api-stream.md says why and what it costs.
"""

from __future__ import annotations

import os
from typing import Any

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "helium3_site.settings")
django_application = get_asgi_application()

# Imported once Django is set up (it reads the models).
from games.api.stream import STREAM_PATH  # noqa: E402
from games.api.stream_asgi import Receive, Scope, Send, stream_app  # noqa: E402


async def _lifespan(receive: Receive, send: Send) -> None:
    """Nothing to start or stop: the stream's threads come and go with its streams."""
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return


async def application(scope: Scope, receive: Receive, send: Send) -> Any:
    if scope["type"] == "http" and scope["path"] == STREAM_PATH:
        return await stream_app(scope, receive, send)
    if scope["type"] == "lifespan":
        return await _lifespan(receive, send)
    return await django_application(scope, receive, send)
