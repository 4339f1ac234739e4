"""Errors the services raise. Views turn them into a form error or a 4xx page."""

from __future__ import annotations

from typing import Any

# Engine error codes that mean "right orders, wrong moment" rather than bad orders.
CONFLICT_CODES = frozenset({"not_your_turn", "stale_turn", "match_over"})


class ServiceError(Exception):
    """A use case refused: nothing was changed. `status` is the HTTP answer."""

    status = 400

    def __init__(self, code: str, message: str, action: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.action = action

    def to_json(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.action is not None:
            error["action"] = self.action
        return {"error": error}


class OrdersRejected(ServiceError):
    """The engine said the orders are illegal or malformed."""

    status = 400


class Conflict(ServiceError):
    """The request is fine but the match is not in a state to accept it."""

    status = 409


class NotAPlayer(ServiceError):
    status = 403


def from_engine_error(error: Any) -> ServiceError:
    """Wrap an engine.EngineError, keeping its protocol code, message and action."""
    code = str(getattr(error, "code", "bad_state"))
    message = str(getattr(error, "message", error))
    action = getattr(error, "action", None)
    cls = Conflict if code in CONFLICT_CODES else OrdersRejected
    return cls(code, message, action)
