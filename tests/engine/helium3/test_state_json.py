"""The state's JSON form (docs/protocol.md "State"): its shape, its round trip, and that a
malformed or inconsistent state is a `bad_state` error, never a crash."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from typing import Any

import pytest
from helpers import act, bot, kamikaze, reject_orders, scene

import engine
from engine.errors import EngineError
from engine.helium3.state import State

STATE_KEYS = {
    "ruleset", "seed", "width", "height", "turn", "to_move", "clock_ms", "length_ms",
    "helium", "players", "robots", "over", "winners",
}  # fmt: skip
ROBOT_KEYS = {
    "id", "seat", "x", "y", "facing", "active", "armed", "shield", "deflect", "mined", "alive",
}  # fmt: skip
PASS = {"seat": 1, "turn": 0, "actions": []}


def played(seed: int, turns: int) -> list[dict[str, Any]]:
    """The states of a random-bot match, turn by turn."""
    state = engine.new_game(seed=seed)
    states = [state]
    while not state["over"] and len(states) <= turns:
        state = engine.apply(state, engine.bot_orders("random", state, state["to_move"])).state
        states.append(state)
    return states


def test_a_new_state_has_the_protocols_fields_and_types() -> None:
    state = engine.new_game(seed=42)
    assert set(state) == STATE_KEYS
    assert state["ruleset"] == "helium3" and state["seed"] == 42
    for key in ("width", "height", "turn", "clock_ms", "length_ms"):
        assert type(state[key]) is int
    assert state["to_move"] == 1 and state["over"] is False and state["winners"] == []
    for robot in state["robots"]:
        assert set(robot) == ROBOT_KEYS
    assert json.loads(json.dumps(state)) == state


def test_the_state_round_trips_through_its_typed_form_exactly() -> None:
    for state in played(5, 60):
        assert State.from_json(state).to_json() == state


def test_a_finished_state_has_no_seat_to_move_and_round_trips_too() -> None:
    state = scene(bot("1-1", 5, 5), bot("2-1", 15, 15), clock_ms=599_999)
    over = act(state).state
    assert over["over"] is True and over["to_move"] is None
    assert State.from_json(over).to_json() == over


def test_destroyed_robots_stay_in_the_list_marked_not_alive() -> None:
    state = scene(bot("1-1", 5, 5), bot("2-1", 6, 5), bot("4-5", 19, 19))
    after = act(state, kamikaze("1-1")).state
    assert [(r["id"], r["alive"]) for r in after["robots"]] == [
        ("1-1", False), ("2-1", False), ("4-5", True),
    ]  # fmt: skip


def test_the_engine_accepts_any_state_of_this_shape_robots_placed_anywhere() -> None:
    state = scene(bot("1-1", 19, 0), bot("3-2", 0, 0), bot("3-9", 10, 10), helium={(4, 4): 9})
    act(state)
    assert engine.view(state, 3)["robots"][1]["id"] == "3-2"


def test_destroyed_robots_may_share_a_cell_with_each_other_and_with_a_living_one() -> None:
    state = scene(
        bot("1-1", 5, 5),
        bot("2-1", 5, 5, alive=False),
        bot("2-2", 5, 5, alive=False),
        bot("2-3", 9, 9),
    )
    act(state)


def mutate(change: Callable[[dict[str, Any]], object]) -> dict[str, Any]:
    state = scene(
        bot("1-1", 5, 5), bot("1-2", 6, 6), bot("2-1", 15, 15), bot("2-2", 3, 3, alive=False)
    )
    change(state)
    return state


def put(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    """Set `value` at a dotted path such as 'robots.0.x'."""

    def change(state: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node: Any = state
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value

    return change


def drop(path: str) -> Callable[[dict[str, Any]], None]:
    def change(state: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node: Any = state
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        del node[last]

    return change


BAD: dict[str, Callable[[dict[str, Any]], object]] = {
    "two-living-robots-in-a-cell": lambda s: s["robots"][1].update(x=5, y=5),
    "robot-off-the-board-right": put("robots.0.x", 20),
    "robot-off-the-board-top": put("robots.0.y", -1),
    "armed-and-shielded": lambda s: s["robots"][0].update(armed="laser", shield=True),
    "deflect-without-shield": put("robots.0.deflect", "N"),
    "destroyed-robot-armed": put("robots.3.armed", "missile"),
    "destroyed-robot-shielded": put("robots.3.shield", True),
    "unknown-weapon": put("robots.0.armed", "sword"),
    "bad-facing": put("robots.0.facing", "UP"),
    "bad-deflect": lambda s: s["robots"][0].update(shield=True, deflect="UP"),
    "duplicate-robot-id": put("robots.1.id", "1-1"),
    "robot-id-not-a-string": put("robots.0.id", 11),
    "robot-of-a-seat-not-playing": lambda s: s["robots"].append(bot("5-1", 9, 9)),
    "robot-not-an-object": lambda s: s["robots"].append("1-3"),
    "negative-mined": put("robots.0.mined", -1),
    "active-not-a-bool": put("robots.0.active", 1),
    "alive-missing": drop("robots.0.alive"),
    "helium-missing-a-row": lambda s: s["helium"].pop(),
    "helium-row-too-short": lambda s: s["helium"][3].pop(),
    "negative-helium": put("helium.3.4", -5),
    "helium-not-an-integer": put("helium.3.4", 2.5),
    "width-not-matching-helium": put("width", 19),
    "width-zero": put("width", 0),
    "board-too-large": lambda s: s.update(width=10_000, height=10_000),
    "seed-not-an-integer": put("seed", "42"),
    "turn-negative": put("turn", -1),
    "turn-a-bool": put("turn", True),
    "clock-negative": put("clock_ms", -1),
    "length-zero": put("length_ms", 0),
    "to-move-not-a-seat": put("to_move", 3),
    "to-move-null-while-running": put("to_move", None),
    "to-move-a-seat-without-robots": put("to_move", 4),
    "winners-while-running": put("winners", [1]),
    "winners-not-seats": lambda s: s.update(over=True, to_move=None, winners=[9]),
    "over-with-a-seat-to-move": put("over", True),
    "over-not-a-bool": put("over", "yes"),
    "players-out-of-order": lambda s: s["players"].reverse(),
    "seat-listed-twice": lambda s: s["players"].append({"seat": 1, "money": 0}),
    "no-players": put("players", []),
    "negative-money": put("players.0.money", -3),
    "unknown-ruleset": put("ruleset", "chess"),
    "ruleset-not-a-string": put("ruleset", ["helium3"]),
    "unknown-termination": lambda s: s.update(termination="boredom"),
    **{f"missing-{key}": drop(key) for key in sorted(STATE_KEYS)},
}


@pytest.mark.parametrize("name", list(BAD))
def test_a_malformed_or_inconsistent_state_is_refused_as_bad_state(name: str) -> None:
    state = mutate(BAD[name])
    reject_orders(state, PASS, code="bad_state")
    with pytest.raises(EngineError) as caught:
        engine.view(state, 1)
    assert caught.value.code == "bad_state"


@pytest.mark.parametrize("state", [None, [], "state", 42, {"ruleset": "helium3"}])
def test_something_that_is_not_a_state_at_all_is_bad_state(state: Any) -> None:
    reject_orders(state, PASS, code="bad_state")


def test_random_damage_to_a_state_gives_an_error_or_a_result_never_a_crash() -> None:
    junk: list[Any] = [None, True, 0, -1, 2**70, 1.5, "", "N", [], {}, [1, 2], {"a": 1},
                       float("nan"), 65, "x" * 50]  # fmt: skip
    base = played(11, 30)[-1]

    def paths(node: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        found = [at] if at else []
        items = (
            node.items()
            if isinstance(node, dict)
            else enumerate(node)
            if isinstance(node, list)
            else []
        )
        for key, child in items:
            found += paths(child, (*at, key))
        return found

    places = paths(base)
    rng = random.Random(4)
    orders = {"seat": base["to_move"], "turn": base["turn"], "actions": []}
    refused = 0
    for _ in range(600):
        state = copy.deepcopy(base)
        for _ in range(rng.randint(1, 3)):
            *parents, last = rng.choice(places)
            node: Any = state
            try:
                for key in parents:
                    node = node[key]
                node[last] = rng.choice(junk)
            except (KeyError, IndexError, TypeError):
                pass
        for call, arg in ((engine.apply, orders), (engine.view, None)):
            try:
                call(state, arg)
            except EngineError as error:
                assert error.code in ("bad_state", "not_your_turn", "stale_turn", "match_over")
                refused += 1
    assert refused > 300
