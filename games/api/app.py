"""The bot API: /api/v1/, its OpenAPI description at /api/v1/openapi.json and
browsable docs at /api/v1/docs."""

from __future__ import annotations

from typing import Any

from ninja import NinjaAPI
from ninja.openapi.schema import OpenAPISchema

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


class SiteApi(NinjaAPI):
    """The API, its OpenAPI description built once a process for each root path it is
    asked under: its routes and schemas are fixed once the routers are added, and
    building it took about 60 ms of CPU for every GET of /api/v1/openapi.json. The
    description given is shared: it is only read (serialized for each answer)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._descriptions: dict[str, OpenAPISchema] = {}

    def get_openapi_schema(
        self, *, path_prefix: str | None = None, path_params: dict[str, Any] | None = None
    ) -> OpenAPISchema:
        if path_prefix is None:
            path_prefix = self.get_root_path(path_params or {})
        built = self._descriptions.get(path_prefix)
        if built is None:
            built = super().get_openapi_schema(path_prefix=path_prefix)
            self._descriptions[path_prefix] = built
        return built


api = SiteApi(
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
