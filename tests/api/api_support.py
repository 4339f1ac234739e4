"""Helpers for the bot API tests: a client that sends a token and JSON, tokens,
and the check that a response is docs/protocol.md's error object."""

from __future__ import annotations

from typing import Any

from django.test import Client

from games.services.tokens import token_create

API = "/api/v1"


class ApiClient(Client):
    """A test client that sends a bearer token and JSON bodies."""

    def __init__(self, token: str | None, *, headers: dict[str, str] | None = None, **kw: Any):
        sent = {"Authorization": f"Bearer {token}"} if token else {}
        super().__init__(headers={**sent, **(headers or {})}, **kw)

    def get_json(self, path: str, **kwargs: Any) -> Any:
        return self.get(API + path, **kwargs)

    def post_json(self, path: str, body: Any = None, **kwargs: Any) -> Any:
        data = "" if body is None else body
        return self.post(API + path, data, content_type="application/json", **kwargs)


def token_for(user: Any, name: str = "bot") -> str:
    return token_create(user=user, name=name)[1]


def assert_error(response: Any, status: int, code: str | None = None) -> dict[str, Any]:
    """The response is docs/protocol.md's error object with this status (and code)."""
    assert response.status_code == status, (response.status_code, response.content[:300])
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"error"}
    error = body["error"]
    assert isinstance(error["code"], str) and isinstance(error["message"], str)
    assert set(error) <= {"code", "message", "action"}
    if code is not None:
        assert error["code"] == code, error
    return error
