"""A second, tiny ruleset used to prove that rulesets plug in: Nim.

Two seats take 1 to 3 stones in turn from one pile; whoever takes the last wins.
It speaks the engine's interface (`engine.core.Ruleset`) and nothing of helium3.
Its state carries the platform's `awaiting` and `scores` (the seat to move; 1 for
the winner once over), so the engine's defaults read them. Option `pile` fixes the
pile's size (0: drawn from the seed, 10 to 20 stones).

Registered only in tests: `engine.rulesets.register("nim", "nim_ruleset")`.
"""

from __future__ import annotations

import random
from typing import Any

from ruleset_parts import seed_hidden_view

from engine.core import Applied, Event, Option, Ruleset
from engine.errors import OrdersError, ShapeError, StateError


def new_game(*, seed: int, seats: int = 2, pile: int = 0) -> dict[str, Any]:
    stones = pile or random.Random(seed).randint(10, 20)
    return {"ruleset": "nim", "seed": seed, "turn": 0, "to_move": 1, "pile": stones,
            "players": [{"seat": 1}, {"seat": 2}], "over": False, "winners": [],
            "awaiting": [1], "scores": {"1": 0, "2": 0}}  # fmt: skip


def _take(orders: Any) -> int:
    actions = orders.get("actions") if isinstance(orders, dict) else None
    if not isinstance(actions, list) or len(actions) != 1 or not isinstance(actions[0], dict):
        raise ShapeError("bad_shape", "Nim orders hold exactly one action.")
    n = actions[0].get("take")
    if type(n) is not int or not 1 <= n <= 3:
        raise OrdersError("out_of_range", "Take 1, 2 or 3 stones.", 0)
    return n


def check(state: Any, orders: Any) -> None:
    if not isinstance(state, dict) or type(state.get("pile")) is not int:
        raise StateError("A nim state needs a pile.")
    if state["over"]:
        raise OrdersError("match_over", "The match is over; no more orders are taken.")
    if not isinstance(orders, dict):
        raise ShapeError("bad_shape", "Orders must be a JSON object with seat, turn and actions.")
    if orders.get("seat") != state["to_move"]:
        raise OrdersError("not_your_turn", f"It is seat {state['to_move']}'s turn.")
    if orders.get("turn") != state["turn"]:
        raise OrdersError("stale_turn", f"The match is at turn {state['turn']}.")
    _take(orders)


def apply(state: Any, orders: Any) -> Applied:
    check(state, orders)
    n = min(_take(orders), state["pile"])
    new = dict(state, pile=state["pile"] - n, turn=state["turn"] + 1)
    events: list[Event] = [{"type": "took", "t_ms": 0, "duration_ms": 500, "n": n}]
    if new["pile"] == 0:
        seat = state["to_move"]
        new.update(over=True, to_move=None, winners=[seat], awaiting=[])
        new["scores"] = {str(s): int(s == seat) for s in (1, 2)}
    else:
        new["to_move"] = 3 - state["to_move"]
        new["awaiting"] = [new["to_move"]]
    return Applied(new, events, 500)


def default_orders(state: Any, seat: int) -> dict[str, Any]:
    # Nim has no pass: a seat that says nothing takes one stone.
    return {"seat": seat, "turn": state["turn"], "actions": [{"take": 1}]}


def events_view(events: list[Event], seat: int | None, *, over: bool = False) -> list[Event]:
    return list(events)


def bot_orders(name: str, state: Any, seat: int) -> dict[str, Any]:
    take = state["pile"] % 4 or 1  # the winning strategy
    return {"seat": seat, "turn": state["turn"], "actions": [{"take": take}]}


RULESET = Ruleset(
    name="nim",
    title="Nim",
    new_game=new_game,
    apply=apply,
    check=check,
    default_orders=default_orders,
    view=seed_hidden_view,
    events_view=events_view,
    bot_names=lambda: ["perfect"],
    bot_orders=bot_orders,
    seats=(2,),
    default_seats=2,
    options=(Option("pile", "int", 0, minimum=0, maximum=99, help="stones (0: from the seed)"),),
)
