"""Skyport's orders (skyport.md "State, orders, views"): the envelope (seat, turn and
the phase's field), a loadout, and the shape of a turn's actions. Whether an action is
allowed on the board is known only by playing the turn (resolve.py), each action on the
board the previous one leaves."""

from __future__ import annotations

from typing import Any

from engine.errors import OrdersError, ShapeError
from engine.skyport.state import WEAPONS, State

ACTIONS_PER_TURN = 3
_FIELDS = {
    "move": {"direction"},
    "mine": set(),
    "upgrade": {"weapon"},
    "laser": {"direction"},
    "mortar": {"target"},
    "droid": {"sequence"},
}


def read_envelope(state: State, orders: Any) -> tuple[int, Any]:
    """The seat and its orders' own field, checked against the state's phase and turn."""
    if state["over"]:
        raise OrdersError("match_over", "The match is over; no more orders are taken.")
    field = "loadout" if state["phase"] == "loadout" else "actions"
    if not isinstance(orders, dict) or set(orders) != {"seat", "turn", field}:
        raise ShapeError("bad_shape", f"Orders are an object with seat, turn and {field}.")
    seat, turn = orders["seat"], orders["turn"]
    if type(seat) is not int or type(turn) is not int:
        raise ShapeError("bad_shape", "seat and turn are whole numbers.")
    if seat not in state["awaiting"]:
        raise OrdersError("not_your_turn", f"Seat {seat} is not awaited.")
    if turn != state["turn"]:
        raise OrdersError(
            "stale_turn", f"These orders are for turn {turn}; the match is at turn {state['turn']}."
        )
    return seat, orders[field]


def read_actions(data: Any) -> list[dict[str, Any]]:
    """The actions' shape (a list of up to three objects with their fields)."""
    if not isinstance(data, list):
        raise ShapeError("bad_shape", "actions is a list of up to three actions.")
    if len(data) > ACTIONS_PER_TURN:
        raise OrdersError("too_many_actions", "A turn has at most three actions.")
    for i, action in enumerate(data):
        kind = action.get("type") if isinstance(action, dict) else None
        if not isinstance(kind, str) or kind not in _FIELDS:
            kinds = ", ".join(_FIELDS)
            raise ShapeError(
                "bad_shape", f"Action {i + 1} is an object whose type is one of {kinds}.", i
            )
        want = _FIELDS[action["type"]]
        if set(action) != want | {"type"}:
            fields = ", ".join(sorted(want)) or "no other field"
            raise ShapeError("bad_shape", f"Action {i + 1} ({action['type']}) takes {fields}.", i)
        kind = action["type"]
        if kind in ("move", "laser") and not isinstance(action["direction"], str):
            raise ShapeError("bad_shape", f"Action {i + 1}: direction is a string.", i)
        if kind == "upgrade" and not isinstance(action["weapon"], str):
            raise ShapeError("bad_shape", f"Action {i + 1}: weapon is a string.", i)
        target = action.get("target")
        if kind == "mortar" and (
            not isinstance(target, list)
            or len(target) != 2
            or any(type(v) is not int for v in target)
        ):
            raise ShapeError("bad_shape", f"Action {i + 1}: target is an offset [dj, dk].", i)
        sequence = action.get("sequence")
        if kind == "droid" and (
            not isinstance(sequence, list) or any(not isinstance(d, str) for d in sequence)
        ):
            raise ShapeError("bad_shape", f"Action {i + 1}: sequence is a list of directions.", i)
    return data


def read_loadout(data: Any) -> list[str]:
    if (
        not isinstance(data, list)
        or len(data) != 2
        or any(w not in WEAPONS for w in data)
        or data[0] == data[1]
    ):
        raise OrdersError(
            "bad_loadout", "A loadout is two different weapons of laser, mortar, droid."
        )
    return list(data)
