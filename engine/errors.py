"""Errors the engine raises, each carrying a protocol error code.

A malformed request (`ShapeError`), a request the rules forbid (`OrdersError`) and a
state that cannot be (`StateError`) are different kinds of wrong; the web layer and
the command line turn any of them into the protocol's error object.
"""

from __future__ import annotations

from typing import Any

CODES = frozenset(
    {
        "not_your_turn",
        "stale_turn",
        "match_over",
        "bad_json",
        "bad_shape",
        "unknown_robot",
        "not_your_robot",
        "robot_destroyed",
        "duplicate_robot",
        "too_many_actions",
        "off_board",
        "out_of_range",
        "blocked",
        "occupied",
        "not_armed",
        "not_shielded",
        "bad_direction",
        "bad_state",
        "not_your_piece",
        "duplicate_piece",
        "illegal_action",
        "bad_loadout",
        "bad_map",
        "illegal_step",
        "bad_build",
    }
)


class EngineError(Exception):
    """Base of every error the engine reports; `to_json()` is the protocol error object."""

    def __init__(self, code: str, message: str, action: int | None = None) -> None:
        if code not in CODES:
            raise ValueError(f"unknown error code {code!r}")
        super().__init__(message)
        self.code = code
        self.message = message
        self.action = action

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.action is not None:
            body["action"] = self.action
        return {"error": body}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code!r}, {self.message!r}, action={self.action!r})"


class ShapeError(EngineError):
    """The request is not the shape the protocol describes (wrong type, missing field)."""


class OrdersError(EngineError):
    """The orders are well formed but the rules forbid them."""


class StateError(EngineError):
    """The state is malformed or inconsistent."""

    def __init__(self, message: str) -> None:
        super().__init__("bad_state", message)
