"""Properties of whole Skyport matches played by the bots, and of arbitrary orders:
every state is legal, health stays within 0..100, scores are the sum of the points
the events report, turns follow the fixed order, and anything refused changes nothing."""

from __future__ import annotations

import contextlib
import copy
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from skyport_helpers import OPEN, position, robot, tiles

import engine
from engine import match
from engine.errors import EngineError
from engine.skyport.state import parse

SETTINGS = settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))


def _points(events: list[dict[str, Any]]) -> dict[int, int]:
    """What the events say each seat gained or lost."""
    gained: dict[int, int] = {}
    for e in events:
        if e["type"] == "damage":
            gained[e["by"]] = gained.get(e["by"], 0) + e["points"]
        elif e["type"] == "death":
            gained[e["by"]] = gained.get(e["by"], 0) + e["bounty"]
        elif e["type"] == "penalty":
            gained[e["seat"]] = gained.get(e["seat"], 0) + e["points"]
    return gained


def _next_seat(state: dict[str, Any], seat: int, skipped: list[int]) -> int:
    """The seat after `seat` in the fixed order, passing over the seats skipped (in order)."""
    order = state["order"]
    i = order.index(seat)
    passed = 0
    while True:
        i = (i + 1) % len(order)
        if passed < len(skipped) and order[i] == skipped[passed]:
            passed += 1
            continue
        assert passed == len(skipped)
        return int(order[i])


@SETTINGS
@given(
    seed=st.integers(0, 10**6),
    bots=st.lists(st.sampled_from(["random", "prospector"]), min_size=2, max_size=8),
    rounds=st.integers(5, 8),
)
def test_bot_matches_keep_every_invariant(seed: int, bots: list[str], rounds: int) -> None:
    record = match.play_match(seed, bots, ruleset="skyport", options={"rounds": rounds})
    state = record["initial"]
    totals = {s: 0 for s in range(1, len(bots) + 1)}
    for n, turn in enumerate(record["turns"]):
        parse(state)
        before = state
        events = turn["events"]
        for seat, points in _points(events).items():
            totals[seat] += points
        state = engine.apply(before, turn["orders"]).state
        assert state["turn"] == n + 1
        assert state["scores"] == {str(s): v for s, v in totals.items()}
        for p in state["players"]:
            assert 0 <= p["health"] <= 100
            assert p["dead"] == (p["health"] == 0)
        times = [(e["t_ms"], e["duration_ms"]) for e in events]
        assert times == sorted(times, key=lambda t: t[0])
        if before["phase"] == "play" and not state["over"]:
            skipped = [e["seat"] for e in events if e["type"] == "skip"]
            assert state["awaiting"] == [_next_seat(before, before["awaiting"][0], skipped)]
            assert not state["players"][state["awaiting"][0] - 1]["dead"]
    final = record["final"]
    assert final["over"] and final["awaiting"] == []
    best = max(final["scores"].values())
    assert final["winners"] == [int(s) for s, v in final["scores"].items() if v == best]
    assert final["round"] == rounds


ACTION = st.one_of(
    st.builds(
        lambda d: {"type": "move", "direction": d},
        st.sampled_from(["up", "down", "left-up", "right-down", "left-down", "right-up", "west"]),
    ),
    st.just({"type": "mine"}),
    st.builds(
        lambda w: {"type": "upgrade", "weapon": w}, st.sampled_from(["laser", "mortar", "droid"])
    ),
    st.builds(
        lambda d: {"type": "laser", "direction": d},
        st.sampled_from(["up", "down", "left-up", "right-down"]),
    ),
    st.builds(
        lambda a, b: {"type": "mortar", "target": [a, b]}, st.integers(-5, 5), st.integers(-5, 5)
    ),
    st.builds(
        lambda s: {"type": "droid", "sequence": s},
        st.lists(st.sampled_from(["up", "down", "left-down", "right-up"]), max_size=6),
    ),
)


@settings(max_examples=200, deadline=None)
@given(
    actions=st.lists(ACTION, max_size=4),
    j=st.integers(1, 7),
    k=st.integers(1, 7),
    health=st.integers(1, 100),
)
def test_any_orders_resolve_or_are_refused_without_a_change(
    actions: list[dict[str, Any]], j: int, k: int, health: int
) -> None:
    grid = tiles(OPEN, O=[(2, 5)], V=[(5, 2)], R=[(j, k)], E=[(3, 3)], C=[(6, 6)])
    other = (4, 4) if (j, k) != (4, 4) else (5, 5)
    state = position(
        [
            robot(j, k, {"mortar": 2, "droid": 1}, resources={"explosium": 7, "scrap": 4}),
            robot(*other, health=health),
        ],
        grid,
    )
    before = copy.deepcopy(state)
    try:
        applied = engine.apply(state, {"seat": 1, "turn": 1, "actions": actions})
    except EngineError:
        assert state == before
        return
    parse(applied.state)
    assert state == before
    assert applied.turn_ms == 300 * len(actions)
    gained = _points(applied.events)
    assert applied.state["scores"] == {str(s): gained.get(s, 0) for s in (1, 2)}


def test_random_play_reaches_deaths_and_respawns() -> None:
    seen: set[str] = set()
    for seed in range(6):
        record = match.play_match(
            seed, ["random", "prospector", "random"], ruleset="skyport", options={"rounds": 10}
        )
        seen |= {e["type"] for t in record["turns"] for e in t["events"]}
    assert {
        "move",
        "mine",
        "laser",
        "mortar",
        "droid",
        "damage",
        "death",
        "skip",
        "respawn",
    } <= seen


JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 120),
    st.text(max_size=4),
    st.lists(st.integers(-1, 9), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(0, 3), max_size=2),
)


def _paths(value: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a JSON value, as the keys and indexes leading to it."""
    found = [at]
    if isinstance(value, dict):
        for key, inner in value.items():
            found += _paths(inner, (*at, key))
    elif isinstance(value, list):
        for i, inner in enumerate(value):
            found += _paths(inner, (*at, i))
    return found


@settings(max_examples=300, deadline=None)
@given(pick=st.integers(0, 10**6), junk=JUNK, phase=st.sampled_from(["loadout", "play"]))
def test_a_spoiled_state_is_refused_with_an_engine_error_never_a_crash(
    pick: int, junk: Any, phase: str
) -> None:
    if phase == "loadout":
        state: dict[str, Any] = engine.new_game(
            seed=1, seats=2, ruleset="skyport", options={"map": "duel-2"}
        )
        orders: Any = [{"seat": s, "turn": 0, "loadout": ["laser", "droid"]} for s in (1, 2)]
    else:
        state = position([robot(4, 4), robot(6, 2)])
        orders = {"seat": 1, "turn": 1, "actions": [{"type": "laser", "direction": "down"}]}
    places = _paths(state)[1:]
    place = places[pick % len(places)]
    holder: Any = state
    for key in place[:-1]:
        holder = holder[key]
    holder[place[-1]] = junk
    with contextlib.suppress(EngineError):  # refused is fine; any other exception fails
        engine.apply(state, orders)
