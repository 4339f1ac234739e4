"""A test ruleset whose turns are made of several steps, with hidden information: dig.

Seats stand on a line of `width` cells (option, default 9) where treasure lies
hidden. One seat at a time; a turn is up to `steps` steps (option, default 3), each
one `apply` resolved at once: `left`, `right`, `scan` (counts the treasure within
one cell; the count is in the seat's view at once, hidden from the others), `dig`
(takes the treasure under the seat, a point) or `end` (ends the turn early; the
default orders). Orders: `{"seat", "turn", "step_no"?, "action": "..."}`; the state's
`step` counts the steps of the current turn and `turn` advances when the turn ends.
After `rounds` rounds (option, default 4) the most points win (ties share).

While the match runs a seat's view has no `seed`, no `treasure` and only its own
scans; a spectator's has no scans.

Registered only in tests, under the name "dig" (see platform_rulesets.py).
"""

from __future__ import annotations

import random
from typing import Any

from ruleset_parts import bot_rng

from engine.core import Applied, Event, Option, Ruleset, Shape
from engine.errors import OrdersError, ShapeError, StateError

ACTIONS = ("left", "right", "scan", "dig", "end")


def new_game(
    *, seed: int, seats: int = 2, steps: int = 3, rounds: int = 4, width: int = 9
) -> dict[str, Any]:
    players = list(range(1, seats + 1))
    treasure = sorted(random.Random(seed).sample(range(width), max(1, width // 3)))
    return {
        "ruleset": "dig",
        "seed": seed,
        "turn": 0,
        "step": 0,
        "steps": steps,
        "rounds": rounds,
        "width": width,
        "treasure": treasure,
        "players": [{"seat": s} for s in players],
        "positions": {str(s): (s - 1) * (width - 1) // max(1, seats - 1) for s in players},
        "scans": {str(s): [] for s in players},
        "to_move": 1,
        "awaiting": [1],
        "scores": {str(s): 0 for s in players},
        "over": False,
        "winners": [],
    }


def check(state: Any, orders: Any) -> None:
    if not isinstance(state, dict) or type(state.get("step")) is not int:
        raise StateError("A dig state needs its step.")
    if state["over"]:
        raise OrdersError("match_over", "The match is over; no more orders are taken.")
    if (
        not isinstance(orders, dict)
        or not {"seat", "turn", "action"} <= set(orders)
        or not set(orders) <= {"seat", "turn", "step_no", "action"}
    ):
        raise ShapeError("bad_shape", "Orders are an object with seat, turn, action and step_no.")
    if orders["seat"] != state["to_move"]:
        raise OrdersError("not_your_turn", f"It is seat {state['to_move']}'s turn.")
    if orders["turn"] != state["turn"]:
        raise OrdersError("stale_turn", f"The match is at turn {state['turn']}.")
    if orders["action"] not in ACTIONS:
        raise ShapeError("bad_shape", "The action is left, right, scan, dig or end.")


def apply(state: Any, orders: Any) -> Applied:
    check(state, orders)
    seat, action = orders["seat"], orders["action"]
    key = str(seat)
    new = dict(state, positions=dict(state["positions"]), scores=dict(state["scores"]))
    at = new["positions"][key]
    event: Event = {"type": action, "t_ms": 0, "duration_ms": 300, "seat": seat}
    if action in ("left", "right"):
        at = max(0, min(state["width"] - 1, at + (1 if action == "right" else -1)))
        new["positions"][key] = at
        event["to"] = at
    elif action == "scan":
        near = sum(1 for x in state["treasure"] if abs(x - at) <= 1)
        new["scans"] = dict(state["scans"], **{key: [*state["scans"][key], [at, near]]})
        event["near"] = near
    elif action == "dig":
        found = at in state["treasure"]
        if found:
            new["treasure"] = [x for x in state["treasure"] if x != at]
            new["scores"][key] += 1
        event["found"] = found
    events = [event]
    step = state["step"] + 1
    if action != "end" and step < state["steps"]:
        new["step"] = step
        return Applied(new, events, 300)
    seats = [p["seat"] for p in state["players"]]
    after = seats[(seats.index(seat) + 1) % len(seats)]
    new.update(step=0, turn=state["turn"] + 1, to_move=after, awaiting=[after])
    if new["turn"] == state["rounds"] * len(seats):
        best = max(new["scores"].values())
        winners = [s for s in seats if new["scores"][str(s)] == best]
        new.update(over=True, to_move=None, awaiting=[], winners=winners)
        events.append({"type": "match_over", "t_ms": 300, "duration_ms": 0, "winners": winners})
    return Applied(new, events, 300)


def default_orders(state: Any, seat: int) -> dict[str, Any]:
    return {"seat": seat, "turn": state["turn"], "step_no": state["step"], "action": "end"}


def view(state: Any, seat: int | None) -> dict[str, Any]:
    if state["over"]:
        return dict(state, viewer=seat)
    out = {k: v for k, v in state.items() if k not in ("seed", "treasure", "scans")}
    out["scans"] = {} if seat is None else {str(seat): state["scans"][str(seat)]}
    out["viewer"] = seat
    return out


def events_view(events: list[Event], seat: int | None, *, over: bool = False) -> list[Event]:
    return [
        e if over or e["type"] != "scan" or e["seat"] == seat
        else {k: v for k, v in e.items() if k != "near"}
        for e in events
    ]  # fmt: skip


def bot_orders(name: str, state: Any, seat: int) -> dict[str, Any]:
    known = view(state, seat)
    if name == "walker":  # scan, dig where the scan found something, else walk on
        scans = known["scans"][str(seat)]
        at = known["positions"][str(seat)]
        if not scans or scans[-1][0] != at:
            action = "scan"
        elif scans[-1][1] and known["step"] < known["steps"] - 1:
            action = "dig"
        else:
            action = "right" if at < known["width"] - 1 else "left"
    else:
        rng = bot_rng(name, state, seat, state["step"])
        action = rng.choice(ACTIONS)
    return {"seat": seat, "turn": known["turn"], "step_no": known["step"], "action": action}


RULESET = Ruleset(
    name="dig",
    title="Dig",
    new_game=new_game,
    apply=apply,
    check=check,
    default_orders=default_orders,
    view=view,
    events_view=events_view,
    bot_names=lambda: ["random", "walker"],
    bot_orders=bot_orders,
    seats=(2, 3, 4),
    default_seats=2,
    options=(
        Option("steps", "int", 3, minimum=1, maximum=9, help="steps in a turn"),
        Option("rounds", "int", 4, minimum=1, maximum=20, help="turns of each seat"),
        Option("width", "int", 9, minimum=5, maximum=30, help="cells on the line"),
    ),
    shape=Shape(steps=True),
)
