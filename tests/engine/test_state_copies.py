"""A resolution never changes the state it is given, and the state it returns shares no
list or dict with it; nor does a Skyport or arena view with its state (Halite's view is
the state itself plus a few keys, by design). Skyport and the arena copy a state as
JSON instead of with `copy.deepcopy`, and read it without copying where they only read."""

from __future__ import annotations

import copy
from typing import Any

import pytest

import engine


def _containers(value: Any, into: dict[int, Any]) -> dict[int, Any]:
    """Every list and dict in a JSON tree, by id."""
    if isinstance(value, dict):
        into[id(value)] = value
        for item in value.values():
            _containers(item, into)
    elif isinstance(value, list):
        into[id(value)] = value
        for item in value:
            _containers(item, into)
    return into


def _shared(a: Any, b: Any) -> list[Any]:
    mine = _containers(a, {})
    return [v for k, v in _containers(b, {}).items() if k in mine]


CASES = [
    ("skyport", 4, "prospector"),
    ("skyport", 2, "random"),
    ("arena", 4, "hunter"),
    ("arena", 2, "random"),
    ("halite", 3, "random"),
    ("helium3", 4, "random"),
]


@pytest.mark.parametrize(("ruleset", "seats", "bot"), CASES)
def test_apply_leaves_its_state_alone_and_shares_nothing_with_it(
    ruleset: str, seats: int, bot: str
) -> None:
    state = engine.new_game(seed=7, seats=seats, ruleset=ruleset)
    for _ in range(40):
        awaited = engine.awaiting(state)
        if not awaited:
            break
        given = [engine.bot_orders(bot, state, seat) for seat in awaited]
        kept = copy.deepcopy(state)
        for seat in [None, *range(1, seats + 1)]:
            seen = engine.view(state, seat)
            if ruleset in ("skyport", "arena"):
                assert _shared(state, seen) == [], f"the view of {seat} shares with the state"
        engine.awaiting(state)
        engine.scores(state)
        for seat in awaited:
            engine.default_orders(state, seat)
        applied = engine.apply(state, given[0] if len(given) == 1 else given)
        assert state == kept, "apply changed the state it was given"
        assert _shared(state, applied.state) == []
        state = applied.state
    assert state["turn"] > 5


@pytest.mark.parametrize("ruleset", ["skyport", "arena"])
def test_a_refused_step_changes_nothing(ruleset: str) -> None:
    state = engine.new_game(seed=3, seats=2, ruleset=ruleset)
    while len(engine.awaiting(state)) > 1:  # the setup: every seat at once
        given = [engine.default_orders(state, s) for s in engine.awaiting(state)]
        state = engine.apply(state, given).state
    seat = engine.awaiting(state)[0]
    kept = copy.deepcopy(state)
    wrong = {**engine.default_orders(state, seat), "turn": state["turn"] + 5}
    with pytest.raises(engine.EngineError):
        engine.apply(state, wrong)
    assert state == kept
