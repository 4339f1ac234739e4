"""The bot API: /api/v1/, its OpenAPI description at /api/v1/openapi.json and
browsable docs at /api/v1/docs."""

from __future__ import annotations

from ninja import NinjaAPI

from games.api import errors
from games.api.auth import TokenAuth
from games.api.matches import router as matches_router
from games.compete.api import router as compete_router
from games.ladder.api import router as ladder_router

DESCRIPTION = """\
Play Helium 3 from a program. Create a token on the site (Settings → API tokens) or
ask an admin for one (`python manage.py issue_token USERNAME`), then send it with
every request: `Authorization: Bearer <token>`.

Everything a player sees is that player's view of the state (docs/protocol.md): no
opponent's shield, no seed, until the match is over. Every error body is
`{"error": {"code", "message", "action"?}}`. Each token may make
`API_RATE_LIMIT` requests per `API_RATE_WINDOW_SECONDS` (120 per minute unless
the site says otherwise); one more answers 429 with `Retry-After`.
"""

api = NinjaAPI(
    title="Helium 3 bot API",
    version="1",
    description=DESCRIPTION,
    auth=TokenAuth(),
    urls_namespace="api",
    docs_url="/docs",
    openapi_url="/openapi.json",
)
errors.install(api)
api.add_router("/", matches_router)
api.add_router("/", compete_router)
api.add_router("/", ladder_router)
