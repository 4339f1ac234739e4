"""The remake's orders: one action for each of up to five vehicles, parsed from JSON.

The values (`Action`, `Orders`) and the cell and direction readers are Helium 3's;
the action table is the remake's own (remake.md "Actions").
"""

from __future__ import annotations

from typing import Any

from engine.helium3 import orders as h3
from engine.helium3.orders import Action, ActionTable, Cell, Orders

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
ACTIONS = ActionTable(
    MOVE_RANGE,
    _FIELDS,
    _REQUIRED,
    "vehicle",
    {("shield", "deflect"): " (set a raised shield's direction with a later 'deflect' action)"},
)


def parse_envelope(data: Any) -> tuple[int, int, list[Any]]:
    """Check the orders object's own fields; returns (seat, turn, raw actions)."""
    seat, turn = h3.parse_envelope(data, most=str(MAX_ACTIONS))
    return seat, turn, data["actions"]


def check_count(actions: list[Any]) -> None:
    h3.check_count(actions, MAX_ACTIONS, ", one per vehicle")


def parse_action(data: Any, index: int) -> Action:
    """Helium 3's action reader on the remake's table (a `deflect` field is refused
    on every type, so no action carries one)."""
    return h3.read_action(data, index, ACTIONS)


def parse_orders(data: Any) -> Orders:
    seat, turn, actions = parse_envelope(data)
    check_count(actions)
    return Orders(seat, turn, tuple(parse_action(a, i) for i, a in enumerate(actions)))
