"""How a Halite turn's events are recorded and read.

The engine records a turn's events grouped by kind, one event per kind with a list
per field (`resolve.GROUPS`): a turn that moves a thousand pieces is five objects, not
a thousand. Every viewer reads them piece by piece (`engine.events_view`), in the
order of the turn; a match stored piece by piece reads and replays as it did.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from halite_helpers import EAST, FAR_CORNER, position

import engine
from engine import match
from engine.halite.resolve import GROUPS, expand


def the_fight() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Seat 1's 60 steps east onto a neutral 10 beside seat 2's 5, which it destroys."""
    state = position({(2, 3): (1, 60), (3, 4): (2, 5), FAR_CORNER: (2, 1)}, neutral={(3, 3): 10})
    orders = [
        {"seat": 1, "turn": 0, "moves": [[2, 3, EAST]]},
        {"seat": 2, "turn": 0, "moves": []},
    ]
    return state, orders


def test_the_engine_records_a_turns_events_grouped_by_kind() -> None:
    state, orders = the_fight()
    applied = engine.apply(state, orders)
    assert applied.events == [
        {"type": "moves", "seat": [1], "from_x": [2], "from_y": [3], "to_x": [3], "to_y": [3],
         "direction": [EAST], "strength": [60], "t_ms": 0, "duration_ms": 300},
        # 5 from seat 2's piece and 10 from the neutral cell; seat 1's 60 on seat 2's 5.
        {"type": "damages", "seat": [1, 2], "x": [3, 3], "y": [3, 4], "damage": [15, 60],
         "t_ms": 400, "duration_ms": 200},
        {"type": "destructions", "seat": [2], "x": [3], "y": [4], "t_ms": 600,
         "duration_ms": 200},
        {"type": "captures", "x": [3, 3], "y": [3, 4], "owner": [1, 0], "previous": [0, 2],
         "t_ms": 600, "duration_ms": 200},
    ]  # fmt: skip
    assert applied.state["owner"][3][3] == 1 and applied.state["strength"][3][3] == 45


def test_every_viewer_reads_them_piece_by_piece_in_the_order_of_the_turn() -> None:
    state, orders = the_fight()
    applied = engine.apply(state, orders)
    told = [
        {"type": "move", "seat": 1, "from": [2, 3], "to": [3, 3], "direction": EAST,
         "strength": 60, "t_ms": 0, "duration_ms": 300},
        {"type": "damage", "seat": 1, "at": [3, 3], "damage": 15, "t_ms": 400,
         "duration_ms": 200},
        {"type": "damage", "seat": 2, "at": [3, 4], "damage": 60, "t_ms": 400,
         "duration_ms": 200},
        {"type": "destroyed", "seat": 2, "at": [3, 4], "t_ms": 600, "duration_ms": 200},
        {"type": "captured", "at": [3, 3], "owner": 1, "previous": 0, "t_ms": 600,
         "duration_ms": 200},
        {"type": "captured", "at": [3, 4], "owner": 0, "previous": 2, "t_ms": 600,
         "duration_ms": 200},
    ]  # fmt: skip
    for seat in (None, 1, 2):
        assert engine.events_view(applied.events, seat, ruleset="halite") == told


def test_pieces_are_recorded_and_told_cell_by_cell_seat_by_seat_on_a_cell() -> None:
    # Seat 2's piece at (1, 1) comes first on the board; seat 1's at (1, 2) second.
    state = position({(1, 2): (1, 9), (1, 1): (2, 4), FAR_CORNER: (2, 1)})
    applied = engine.apply(state, [{"seat": s, "turn": 0, "moves": []} for s in (1, 2)])
    damages = next(e for e in applied.events if e["type"] == "damages")
    assert (damages["seat"], damages["x"], damages["y"]) == ([2, 1], [1, 1], [1, 2])
    told = engine.events_view(applied.events, None, ruleset="halite")
    assert [(e["seat"], e["at"]) for e in told if e["type"] == "damage"] == [
        (2, [1, 1]), (1, [1, 2]),
    ]  # fmt: skip


def test_every_grouped_event_has_its_kinds_fields_as_lists_of_one_length() -> None:
    record = match.play_match(3, ["grower"] * 4, ruleset="halite",
                              options={"width": 16, "height": 16})  # fmt: skip
    kinds = []
    for turn in record["turns"]:
        for event in turn["events"]:
            if event["type"] not in GROUPS:
                assert event["type"] in ("eliminated", "over")
                continue
            kinds.append(event["type"])
            fields = GROUPS[event["type"]][1]
            assert set(event) == {"type", *fields, "t_ms", "duration_ms"}
            lengths = {len(event[name]) for name in fields}
            assert len(lengths) == 1 and lengths != {0}
        grouped = [e["type"] for e in turn["events"] if e["type"] in GROUPS]
        assert grouped == [kind for kind in GROUPS if kind in grouped]  # in turn order
    assert set(kinds) == set(GROUPS)


def test_events_recorded_piece_by_piece_are_read_as_they_are() -> None:
    state, orders = the_fight()
    told = expand(engine.apply(state, orders).events)
    assert engine.events_view(copy.deepcopy(told), None, ruleset="halite") == told
    assert expand([]) == []
    assert {single for single, _ in GROUPS.values()} == {
        "move", "merge", "damage", "destroyed", "captured",
    }  # fmt: skip


def test_a_recording_of_either_form_replays_and_a_changed_one_does_not() -> None:
    record = match.play_match(5, ["grower", "random", "grower"], ruleset="halite",
                              options={"width": 12, "height": 12})  # fmt: skip
    assert match.replay_check(record)["ok"]
    piece_by_piece = copy.deepcopy(record)
    for turn in piece_by_piece["turns"]:
        turn["events"] = expand(turn["events"])
    assert piece_by_piece["turns"][5]["events"] != record["turns"][5]["events"]
    assert match.replay_check(piece_by_piece)["ok"]
    for changed in (record, piece_by_piece):
        wrong = copy.deepcopy(changed)
        events = wrong["turns"][5]["events"]
        first = events[0]
        if first["type"] == "moves":
            first["strength"][0] += 1
        else:
            first["strength"] += 1
        with pytest.raises(match.ReplayMismatch):
            match.replay_check(wrong)
        wrong["turns"][5]["events"] = "not events"
        with pytest.raises(match.ReplayMismatch):
            match.replay_check(wrong)
