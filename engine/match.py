"""Whole matches between built-in bots, and replay files: record and re-resolve."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import engine
from engine import rulesets
from engine.errors import EngineError, ShapeError


def check_bots(ruleset: str, bots: list[str]) -> None:
    known = engine.bot_names(ruleset)
    for name in bots:
        if name not in known:
            raise ShapeError("bad_shape", f"Unknown bot {name[:40]!r}; known: {', '.join(known)}.")


def play_match(
    seed: int,
    bots: list[str],
    *,
    length_ms: int | None = None,
    ruleset: str = rulesets.DEFAULT,
    options: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Play bots (one per seat, in seat order) to the end; returns the replay record.

    One entry of `turns` per `apply`: the orders object of a one-seat turn or step,
    the list of every awaited seat's orders of a simultaneous turn or setup phase.
    """
    check_bots(ruleset, bots)
    state = engine.new_game(
        seed=seed, seats=len(bots), length_ms=length_ms, ruleset=ruleset, options=options
    )
    initial = state
    seats = [p["seat"] for p in state["players"]]
    bot_of = dict(zip(seats, bots, strict=True))
    together = rulesets.of_state(state).seats_bot_orders
    turns: list[dict[str, Any]] = []
    while awaited := engine.awaiting(state):
        if together is not None and len(awaited) > 1:
            given = together([(bot_of[seat], seat) for seat in awaited], state)
        else:
            given = [engine.bot_orders(bot_of[seat], state, seat) for seat in awaited]
        orders: Any = given[0] if len(given) == 1 else given
        applied = engine.apply(state, orders)
        turns.append({"orders": orders, "events": applied.events})
        state = applied.state
    return {"ruleset": ruleset, "bots": bots, "initial": initial, "turns": turns, "final": state}


def summary(record: dict[str, Any]) -> dict[str, Any]:
    """What `play` prints: the winners, the turns (entries of the replay) and, for a
    game with a battle clock (Helium 3's summary as docs/protocol.md has it), each
    player's money and the clock; the scores for the others."""
    final = record["final"]
    if "clock_ms" in final:
        return {
            "winners": final["winners"],
            "turns": len(record["turns"]),
            "money": final["players"],
            "clock_ms": final["clock_ms"],
        }
    return {
        "winners": final["winners"],
        "turns": len(record["turns"]),
        "scores": engine.scores(final),
    }


def replay_check(record: Any) -> dict[str, Any]:
    """Re-resolve a replay's orders from its initial state; raise ReplayMismatch on a difference."""
    if not isinstance(record, dict) or not isinstance(record.get("turns"), list):
        raise ShapeError("bad_shape", "A replay is an object with 'initial', 'turns' and 'final'.")
    state: Any = record.get("initial")
    rulesets.of_state(state)
    for n, turn in enumerate(record["turns"]):
        if not isinstance(turn, dict) or "orders" not in turn:
            raise ShapeError("bad_shape", f"Replay turn {n} has no 'orders'.")
        applied = engine.apply(state, turn["orders"])
        if not same_events(state, applied.events, turn.get("events")):
            raise ReplayMismatch(n, "the events differ from the recording")
        _check_expected(n, turn, applied.state)
        state = applied.state
    if "final" in record and state != record["final"]:
        raise ReplayMismatch(len(record["turns"]), "the final state differs from the recording")
    final = engine.view(state, None)  # validates a replay of zero turns too
    return {"ok": True, "turns": len(record["turns"]), "winners": final["winners"]}


def same_events(state: Any, events: list[Any], recorded: Any) -> bool:
    """Whether a turn resolved again from `state` told what the recording tells: the
    same events, or the same once both are read as everyone reads a finished match's
    (a game may record its events in a shorter form than it shows them, as Halite
    groups a turn's events by kind: a recording of either form replays)."""
    if events == recorded:
        return True
    if not isinstance(recorded, list):
        return False
    ruleset = rulesets.of_state(state).name
    shown = engine.events_view(events, None, over=True, ruleset=ruleset)
    try:
        return shown == engine.events_view(recorded, None, over=True, ruleset=ruleset)
    except (KeyError, TypeError, ValueError, AttributeError):  # not events of this game
        return False


def _check_expected(n: int, turn: dict[str, Any], state: dict[str, Any]) -> None:
    """A turn may carry `expect`: fields the state after it must have, as another
    recording gave them (a 2016 Halite replay's frame: `owner` and `strength`)."""
    expected = turn.get("expect")
    if expected is None:
        return
    if not isinstance(expected, dict):
        raise ShapeError("bad_shape", f"Replay turn {n}'s 'expect' must be an object of fields.")
    for key, value in expected.items():
        if state.get(key) != value:
            raise ReplayMismatch(n, f"the state's {str(key)[:40]!r} differs from the recording")


class ReplayMismatch(EngineError):
    def __init__(self, turn: int, what: str) -> None:
        super().__init__("bad_state", f"Turn {turn} does not replay: {what}.")
        self.turn = turn
