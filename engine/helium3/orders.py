"""Orders as typed values, parsed from (and written back to) the protocol's JSON."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.errors import OrdersError, ShapeError
from engine.helium3.board import DIRECTIONS

Cell = tuple[int, int]

MOVE_RANGE: dict[str, int] = {
    "move": 6,
    "mine": 4,
    "arm_missile": 2,
    "arm_laser": 2,
    "shield": 5,
    "fire_missile": 0,
    "fire_laser": 0,
    "kamikaze": 0,
}
MISSILE_RANGE = 6
MAX_ACTIONS = 2
_FIELDS: dict[str, frozenset[str]] = {
    "move": frozenset({"to", "path"}),
    "mine": frozenset({"to", "path"}),
    "arm_missile": frozenset({"to", "path"}),
    "arm_laser": frozenset({"to", "path"}),
    "shield": frozenset({"to", "path", "deflect"}),
    "fire_missile": frozenset({"target"}),
    "fire_laser": frozenset({"direction"}),
    "kamikaze": frozenset(),
}
_REQUIRED: dict[str, frozenset[str]] = {
    "move": frozenset({"to"}),
    "fire_missile": frozenset({"target"}),
    "fire_laser": frozenset({"direction"}),
}
ACTION_TYPES = tuple(MOVE_RANGE)


@dataclass(frozen=True, slots=True)
class ActionTable:
    """A ruleset's actions: each type's reach, the fields it takes and needs, what its
    pieces are called, and hints for a field given to the wrong type."""

    move_range: dict[str, int]
    fields: dict[str, frozenset[str]]
    required: dict[str, frozenset[str]]
    piece: str
    hints: dict[tuple[str, str], str] = field(default_factory=dict)

    @property
    def types(self) -> tuple[str, ...]:
        return tuple(self.move_range)


ACTIONS = ActionTable(MOVE_RANGE, _FIELDS, _REQUIRED, "robot")


@dataclass(frozen=True, slots=True)
class Action:
    robot: str
    type: str
    to: Cell | None = None
    path: tuple[Cell, ...] | None = None
    deflect: str | None = None
    target: Cell | None = None
    direction: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"robot": self.robot, "type": self.type}
        if self.to is not None:
            out["to"] = list(self.to)
        if self.path is not None:
            out["path"] = [list(c) for c in self.path]
        if self.deflect is not None:
            out["deflect"] = self.deflect
        if self.target is not None:
            out["target"] = list(self.target)
        if self.direction is not None:
            out["direction"] = self.direction
        return out


@dataclass(frozen=True, slots=True)
class Orders:
    seat: int
    turn: int
    actions: tuple[Action, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "turn": self.turn,
            "actions": [a.to_json() for a in self.actions],
        }

    @classmethod
    def from_json(cls, data: Any) -> Orders:
        """Parse the envelope and every action; rules are checked later, by the resolver."""
        head = parse_envelope(data)
        check_count(data["actions"])
        actions = tuple(parse_action(a, i) for i, a in enumerate(data["actions"]))
        return cls(head[0], head[1], actions)


def parse_envelope(data: Any, most: str = "two") -> tuple[int, int]:
    """Check the orders object's own fields (not its actions); returns (seat, turn).

    `most` says how many actions a turn takes at most."""
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
        raise ShapeError("bad_shape", f"Orders need 'actions', a list of up to {most} actions.")
    return seat, turn


def check_count(actions: list[Any], most: int = MAX_ACTIONS, each: str = "") -> None:
    """Raise if there are more than `most` actions (`each` says who gets one)."""
    if len(actions) > most:
        raise OrdersError(
            "too_many_actions",
            f"A turn has at most {most} actions{each}; {len(actions)} were given.",
        )


def _cell(value: Any, what: str, index: int) -> Cell:
    if (
        not isinstance(value, list | tuple)
        or len(value) != 2
        or type(value[0]) is not int
        or type(value[1]) is not int
    ):
        raise ShapeError("bad_shape", f"'{what}' must be a cell [x, y] of two integers.", index)
    return (value[0], value[1])


def _direction(value: Any, what: str, index: int) -> str:
    if value not in DIRECTIONS:
        raise OrdersError(
            "bad_direction", f"'{what}' must be one of {' '.join(DIRECTIONS)}.", index
        )
    return str(value)


def parse_action(data: Any, index: int) -> Action:
    return read_action(data, index, ACTIONS)


def read_action(data: Any, index: int, table: ActionTable) -> Action:
    """One action of the JSON orders, checked against a ruleset's action table."""
    if not isinstance(data, dict):
        raise ShapeError("bad_shape", "Each action must be a JSON object.", index)
    robot, kind = data.get("robot"), data.get("type")
    if not isinstance(robot, str):
        raise ShapeError(
            "bad_shape", f"An action needs 'robot', a {table.piece} id such as \"1-1\".", index
        )
    move_range = table.move_range
    if not isinstance(kind, str) or kind not in move_range:  # a list or dict is unhashable
        raise ShapeError(
            "bad_shape", f"An action's 'type' must be one of {', '.join(table.types)}.", index
        )
    allowed = table.fields[kind]
    for key in data:
        if key not in ("robot", "type") and key not in allowed:
            extra = table.hints.get((kind, key), "")
            raise ShapeError(
                "bad_shape", f"A {kind} action has no field {str(key)[:40]!r}{extra}.", index
            )
    for key in table.required.get(kind, ()):
        if key not in data:
            raise ShapeError("bad_shape", f"A {kind} action needs '{key}'.", index)
    to = _cell(data["to"], "to", index) if "to" in data else None
    path: tuple[Cell, ...] | None = None
    if "path" in data:
        raw = data["path"]
        if not isinstance(raw, list):
            raise ShapeError("bad_shape", "'path' must be a list of cells [x, y].", index)
        reach = move_range[kind]
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
    deflect = None
    if data.get("deflect") is not None:
        deflect = _direction(data["deflect"], "deflect", index)
    target = _cell(data["target"], "target", index) if "target" in data else None
    direction = _direction(data["direction"], "direction", index) if "direction" in data else None
    return Action(robot, kind, to, path, deflect, target, direction)
