"""Helium 3's orders as the bot API's description shows them (JSON Schema). The
engine, not this schema, decides what is well formed: the API hands it the body
exactly as sent."""

from __future__ import annotations

from typing import Any

from engine.helium3 import orders

_CELL: dict[str, Any] = {
    "type": "array",
    "items": {"type": "integer"},
    "minItems": 2,
    "maxItems": 2,
    "description": "A cell [x, y].",
}
_DIRECTION: dict[str, Any] = {
    "type": "string",
    "enum": ["N", "NE", "E", "SE", "S", "SW", "W", "NW"],
}

# The orders' own properties, besides the platform's turn, seat and step_no.
ORDERS_PROPERTIES: dict[str, Any] = {
    "actions": {
        "type": "array",
        "maxItems": 2,
        "items": {
            "type": "object",
            "required": ["robot", "type"],
            "additionalProperties": False,
            "properties": {
                "robot": {"type": "string", "description": 'Such as "1-2".'},
                "type": {"type": "string", "enum": list(orders.ACTION_TYPES)},
                "to": _CELL,
                "path": {"type": "array", "items": _CELL, "maxItems": 6},
                "deflect": _DIRECTION,
                "target": _CELL,
                "direction": _DIRECTION,
            },
        },
    },
}
