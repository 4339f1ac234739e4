"""A test ruleset with a setup phase at once, then one seat at a time: a race.

Setup: every seat picks, at the same time, a head start of 0 to 3 (orders
`{"seat", "turn", "head_start": n}`; the default is 0). Then the seats take turns
in seat order adding 1 to 3 to their own total (`{"seat", "turn", "add": n}`; 0 is
a pass, the default); the first whose total reaches `target` (option `target`,
default 15) wins. `phase` is "setup" then "race"; `scores` are the totals;
`to_move` is the seat to move in the race (null in setup and once over).

Registered only in tests, under the name "race" (see platform_rulesets.py).
"""

from __future__ import annotations

from typing import Any

from ruleset_parts import bot_rng, open_events, seed_hidden_view

from engine.core import Applied, Event, Option, Ruleset, Shape
from engine.errors import OrdersError, ShapeError, StateError


def new_game(*, seed: int, seats: int = 2, target: int = 15) -> dict[str, Any]:
    players = list(range(1, seats + 1))
    return {
        "ruleset": "race",
        "seed": seed,
        "turn": 0,
        "phase": "setup",
        "target": target,
        "players": [{"seat": s} for s in players],
        "to_move": None,
        "awaiting": players,
        "scores": {str(s): 0 for s in players},
        "over": False,
        "winners": [],
    }


def _field(state: dict[str, Any]) -> tuple[str, int]:
    """The orders' own field in this phase, and its largest value."""
    return ("head_start", 3) if state["phase"] == "setup" else ("add", 3)


def check(state: Any, orders: Any) -> None:
    if not isinstance(state, dict) or state.get("phase") not in ("setup", "race"):
        raise StateError("A race state needs its phase.")
    if state["over"]:
        raise OrdersError("match_over", "The match is over; no more orders are taken.")
    field, most = _field(state)
    if not isinstance(orders, dict) or set(orders) != {"seat", "turn", field}:
        raise ShapeError("bad_shape", f"Orders are an object with seat, turn and {field}.")
    if orders["seat"] not in state["awaiting"]:
        raise OrdersError("not_your_turn", f"Seat {orders['seat']} is not awaited.")
    if orders["turn"] != state["turn"]:
        raise OrdersError("stale_turn", f"The match is at turn {state['turn']}.")
    value = orders[field]
    if type(value) is not int or not 0 <= value <= most:
        raise OrdersError("out_of_range", f"The {field} is 0 to {most}.")


def _setup(state: dict[str, Any], orders: list[dict[str, Any]]) -> Applied:
    scores = {str(o["seat"]): o["head_start"] for o in orders}
    events: list[Event] = [
        {
            "type": "head_start",
            "t_ms": 0,
            "duration_ms": 200,
            "seat": o["seat"],
            "head_start": o["head_start"],
        }  # fmt: skip
        for o in orders
    ]
    first = state["players"][0]["seat"]
    new = dict(state, phase="race", turn=1, scores=scores, to_move=first, awaiting=[first])
    return Applied(new, events, 200)


def apply(state: Any, orders: Any) -> Applied:
    if isinstance(orders, list):
        for given in orders:
            check(state, given)
        if state["phase"] != "setup":
            raise ShapeError("bad_shape", "The race is one seat at a time.")
        return _setup(state, orders)
    check(state, orders)
    if state["phase"] == "setup":
        raise ShapeError("bad_shape", "Every seat sets up at once: give a list of orders.")
    seat = orders["seat"]
    scores = dict(state["scores"], **{str(seat): state["scores"][str(seat)] + orders["add"]})
    events: list[Event] = [
        {"type": "added", "t_ms": 0, "duration_ms": 200, "seat": seat, "add": orders["add"]}
    ]
    new = dict(state, turn=state["turn"] + 1, scores=scores)
    if scores[str(seat)] >= state["target"]:
        new.update(over=True, to_move=None, awaiting=[], winners=[seat])
        events.append({"type": "match_over", "t_ms": 200, "duration_ms": 0, "winners": [seat]})
    else:
        seats = [p["seat"] for p in state["players"]]
        after = seats[(seats.index(seat) + 1) % len(seats)]
        new.update(to_move=after, awaiting=[after])
    return Applied(new, events, 200)


def default_orders(state: Any, seat: int) -> dict[str, Any]:
    field, _ = _field(state)
    return {"seat": seat, "turn": state["turn"], field: 0}


def bot_orders(name: str, state: Any, seat: int) -> dict[str, Any]:
    field, most = _field(state)
    value = most if name == "greedy" else bot_rng(name, state, seat).randint(1, most)
    return {"seat": seat, "turn": state["turn"], field: value}


RULESET = Ruleset(
    name="race",
    title="Race",
    new_game=new_game,
    apply=apply,
    check=check,
    default_orders=default_orders,
    view=seed_hidden_view,
    events_view=open_events,
    bot_names=lambda: ["random", "greedy"],
    bot_orders=bot_orders,
    seats=(2, 3, 4),
    default_seats=2,
    options=(Option("target", "int", 15, minimum=5, maximum=99, help="the total that wins"),),
    shape=Shape(setup=True),
)
