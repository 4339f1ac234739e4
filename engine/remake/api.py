"""The helium3-remake ruleset's entry points, on typed values and on protocol JSON."""

from __future__ import annotations

import random
from typing import Any

from engine.core import Applied
from engine.errors import OrdersError, ShapeError
from engine.helium3 import api as h3
from engine.helium3.api import check_turn, starting_robots
from engine.helium3.mapgen import HEIGHT, SEATS_FOR, WIDTH
from engine.remake.fog import events_view, view
from engine.remake.mapgen import generate_helium
from engine.remake.orders import Orders, parse_orders
from engine.remake.resolve import Event, masked, resolve
from engine.remake.state import DEFAULT_ROUNDS, MAX_ROUNDS, MIN_ROUNDS, State

__all__ = ["bot_rng", "events_view", "masked", "new_state", "play", "view"]


def new_state(seed: int, seats: int = 4, rounds: int = DEFAULT_ROUNDS) -> State:
    """A fresh match: the seed's helium, five vehicles in an L in each seat's corner."""
    # No inactive immunity: every vehicle is in play (`active`) from the start.
    robots = starting_robots(seed, seats, active=True)
    if type(rounds) is not int or not MIN_ROUNDS <= rounds <= MAX_ROUNDS:
        raise ShapeError("bad_shape", f"A match lasts {MIN_ROUNDS} to {MAX_ROUNDS} rounds.")
    return State(
        seed=seed,
        width=WIDTH,
        height=HEIGHT,
        helium=generate_helium(seed),
        money={s: 0 for s in SEATS_FOR[seats]},
        robots=robots,
        ruleset="helium3-remake",
        rounds=rounds,
    )


def play(state: State, orders: Orders) -> tuple[State, list[Event], int]:
    """Resolve typed orders on a typed state (the fast path used by bots and benches)."""
    check_turn(state, orders.seat, orders.turn)
    return resolve(state, orders)


def read_orders(state: State, data: Any) -> Orders:
    """Parse orders for `state`, checking in the order a player would want to hear it."""
    if state.over:
        raise OrdersError("match_over", "The match is over; no more orders are taken.")
    orders = parse_orders(data)
    check_turn(state, orders.seat, orders.turn)
    return orders


def bot_rng(name: str, state: State, seat: int) -> random.Random:
    """A bot's randomness: fixed by the match seed, the turn and the seat."""
    return h3.bot_rng(f"remake:{name}", state, seat)


# -- the ruleset interface, on protocol JSON ----------------------------------------------


def new_game(*, seed: int, seats: int = 4, rounds: int = DEFAULT_ROUNDS) -> dict[str, Any]:
    return new_state(seed, seats, rounds).to_json()


def apply(state: Any, orders: Any) -> Applied:
    current = State.from_json(state)
    if isinstance(orders, list) and len(orders) == 1:
        orders = orders[0]  # a list of one: the one seat awaited
    new, events, turn_ms = resolve(current, read_orders(current, orders))
    return Applied(new.to_json(), events, turn_ms)


def check(state: Any, orders: Any) -> None:
    """Raise EngineError unless these orders would be accepted now (nothing changes)."""
    current = State.from_json(state)
    resolve(current, read_orders(current, orders))


def default_orders(state: Any, seat: int) -> dict[str, Any]:
    """A seat that gave no orders passes."""
    current = State.from_json(state)
    return Orders(seat, current.turn, ()).to_json()


def awaiting(state: Any) -> list[int]:
    return State.from_json(state).awaiting


def scores(state: Any) -> dict[str, int | float]:
    return dict(State.from_json(state).scores)
