"""The arena ruleset's entry points on protocol JSON: the callables `RULESET` names."""

from __future__ import annotations

from typing import Any

from engine.arena.fog import events_view, view
from engine.arena.mapgen import new_game
from engine.arena.orders import DEFAULT_BUILD, check_step, read_build, read_header
from engine.arena.resolve import resolve_builds, resolve_step
from engine.arena.state import checked, parse
from engine.core import Applied
from engine.errors import OrdersError, ShapeError

__all__ = [
    "apply", "awaiting", "check", "default_orders", "events_view", "new_game", "scores", "view",
]  # fmt: skip


def apply(state: Any, orders: Any) -> Applied:
    """One resolution: every seat's build at once (a list), or one step of a turn."""
    current = parse(state)
    if current["over"]:
        raise OrdersError("match_over", "The match is over; no more orders are taken.")
    if current["phase"] == "build":
        return resolve_builds(current, orders if isinstance(orders, list) else [orders])
    if isinstance(orders, list):
        if len(orders) != 1:
            raise ShapeError("bad_shape", "One seat plays at a time: give one step.")
        orders = orders[0]
    return resolve_step(current, orders)


def check(state: Any, orders: Any) -> None:
    current = checked(state)
    if current["phase"] == "build":
        read_header(current, orders, "build")
        read_build(orders["build"])
        return
    seat = read_header(current, orders, "step")
    check_step(current, seat, orders["step"])


def default_orders(state: Any, seat: int) -> dict[str, Any]:
    """At the deadline: the default build in the build phase; in play, the end of the turn."""
    current = checked(state)
    if current["phase"] == "build":
        return {"seat": seat, "turn": current["turn"], "build": list(DEFAULT_BUILD)}
    return {
        "seat": seat, "turn": current["turn"], "step_no": current["step"], "step": {"type": "end"}
    }  # fmt: skip


def awaiting(state: Any) -> list[int]:
    return list(checked(state)["awaiting"])


def scores(state: Any) -> dict[str, int | float]:
    return dict(checked(state)["scores"])
