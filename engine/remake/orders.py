"""The remake's orders: one action for each of up to five vehicles, parsed from JSON.

The values (`Action`, `Orders`) and the cell and direction readers are Helium 3's;
the action table is the remake's own (remake.md "Actions").
"""

from __future__ import annotations

from typing import Any

from engine.errors import OrdersError, ShapeError
from engine.helium3.orders import Action, Cell, Orders, _cell, _direction

__all__ = ["Action", "Cell", "Orders", "parse_envelope", "parse_action", "check_count"]

MOVE_RANGE: dict[str, int] = {
    "move": 5,
    "arm_missile": 2,
    "arm_laser": 2,
    "shield": 2,
    "mine": 2,
    "fire_missile": 0,
    "fire_laser": 0,
    "deflect": 0,
    "kamikaze": 0,
}
MISSILE_RANGE = 7
MAX_ACTIONS = 5
ACTION_TYPES = tuple(MOVE_RANGE)
MOVING = ("move", "mine", "arm_missile", "arm_laser", "shield")
_FIELDS: dict[str, frozenset[str]] = {
    "move": frozenset({"to", "path"}),
    "mine": frozenset({"to", "path"}),
    "arm_missile": frozenset({"to", "path"}),
    "arm_laser": frozenset({"to", "path"}),
    # No `deflect` here: a shield's direction is a later turn's `deflect` action.
    "shield": frozenset({"to", "path"}),
    "fire_missile": frozenset({"target"}),
    "fire_laser": frozenset({"direction"}),
    "deflect": frozenset({"direction"}),
    "kamikaze": frozenset(),
}
_REQUIRED: dict[str, frozenset[str]] = {
    "move": frozenset({"to"}),
    "fire_missile": frozenset({"target"}),
    "fire_laser": frozenset({"direction"}),
    "deflect": frozenset({"direction"}),
}


def parse_envelope(data: Any) -> tuple[int, int, list[Any]]:
    """Check the orders object's own fields; returns (seat, turn, raw actions)."""
    if not isinstance(data, dict):
        raise ShapeError("bad_shape", "Orders must be a JSON object with seat, turn and actions.")
    for key in data:
        if key not in ("seat", "turn", "actions"):
            raise ShapeError("bad_shape", f"Orders have an unknown field {str(key)[:40]!r}.")
    seat, turn, actions = data.get("seat"), data.get("turn"), data.get("actions")
    if type(seat) is not int:
        raise ShapeError("bad_shape", "Orders need 'seat', the seat number you play.")
    if type(turn) is not int:
        raise ShapeError("bad_shape", "Orders need 'turn', the state's turn number.")
    if not isinstance(actions, list):
        raise ShapeError(
            "bad_shape", f"Orders need 'actions', a list of up to {MAX_ACTIONS} actions."
        )
    return seat, turn, actions


def check_count(actions: list[Any]) -> None:
    if len(actions) > MAX_ACTIONS:
        raise OrdersError(
            "too_many_actions",
            f"A turn has at most {MAX_ACTIONS} actions, one per vehicle; "
            f"{len(actions)} were given.",
        )


def parse_action(data: Any, index: int) -> Action:
    if not isinstance(data, dict):
        raise ShapeError("bad_shape", "Each action must be a JSON object.", index)
    robot, kind = data.get("robot"), data.get("type")
    if not isinstance(robot, str):
        raise ShapeError(
            "bad_shape", "An action needs 'robot', a vehicle id such as \"1-1\".", index
        )
    if not isinstance(kind, str) or kind not in MOVE_RANGE:
        raise ShapeError(
            "bad_shape", f"An action's 'type' must be one of {', '.join(ACTION_TYPES)}.", index
        )
    allowed = _FIELDS[kind]
    for key in data:
        if key not in ("robot", "type") and key not in allowed:
            hint = " (set a raised shield's direction with a later 'deflect' action)"
            extra = hint if kind == "shield" and key == "deflect" else ""
            raise ShapeError(
                "bad_shape", f"A {kind} action has no field {str(key)[:40]!r}{extra}.", index
            )
    for key in _REQUIRED.get(kind, ()):
        if key not in data:
            raise ShapeError("bad_shape", f"A {kind} action needs '{key}'.", index)
    to = _cell(data["to"], "to", index) if "to" in data else None
    path: tuple[Cell, ...] | None = None
    if "path" in data:
        raw = data["path"]
        if not isinstance(raw, list):
            raise ShapeError("bad_shape", "'path' must be a list of cells [x, y].", index)
        reach = MOVE_RANGE[kind]
        if len(raw) > reach:
            raise OrdersError(
                "out_of_range",
                f"The path has {len(raw)} steps; a {kind} moves at most {reach}.",
                index,
            )
        path = tuple(_cell(c, "path", index) for c in raw)
        if path and to is not None and path[-1] != to:
            raise ShapeError("bad_shape", "The path must end at 'to'.", index)
        if to is None and path:
            to = path[-1]
    target = _cell(data["target"], "target", index) if "target" in data else None
    direction = _direction(data["direction"], "direction", index) if "direction" in data else None
    return Action(robot, kind, to, path, None, target, direction)


def parse_orders(data: Any) -> Orders:
    seat, turn, actions = parse_envelope(data)
    check_count(actions)
    return Orders(seat, turn, tuple(parse_action(a, i) for i, a in enumerate(actions)))
