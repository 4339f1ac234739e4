"""Helium 3's rules engine: pure and deterministic, speaking docs/protocol.md's JSON.

State in, orders in, new state and events out. No Django, no I/O, no clock, no
global random. Every function here dispatches on `state["ruleset"]` (or a ruleset's
name), and holds what every ruleset shares: the options of a new game, the list of
orders of a simultaneous turn, the `step_no` of a turn made of steps.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine import rulesets
from engine.core import Applied, Event, Option, OptionError, OptionValue, Ruleset, Shape
from engine.errors import EngineError, OrdersError, ShapeError, StateError

__all__ = [
    "Applied",
    "EngineError",
    "Event",
    "Option",
    "OptionError",
    "OptionValue",
    "OrdersError",
    "Ruleset",
    "Shape",
    "ShapeError",
    "StateError",
    "apply",
    "awaiting",
    "bot_description",
    "bot_names",
    "bot_orders",
    "check",
    "default_orders",
    "events_view",
    "new_game",
    "options",
    "ruleset",
    "ruleset_names",
    "scores",
    "step",
    "validate",
    "view",
]


def ruleset(name: str = rulesets.DEFAULT) -> Ruleset:
    """The registered ruleset `name` (StateError if there is none)."""
    return rulesets.get(name)


def ruleset_names() -> list[str]:
    """Every registered ruleset's name, the default first."""
    return rulesets.names()


def options(name: str = rulesets.DEFAULT) -> tuple[Option, ...]:
    """The options a new game of ruleset `name` takes (`--option NAME=VALUE`)."""
    return rulesets.get(name).options


def new_game(
    *,
    seed: int,
    seats: int | None = None,
    length_ms: int | None = None,
    ruleset: str = rulesets.DEFAULT,
    options: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A new match's state. `seats` defaults to the ruleset's usual count; `options`
    are checked against the ruleset's (ShapeError on an unknown name or a bad value),
    defaults filled in. `length_ms` is the `length_ms` option, for the rulesets that
    have one (Helium 3's battle length); the others have no battle clock and ignore it.
    """
    rules = rulesets.get(ruleset)
    given = dict(options or {})
    if length_ms is not None and any(o.name == "length_ms" for o in rules.options):
        given.setdefault("length_ms", length_ms)
    values = rules.resolve_options(given)
    count = rules.default_seats if seats is None else seats
    if type(count) is not int or count not in rules.seats:
        counts = ", ".join(str(n) for n in rules.seats)
        raise ShapeError("bad_shape", f"A {rules.name} match has {counts} seats.")
    return rules.new_game(seed=seed, seats=count, **values)


def awaiting(state: Any) -> list[int]:
    """The seats whose orders the next resolution needs, in seat order; [] once over."""
    return rulesets.of_state(state).awaiting(state)


def scores(state: Any) -> dict[str, int | float]:
    """What the game ranks by, per seat: {"<seat>": number}."""
    return rulesets.of_state(state).scores(state)


def step(state: Any) -> int:
    """The state's step within the current turn (0 for a ruleset whose turns have none)."""
    rules = rulesets.of_state(state)
    if not rules.shape.steps:
        return 0
    value = state.get("step")
    if type(value) is not int or value < 0:
        raise StateError("The state needs 'step', the number of steps taken this turn.")
    return value


def _check_step(rules: Ruleset, state: Any, orders: Any) -> None:
    """A step's orders may say which step they are; a repeated or late post is stale."""
    if not rules.shape.steps or not isinstance(orders, dict) or "step_no" not in orders:
        return
    if orders.get("seat") not in rules.awaiting(state):
        return  # the ruleset says whose turn it is, or that the match is over
    given = orders["step_no"]
    if type(given) is not int:
        raise ShapeError("bad_shape", "'step_no' must be the state's step number.")
    current = step(state)
    if given != current:
        raise OrdersError(
            "stale_turn", f"These orders are for step {given}; the turn is at step {current}."
        )


def check(state: Any, orders: Any) -> None:
    """Raise EngineError unless this one seat's `orders` would be accepted now.

    It never needs another seat's orders: in a simultaneous turn each seat's orders
    are checked on their own, as the site stores them.
    """
    rules = rulesets.of_state(state)
    _check_step(rules, state, orders)
    rules.check(state, orders)


def validate(state: Any, orders: Any) -> None:
    """The same as `check` (its older name)."""
    check(state, orders)


def _seat_of(orders: Any, what: str) -> int:
    seat = orders.get("seat") if isinstance(orders, dict) else None
    if type(seat) is not int:
        raise ShapeError("bad_shape", f"{what} must be an object with 'seat', a seat number.")
    return seat


def _check_list(state: Any, given: list[Any], awaited: list[int]) -> None:
    """One orders object per awaited seat, in seat order, each acceptable on its own."""
    seats = [
        _seat_of(orders, f"Item {n + 1} of the list of orders") for n, orders in enumerate(given)
    ]
    for seat in seats:
        if seat not in awaited:
            raise OrdersError("not_your_turn", f"Seat {seat} is not awaited this turn.")
        if seats.count(seat) > 1:
            raise ShapeError("bad_shape", f"Seat {seat} appears twice in the list of orders.")
    missing = [s for s in awaited if s not in seats]
    if missing:
        raise ShapeError(
            "bad_shape",
            f"Orders for seat {missing[0]} are missing; give its default orders if it sent none.",
        )
    if seats != awaited:
        order = ", ".join(str(s) for s in awaited)
        raise ShapeError("bad_shape", f"Give the orders in seat order: {order}.")


def apply(state: Any, orders: Any) -> Applied:
    """Resolve one turn (or step); raises EngineError (and changes nothing) if it is not legal.

    `orders` is one orders object when one seat is awaited; when several are, a list
    with one orders object per awaited seat, in seat order (a list of one is fine too).
    """
    rules = rulesets.of_state(state)
    if isinstance(orders, list):
        awaited = rules.awaiting(state)
        if not awaited:
            raise OrdersError("match_over", "The match is over; no more orders are taken.")
        if not orders:
            raise ShapeError("bad_shape", "The list of orders is empty.")
        _check_list(state, orders, awaited)
        if len(awaited) == 1:
            orders = orders[0]
        else:
            if not rules.apply_checks_orders:
                for given in orders:
                    check(state, given)
            return rules.apply(state, list(orders))
    elif (
        isinstance(orders, dict)
        and (rules.shape.simultaneous or rules.shape.setup)
        and len(awaited := rules.awaiting(state)) > 1
    ):
        seat = _seat_of(orders, "Orders")
        if seat not in awaited:
            raise OrdersError("not_your_turn", f"Seat {seat} is not awaited this turn.")
        seats = ", ".join(str(s) for s in awaited)
        raise ShapeError(
            "bad_shape", f"Seats {seats} are all awaited: give a list of their orders."
        )
    _check_step(rules, state, orders)
    return rules.apply(state, orders)


def default_orders(state: Any, seat: int) -> dict[str, Any]:
    """The orders of awaited `seat` when it gave none by the deadline: a pass."""
    rules = rulesets.of_state(state)
    awaited = rules.awaiting(state)
    if not awaited:
        raise OrdersError("match_over", "The match is over; no more orders are taken.")
    if seat not in awaited:
        raise OrdersError("not_your_turn", f"Seat {seat} is not awaited this turn.")
    return rules.default_orders(state, seat)


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
