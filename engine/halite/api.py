"""The halite ruleset's entry points, on typed values and on protocol JSON."""

from __future__ import annotations

from typing import Any

from engine.core import Applied
from engine.errors import OrdersError, ShapeError
from engine.halite.mapgen import generate
from engine.halite.orders import Orders, parse_envelope, read_moves
from engine.halite.resolve import TURN_MS, Event, expand, resolve
from engine.halite.state import MAX_SIZE, MIN_SIZE, SEAT_COUNTS, Header, State, peek

DEFAULT_SIZE = 30

__all__ = ["new_state", "play", "read_orders"]


def new_state(
    seed: int, seats: int = 2, width: int = DEFAULT_SIZE, height: int = DEFAULT_SIZE
) -> State:
    """A fresh match: the seed's board, one cell of strength 255 for each seat."""
    if type(seed) is not int:
        raise ShapeError("bad_shape", "The seed must be a whole number.")
    if type(seats) is not int or seats not in SEAT_COUNTS:
        raise ShapeError("bad_shape", "A Halite match has 2 to 6 seats.")
    for name, size in (("width", width), ("height", height)):
        if type(size) is not int or not MIN_SIZE <= size <= MAX_SIZE:
            raise ShapeError("bad_shape", f"The {name} is {MIN_SIZE} to {MAX_SIZE} cells.")
    board = generate(seed, width, height, seats)
    owner = [0] * (board.width * board.height)
    for seat, i in enumerate(board.starts, start=1):
        owner[i] = seat
    return State(
        seed, board.width, board.height, owner, board.strength, board.production, seats,
        territory_total=[1] * seats,
    )  # fmt: skip


def read_orders(state: Header, data: Any) -> Orders:
    """One seat's orders, checked in the order a player would want to hear it."""
    if state.over:
        raise OrdersError("match_over", "The match is over; no more orders are taken.")
    seat, turn, moves = parse_envelope(data)
    if seat not in state.awaiting:
        raise OrdersError("not_your_turn", f"Seat {seat} is not in play.")
    if turn != state.turn:
        raise OrdersError(
            "stale_turn", f"These orders are for turn {turn}; the match is at turn {state.turn}."
        )
    return Orders(seat, turn, read_moves(moves, seat, state.owner, state.width, state.height))


def play(state: State, orders: list[Orders]) -> tuple[State, list[Event]]:
    """Resolve typed orders (one per awaited seat) on a typed state."""
    moves: dict[int, int] = {}
    for given in orders:
        moves.update(given.moves)
    return resolve(state, moves)


# -- the ruleset interface, on protocol JSON ----------------------------------------------


def new_game(
    *, seed: int, seats: int = 2, width: int = DEFAULT_SIZE, height: int = DEFAULT_SIZE
) -> dict[str, Any]:
    return new_state(seed, seats, width, height).to_json()


def apply(state: Any, orders: Any) -> Applied:
    """Resolve one turn: `orders` lists every awaited seat's orders, in seat order (a
    single orders object is taken when one seat is awaited). Each seat's orders are
    checked as `check` checks them, in order, before the rest of the state is read
    (the engine leaves that to this function: `apply_checks_orders`)."""
    header = peek(state)
    given = orders if isinstance(orders, list) else [orders]
    parsed = [read_orders(header, o) for o in given]
    current = State.from_json(state)
    seats = [o.seat for o in parsed]
    awaited = current.awaiting
    if seats != awaited:
        order = ", ".join(str(s) for s in awaited)
        raise ShapeError(
            "bad_shape", f"Give one orders object for each of seats {order}, in that order."
        )
    new, events = play(current, parsed)
    return Applied(new.to_json(), events, TURN_MS)


def check(state: Any, orders: Any) -> None:
    """Raise EngineError unless these orders would be accepted now (nothing changes)."""
    read_orders(peek(state), orders)


def default_orders(state: Any, seat: int) -> dict[str, Any]:
    """A seat that gave no orders passes: every piece stays still."""
    return {"seat": seat, "turn": peek(state).turn, "moves": []}


def awaiting(state: Any) -> list[int]:
    """The state's `awaiting` (every seat still in play; [] once over), read as `check`
    reads it; the whole state is checked when the turn resolves."""
    return peek(state).awaiting[:]


def scores(state: Any) -> dict[str, int | float]:
    return dict(State.from_json(state).scores())


def view(state: Any, seat: int | None) -> dict[str, Any]:
    """Halite hides nothing: every seat and every spectator sees the state, plus "viewer"."""
    current = State.from_json(state)
    if seat is not None and (type(seat) is not int or not 1 <= seat <= current.seats):
        raise ShapeError("bad_shape", f"Seat {seat!r} does not play in this match.")
    players = [{"seat": s} for s in range(1, current.seats + 1)]
    return {**state, "players": players, "viewer": seat}


def events_view(events: list[Event], seat: int | None, *, over: bool = False) -> list[Event]:
    """Every event is public: every viewer reads the turn's events piece by piece (the
    engine records them grouped by kind: `resolve.expand`)."""
    return expand(events)
