"""A second, tiny ruleset used to prove that rulesets plug in: Nim.

Two seats take 1 to 3 stones in turn from one pile; whoever takes the last wins.
It speaks the engine's interface (`engine.core.Ruleset`) and nothing of helium3.
"""

from __future__ import annotations

import random
from typing import Any

from engine.core import Applied, Event, Ruleset
from engine.errors import OrdersError, ShapeError, StateError


def new_game(*, seed: int, seats: int = 2, length_ms: int = 0) -> dict[str, Any]:
    pile = random.Random(seed).randint(10, 20)
    return {"ruleset": "nim", "seed": seed, "turn": 0, "to_move": 1, "pile": pile,
            "players": [{"seat": 1}, {"seat": 2}], "over": False, "winners": []}  # fmt: skip


def _take(orders: Any) -> int:
    actions = orders.get("actions") if isinstance(orders, dict) else None
    if not isinstance(actions, list) or len(actions) != 1 or not isinstance(actions[0], dict):
        raise ShapeError("bad_shape", "Nim orders hold exactly one action.")
    n = actions[0].get("take")
    if type(n) is not int or not 1 <= n <= 3:
        raise OrdersError("out_of_range", "Take 1, 2 or 3 stones.", 0)
    return n


def apply(state: Any, orders: Any) -> Applied:
    if not isinstance(state, dict) or type(state.get("pile")) is not int:
        raise StateError("A nim state needs a pile.")
    if state["over"]:
        raise OrdersError("match_over", "The match is over; no more orders are taken.")
    if orders.get("seat") != state["to_move"]:
        raise OrdersError("not_your_turn", f"It is seat {state['to_move']}'s turn.")
    n = min(_take(orders), state["pile"])
    new = dict(state, pile=state["pile"] - n, turn=state["turn"] + 1)
    events: list[Event] = [{"type": "took", "t_ms": 0, "duration_ms": 500, "n": n}]
    if new["pile"] == 0:
        new.update(over=True, to_move=None, winners=[state["to_move"]])
    else:
        new["to_move"] = 3 - state["to_move"]
    return Applied(new, events, 500)


def view(state: Any, seat: int | None) -> dict[str, Any]:
    out = {k: v for k, v in state.items() if k != "seed" or state["over"]}
    out["viewer"] = seat
    return out


def events_view(events: list[Event], seat: int | None, *, over: bool = False) -> list[Event]:
    return list(events)


def bot_orders(name: str, state: Any, seat: int) -> dict[str, Any]:
    take = state["pile"] % 4 or 1  # the winning strategy
    return {"seat": seat, "turn": state["turn"], "actions": [{"take": take}]}


RULESET = Ruleset(
    name="nim",
    new_game=new_game,
    apply=apply,
    view=view,
    events_view=events_view,
    bot_names=lambda: ["perfect"],
    bot_orders=bot_orders,
)
