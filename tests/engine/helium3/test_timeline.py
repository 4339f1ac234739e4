"""The animation timeline: every event's fields and timing (docs/protocol.md "Events")."""

from __future__ import annotations

from typing import Any

import pytest
from helpers import (
    act,
    arm,
    bot,
    fire_laser,
    fire_missile,
    kamikaze,
    mine,
    move,
    scene,
    shield,
)

import engine
from engine.helium3.timing import MIN_TURN_MS

# docs/protocol.md: each event type and the fields it carries besides type, t_ms, duration_ms.
FIELDS = {
    "turned": {"robot", "from", "to"},
    "moved": {"robot", "path"},
    "mined": {"robot", "amount", "cells"},
    "armed": {"robot", "weapon"},
    "shielded": {"robot", "deflect"},
    "missile": {"robot", "target"},
    "laser": {"robot", "segments"},
    "kamikaze": {"robot"},
    "absorbed": {"robot"},
    "deflected": {"robot", "direction"},
    "destroyed": {"robot", "dropped"},
    "skipped": {"robot", "reason"},
    "pass": {"seat"},
    "match_over": {"winners"},
}


def busy_turns() -> list[Any]:
    """Turns that between them produce every type of event."""
    helium = {(10, 10): 900}
    turns = [
        (scene(bot("1-1", 5, 5, facing="N"), bot("2-1", 15, 15)), [move("1-1", 8, 9)]),
        (scene(bot("1-1", 10, 10), bot("2-1", 15, 15), helium=helium), [mine("1-1")]),
        (scene(bot("1-1", 10, 10), bot("2-1", 15, 15)), [arm("1-1", "laser")]),
        (scene(bot("1-1", 10, 10), bot("2-1", 15, 15)), [shield("1-1", 11, 11, deflect="N")]),
        (scene(bot("1-1", 10, 10), bot("2-1", 15, 15)), []),
        (
            scene(
                bot("1-1", 5, 5, armed="missile", mined=40),
                bot("1-2", 3, 3, armed="laser"),
                bot("2-1", 8, 5, shield=True),
                bot("2-2", 3, 8, shield=True, deflect="E"),
                bot("2-3", 9, 8),
            ),
            [fire_missile("1-1", 8, 5), fire_laser("1-2", "S")],
        ),
        (
            scene(bot("1-1", 5, 5), bot("1-2", 6, 6), bot("2-1", 19, 19), bot("3-1", 0, 19)),
            [kamikaze("1-1"), move("1-2", 9, 9)],
        ),
        (scene(bot("1-1", 5, 5), bot("2-1", 6, 5), money={1: 3}), [kamikaze("1-1")]),
    ]
    return [act(state, *actions) for state, actions in turns]


def test_every_event_carries_its_type_start_and_duration_in_whole_milliseconds() -> None:
    for applied in busy_turns():
        for event in applied.events:
            assert event["type"] in FIELDS
            assert type(event["t_ms"]) is int and event["t_ms"] >= 0
            assert type(event["duration_ms"]) is int and event["duration_ms"] >= 0


def test_every_event_type_carries_the_fields_the_protocol_names() -> None:
    seen = set()
    for applied in busy_turns():
        for event in applied.events:
            missing = FIELDS[event["type"]] - set(event)
            assert not missing, (event, missing)
            seen.add(event["type"])
    assert seen == set(FIELDS)


def test_the_turn_length_is_the_latest_event_end_and_at_least_the_minimum() -> None:
    for applied in busy_turns():
        latest = max(e["t_ms"] + e["duration_ms"] for e in applied.events)
        assert applied.turn_ms == max(latest, MIN_TURN_MS)


def test_a_turns_events_are_json_values() -> None:
    import json

    for applied in busy_turns():
        assert json.loads(json.dumps(applied.events)) == applied.events


def test_resolving_the_same_turn_twice_gives_the_same_timeline() -> None:
    first = busy_turns()
    second = busy_turns()
    assert [a.events for a in first] == [a.events for a in second]
    assert [a.state for a in first] == [a.state for a in second]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_bot_match_timeline_adds_up_to_its_battle_clock(seed: int) -> None:
    state = engine.new_game(seed=seed, length_ms=60_000)
    total = 0
    while not state["over"]:
        orders = engine.bot_orders("random", state, state["to_move"])
        applied = engine.apply(state, orders)
        latest = max(e["t_ms"] + e["duration_ms"] for e in applied.events)
        assert applied.turn_ms == max(latest, MIN_TURN_MS)
        total += applied.turn_ms
        state = applied.state
    assert state["clock_ms"] == total
    assert total >= 60_000 or state["termination"] == "elimination"
