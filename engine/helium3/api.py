"""The helium3 ruleset's entry points, on typed values and on protocol JSON."""

from __future__ import annotations

import random
from typing import Any

from engine.core import Applied, Option
from engine.errors import OrdersError, ShapeError, StateError
from engine.helium3 import fog
from engine.helium3.mapgen import FACING, HEIGHT, SEATS_FOR, SPAWNS, WIDTH, generate_helium
from engine.helium3.orders import Orders, check_count, parse_action, parse_envelope
from engine.helium3.resolve import Event, masked, resolve
from engine.helium3.state import Robot, State

__all__ = [
    "bot_rng", "check_to_move", "check_turn", "masked", "new_state", "play", "starting_robots",
]  # fmt: skip

DEFAULT_LENGTH_MS = 600_000


def new_state(seed: int, seats: int = 4, length_ms: int = DEFAULT_LENGTH_MS) -> State:
    """A fresh match: the seed's map, five inactive robots in an L in each seat's corner."""
    robots = starting_robots(seed, seats)
    if type(length_ms) is not int or length_ms < 1:
        raise ShapeError("bad_shape", "The battle length must be a positive number of ms.")
    return State(
        seed=seed,
        width=WIDTH,
        height=HEIGHT,
        helium=generate_helium(seed),
        money={s: 0 for s in SEATS_FOR[seats]},
        robots=robots,
        length_ms=length_ms,
    )


def starting_robots(seed: int, seats: int, *, active: bool = False) -> list[Robot]:
    """Five robots in an L in each seat's corner, once the seed is an integer and
    there are 2, 3 or 4 seats."""
    if type(seed) is not int:
        raise ShapeError("bad_shape", "The seed must be an integer.")
    if seats not in SEATS_FOR:
        raise ShapeError("bad_shape", "A match has 2, 3 or 4 seats.")
    return [
        Robot(id=f"{s}-{n}", seat=s, x=x, y=y, facing=FACING[s], active=active)
        for s in SEATS_FOR[seats]
        for n, (x, y) in enumerate(SPAWNS[s], start=1)
    ]


def parse_orders(state: State, data: Any) -> Orders:
    """Parse orders for `state`, checking in the order a player would want to hear it."""
    if state.over:
        raise OrdersError("match_over", "The match is over; no more orders are taken.")
    seat, turn = parse_envelope(data)
    check_turn(state, seat, turn)
    actions = data["actions"]
    check_count(actions)
    return Orders(seat, turn, tuple(parse_action(a, i) for i, a in enumerate(actions)))


def play(state: State, orders: Orders) -> tuple[State, list[Event], int]:
    """Resolve typed orders on a typed state (the fast path used by bots and benches)."""
    if state.over or orders.seat != state.to_move or orders.turn != state.turn:
        check_turn(state, orders.seat, orders.turn)  # raises the error that applies
    return resolve(state, orders)


def check_to_move(state: State, seat: int) -> None:
    """Raise unless the match runs and `seat` is the one to move."""
    if state.over:
        raise OrdersError("match_over", "The match is over; no more orders are taken.")
    if seat != state.to_move:
        raise OrdersError("not_your_turn", f"It is seat {state.to_move}'s turn, not seat {seat}'s.")


def check_turn(state: State, seat: int, turn: int) -> None:
    """Raise unless orders of `seat` for `turn` are the ones the match waits for."""
    check_to_move(state, seat)
    if turn != state.turn:
        raise OrdersError(
            "stale_turn", f"These orders are for turn {turn}; the match is at turn {state.turn}."
        )


def bot_rng(name: str, state: State, seat: int) -> random.Random:
    """A bot's randomness: fixed by the match seed, the turn and the seat."""
    return random.Random(f"{name}:{state.seed}:{state.turn}:{seat}")


# -- the ruleset interface, on protocol JSON ----------------------------------------------


def new_game(*, seed: int, seats: int = 4, length_ms: int = DEFAULT_LENGTH_MS) -> dict[str, Any]:
    return new_state(seed, seats, length_ms).to_json()


def apply(state: Any, orders: Any) -> Applied:
    current = State.from_json(state)
    new, events, turn_ms = resolve(current, parse_orders(current, orders))
    return Applied(new.to_json(), events, turn_ms)


def view(state: Any, seat: int | None) -> dict[str, Any]:
    return fog.seat_view(State.from_json(state), seat)


def events_view(events: list[Event], seat: int | None, *, over: bool = False) -> list[Event]:
    return fog.events_view(events, seat, over=over)


def check(state: Any, orders: Any) -> None:
    """Raise EngineError unless `orders` would be accepted: the whole validation of
    `apply` (an action's legality depends on the board the previous one leaves)."""
    current = State.from_json(state)
    resolve(current, parse_orders(current, orders))


def default_orders(state: Any, seat: int) -> dict[str, Any]:
    """A pass: the seat's turn with no action."""
    current = State.from_json(state)
    return Orders(seat, current.turn).to_json()


def awaiting(state: Any) -> list[int]:
    """The seat to move, or no one once over (Helium 3's state says it as `to_move`).

    Read from those two fields alone: the site asks it on every page, and `apply`
    checks the whole state anyway."""
    over = state.get("over") if isinstance(state, dict) else None
    to_move = state.get("to_move") if isinstance(state, dict) else None
    if over is True:
        return []
    if over is not False or type(to_move) is not int:
        raise StateError("A running match needs 'to_move', the seat to move.")
    return [to_move]


def scores(state: Any) -> dict[str, int | float]:
    """Each seat's money, what Helium 3 ranks by."""
    current = State.from_json(state)
    return {str(seat): money for seat, money in current.money.items()}


OPTIONS = (
    Option(
        "length_ms",
        "int",
        DEFAULT_LENGTH_MS,
        minimum=1,
        help="the battle's length in ms of the turns' timelines",
    ),
)
