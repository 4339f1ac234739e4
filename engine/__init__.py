"""Helium 3's rules engine: pure and deterministic, speaking protocol.md's JSON.

State in, orders in, new state and events out. No Django, no I/O, no clock, no
global random. Every function here dispatches on `state["ruleset"]`.
"""

from __future__ import annotations

from typing import Any

from engine import rulesets
from engine.core import Applied, Event, Ruleset
from engine.errors import EngineError, OrdersError, ShapeError, StateError

__all__ = [
    "Applied",
    "EngineError",
    "Event",
    "OrdersError",
    "Ruleset",
    "ShapeError",
    "StateError",
    "apply",
    "bot_description",
    "bot_names",
    "bot_orders",
    "events_view",
    "new_game",
    "validate",
    "view",
]


def new_game(
    *, seed: int, seats: int = 4, length_ms: int = 600_000, ruleset: str = rulesets.DEFAULT
) -> dict[str, Any]:
    """A new match's state."""
    return rulesets.get(ruleset).new_game(seed=seed, seats=seats, length_ms=length_ms)


def apply(state: Any, orders: Any) -> Applied:
    """Resolve one turn; raises EngineError (and changes nothing) if it is not legal."""
    return rulesets.of_state(state).apply(state, orders)


def validate(state: Any, orders: Any) -> None:
    """Raise EngineError unless `orders` would be accepted for `state`."""
    apply(state, orders)


def view(state: Any, seat: int | None) -> dict[str, Any]:
    """What `seat` may know of `state` (None: a spectator)."""
    return rulesets.of_state(state).view(state, seat)


def events_view(
    events: list[Event], seat: int | None, *, over: bool = False, ruleset: str = rulesets.DEFAULT
) -> list[Event]:
    """`seat`'s copy of one turn's events (None: a spectator's); everything once `over`."""
    return rulesets.get(ruleset).events_view(events, seat, over=over)


def bot_names(ruleset: str = rulesets.DEFAULT) -> list[str]:
    return rulesets.get(ruleset).bot_names()


def bot_description(name: str, ruleset: str = rulesets.DEFAULT) -> str:
    """A few words on built-in bot `name` for a person choosing an opponent ("" if none)."""
    return rulesets.get(ruleset).bot_description(name)


def bot_orders(name: str, state: Any, seat: int) -> dict[str, Any]:
    """Orders of built-in bot `name` for `seat`, from `seat`'s knowledge only."""
    return rulesets.of_state(state).bot_orders(name, state, seat)
