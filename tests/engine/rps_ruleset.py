"""A test ruleset whose every turn is simultaneous: rock-paper-scissors.

Every seat throws at once each round; a throw scores a point for each other seat's
throw it beats; after `rounds` rounds (option `rounds`, default 3) the highest score
wins (ties share). Orders: `{"seat", "turn", "throw": "rock" | "paper" | "scissors"
| null}` (null: a pass, which beats nothing and is beaten by nothing). The state
carries `awaiting` (every seat, until over), `scores`, and `last`: the throws of
the round just resolved. There is nothing hidden in the state: a seat's throw is
secret only until the round resolves, which is the site's business (it stores
each seat's orders until the last one arrives).

Registered only in tests, under the name "rps" (see platform_rulesets.py).
"""

from __future__ import annotations

from typing import Any

from ruleset_parts import bot_rng, open_events, seed_hidden_view

from engine.core import Applied, Event, Option, Ruleset, Shape
from engine.errors import OrdersError, ShapeError, StateError

THROWS = ("rock", "paper", "scissors")
BEATS = {"rock": "scissors", "paper": "rock", "scissors": "paper"}


def new_game(*, seed: int, seats: int = 2, rounds: int = 3) -> dict[str, Any]:
    players = list(range(1, seats + 1))
    return {
        "ruleset": "rps",
        "seed": seed,
        "turn": 0,
        "rounds": rounds,
        "players": [{"seat": s} for s in players],
        "awaiting": players,
        "scores": {str(s): 0 for s in players},
        "last": {},
        "over": False,
        "winners": [],
    }


def _state(state: Any) -> dict[str, Any]:
    if not isinstance(state, dict) or not isinstance(state.get("awaiting"), list):
        raise StateError("An rps state needs the awaited seats.")
    return state


def check(state: Any, orders: Any) -> None:
    current = _state(state)
    if current["over"]:
        raise OrdersError("match_over", "The match is over; no more orders are taken.")
    if not isinstance(orders, dict) or set(orders) != {"seat", "turn", "throw"}:
        raise ShapeError("bad_shape", "Orders are an object with seat, turn and throw.")
    if orders["seat"] not in current["awaiting"]:
        raise OrdersError("not_your_turn", f"Seat {orders['seat']} does not play this round.")
    if orders["turn"] != current["turn"]:
        raise OrdersError("stale_turn", f"The match is at turn {current['turn']}.")
    if orders["throw"] is not None and orders["throw"] not in THROWS:
        raise ShapeError("bad_shape", "Throw rock, paper or scissors (or null to pass).")


def apply(state: Any, orders: Any) -> Applied:
    current = _state(state)
    if not isinstance(orders, list):
        raise ShapeError("bad_shape", "Every seat throws at once: give a list of orders.")
    for given in orders:
        check(current, given)
    throws: dict[int, str | None] = {o["seat"]: o["throw"] for o in orders}
    events: list[Event] = [
        {"type": "thrown", "t_ms": 0, "duration_ms": 300, "seat": s, "throw": t}
        for s, t in throws.items()
    ]
    scores = dict(current["scores"])
    for seat, throw in throws.items():
        points = sum(1 for other in throws.values() if throw and BEATS[throw] == other)
        scores[str(seat)] += points
        events.append({"type": "scored", "t_ms": 300, "duration_ms": 200, "seat": seat,
                       "points": points})  # fmt: skip
    turn = current["turn"] + 1
    new = dict(current, turn=turn, scores=scores, last={str(s): t for s, t in throws.items()})
    if turn == current["rounds"]:
        best = max(scores.values())
        winners = [p["seat"] for p in current["players"] if scores[str(p["seat"])] == best]
        new.update(over=True, awaiting=[], winners=winners)
        events.append({"type": "match_over", "t_ms": 500, "duration_ms": 0, "winners": winners})
    return Applied(new, events, 500)


def default_orders(state: Any, seat: int) -> dict[str, Any]:
    return {"seat": seat, "turn": state["turn"], "throw": None}


def bot_orders(name: str, state: Any, seat: int) -> dict[str, Any]:
    throw = "rock" if name == "rock" else bot_rng(name, state, seat).choice(THROWS)
    return {"seat": seat, "turn": state["turn"], "throw": throw}


RULESET = Ruleset(
    name="rps",
    title="Rock, paper, scissors",
    new_game=new_game,
    apply=apply,
    check=check,
    default_orders=default_orders,
    view=seed_hidden_view,
    events_view=open_events,
    bot_names=lambda: ["random", "rock"],
    bot_orders=bot_orders,
    seats=(2, 3, 4),
    default_seats=2,
    options=(Option("rounds", "int", 3, minimum=1, maximum=50, help="rounds to play"),),
    shape=Shape(simultaneous=True),
)
