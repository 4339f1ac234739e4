"""Whole matches between built-in bots, and replay files: record and re-resolve."""

from __future__ import annotations

from typing import Any

from engine import rulesets
from engine.errors import EngineError, ShapeError


def play_match(
    seed: int, bots: list[str], *, length_ms: int = 600_000, ruleset: str = rulesets.DEFAULT
) -> dict[str, Any]:
    """Play bots (one per seat, in seat order) to the end; returns the replay record."""
    rules = rulesets.get(ruleset)
    known = rules.bot_names()
    for name in bots:
        if name not in known:
            raise ShapeError("bad_shape", f"Unknown bot {name[:40]!r}; known: {', '.join(known)}.")
    state = rules.new_game(seed=seed, seats=len(bots), length_ms=length_ms)
    initial = state
    seats = [p["seat"] for p in state["players"]]
    bot_of = dict(zip(seats, bots, strict=True))
    turns: list[dict[str, Any]] = []
    while not state["over"]:
        seat = state["to_move"]
        orders = rules.bot_orders(bot_of[seat], state, seat)
        applied = rules.apply(state, orders)
        turns.append({"orders": orders, "events": applied.events})
        state = applied.state
    return {"ruleset": ruleset, "bots": bots, "initial": initial, "turns": turns, "final": state}


def summary(record: dict[str, Any]) -> dict[str, Any]:
    final = record["final"]
    return {
        "winners": final["winners"],
        "turns": len(record["turns"]),
        "money": final["players"],
        "clock_ms": final["clock_ms"],
    }


def replay_check(record: Any) -> dict[str, Any]:
    """Re-resolve a replay's orders from its initial state; raise ReplayMismatch on a difference."""
    if not isinstance(record, dict) or not isinstance(record.get("turns"), list):
        raise ShapeError("bad_shape", "A replay is an object with 'initial', 'turns' and 'final'.")
    state: Any = record.get("initial")
    rules = rulesets.of_state(state)
    for n, turn in enumerate(record["turns"]):
        if not isinstance(turn, dict) or "orders" not in turn:
            raise ShapeError("bad_shape", f"Replay turn {n} has no 'orders'.")
        applied = rules.apply(state, turn["orders"])
        if applied.events != turn.get("events"):
            raise ReplayMismatch(n, "the events differ from the recording")
        state = applied.state
    if "final" in record and state != record["final"]:
        raise ReplayMismatch(len(record["turns"]), "the final state differs from the recording")
    final = rules.view(state, None)  # validates a replay of zero turns too
    return {"ok": True, "turns": len(record["turns"]), "winners": final["winners"]}


class ReplayMismatch(EngineError):
    def __init__(self, turn: int, what: str) -> None:
        super().__init__("bad_state", f"Turn {turn} does not replay: {what}.")
        self.turn = turn
