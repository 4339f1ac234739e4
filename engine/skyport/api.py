"""Skyport's ruleset interface on protocol JSON: new game, check, apply, views."""

from __future__ import annotations

from typing import Any

from engine.core import Applied
from engine.errors import ShapeError
from engine.skyport.fog import events_view, view
from engine.skyport.orders import read_actions, read_envelope, read_loadout
from engine.skyport.resolve import resolve_loadouts, resolve_turn
from engine.skyport.state import DEFAULT_ROUNDS, State, checked, copy_state, new_state, parse

__all__ = [
    "DEFAULT_LOADOUT", "DEFAULT_MAP", "apply", "awaiting", "check", "default_orders",
    "events_view", "new_game", "scores", "view",
]  # fmt: skip

DEFAULT_MAP = "generated"
DEFAULT_LOADOUT = ["laser", "mortar"]


def new_game(
    *, seed: int, seats: int = 2, rounds: int = DEFAULT_ROUNDS, map: str = DEFAULT_MAP
) -> dict[str, Any]:
    return new_state(seed, seats, rounds, map)


def _resolve(state: State, orders: Any) -> Applied:
    """Resolve on `state`, a parsed copy of its own."""
    if state["phase"] == "loadout":
        given = orders if isinstance(orders, list) else [orders]
        loadouts: dict[int, list[str]] = {}
        for one in given:
            seat, loadout = read_envelope(state, one)
            loadouts[seat] = read_loadout(loadout)
        if list(loadouts) != state["awaiting"]:
            seats = ", ".join(str(s) for s in state["awaiting"])
            raise ShapeError(
                "bad_shape", f"Give one orders object for each of seats {seats}, in that order."
            )
        events, turn_ms = resolve_loadouts(state, loadouts)
        return Applied(state, events, turn_ms)
    if isinstance(orders, list):
        if len(orders) != 1:
            raise ShapeError("bad_shape", "One seat plays at a time: give one orders object.")
        orders = orders[0]
    seat, actions = read_envelope(state, orders)
    events, turn_ms = resolve_turn(state, seat, read_actions(actions))
    return Applied(state, events, turn_ms)


def apply(state: Any, orders: Any) -> Applied:
    """One resolution: every seat's loadout at once (a list in seat order), then one
    seat's turn of up to three actions. Nothing changes when the orders are refused."""
    return _resolve(parse(state), orders)


def check(state: Any, orders: Any) -> None:
    """Raise EngineError unless this seat's orders would be accepted now."""
    current = checked(state)
    if current["phase"] == "loadout" and not current["over"]:
        read_envelope(current, orders)
        read_loadout(orders["loadout"])
        return
    _resolve(copy_state(current), orders)


def default_orders(state: Any, seat: int) -> dict[str, Any]:
    """A seat that gave no orders: the first two weapons in the loadout phase, then a
    turn with no action (which costs 10 points)."""
    current = checked(state)
    if current["phase"] == "loadout":
        return {"seat": seat, "turn": current["turn"], "loadout": DEFAULT_LOADOUT[:]}
    return {"seat": seat, "turn": current["turn"], "actions": []}


def awaiting(state: Any) -> list[int]:
    seats: list[int] = checked(state)["awaiting"]
    return seats[:]


def scores(state: Any) -> dict[str, int | float]:
    return dict(checked(state)["scores"])
