"""Bearer tokens: `Authorization: Bearer h3_...`. A good token makes request.auth
its ApiToken (the user is token.user) and counts against that token's rate limit."""

from __future__ import annotations

from django.http import HttpRequest
from ninja.security import HttpBearer

from games.api.ratelimit import rate_limit_hit
from games.models import ApiToken
from games.services.tokens import token_authenticate


class TokenAuth(HttpBearer):
    def authenticate(self, request: HttpRequest, token: str) -> ApiToken | None:
        found = token_authenticate(token.strip())
        if found is None:
            return None
        rate_limit_hit(f"token:{found.pk}")
        return found
