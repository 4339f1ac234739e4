"""The remake's history sentences: one for every event the remake's engine emits,
each from the viewer's copy of the events, played by the engine on small scenes."""

from __future__ import annotations

import copy
import inspect
import re
from typing import Any

import engine
from engine.helium3 import resolve as helium3_resolve
from engine.remake import resolve
from games import presentation
from games.play.remake.sentences import SKIP_REASONS

REMAKE = "helium3-remake"
say = presentation.get(REMAKE).sentences


def vehicle(vid: str, x: int, y: int, **fields: Any) -> dict[str, Any]:
    robot = {
        "id": vid, "seat": int(vid.split("-")[0]), "x": x, "y": y, "facing": "N",
        "active": True, "armed": None, "shield": False, "deflect": None, "mined": 0,
        "alive": True,
    }  # fmt: skip
    robot.update(fields)
    return robot


def scene(*robots: dict[str, Any], helium: dict[tuple[int, int], int] | None = None) -> Any:
    state = copy.deepcopy(engine.new_game(seed=5, seats=2, ruleset=REMAKE))
    state["helium"] = [[0] * state["width"] for _ in range(state["height"])]
    for (x, y), amount in (helium or {}).items():
        state["helium"][y][x] = amount
    state["robots"] = list(robots)
    return state


def play(state: Any, *actions: dict[str, Any], viewer: int | None = 1) -> list[str]:
    applied = engine.apply(state, {"seat": 1, "turn": state["turn"], "actions": list(actions)})
    return say(engine.events_view(applied.events, viewer))


def test_a_move_a_mine_and_an_arming_read_as_what_the_vehicle_did():
    state = scene(
        vehicle("1-1", 5, 5), vehicle("1-2", 9, 9), vehicle("3-1", 18, 18),
        helium={(10, 10): 300, (11, 11): 100},
    )  # fmt: skip
    lines = play(
        state,
        {"robot": "1-1", "type": "arm_laser", "to": [6, 6]},
        {"robot": "1-2", "type": "mine", "to": [10, 10]},
    )
    assert lines == [
        "Vehicle 1-1 moved 1 cell to (6, 6) and armed its laser.",
        "Vehicle 1-2 moved 1 cell to (10, 10) and mined 200 helium.",
    ]
    assert play(state, {"robot": "1-1", "type": "move", "to": [8, 5]}) == [
        "Vehicle 1-1 moved 3 cells to (8, 5)."
    ]


def test_a_shield_and_a_deflect_read_differently_and_only_for_their_owner():
    state = scene(vehicle("1-1", 5, 5, shield=True), vehicle("1-2", 9, 9), vehicle("3-1", 18, 18))
    actions = (
        {"robot": "1-1", "type": "deflect", "direction": "NE"},
        {"robot": "1-2", "type": "shield"},
    )
    assert play(state, *actions) == [
        "Vehicle 1-1 set its shield to deflect north-east.",
        "Vehicle 1-2 raised its shield.",
    ]
    # Another seat and a spectator are told nothing: a shield or deflect in place is a pass.
    for viewer in (3, None):
        assert play(state, *actions, viewer=viewer) == ["Seat 1 passed."]


def test_a_missile_destroys_and_a_shield_takes_a_hit():
    state = scene(
        vehicle("1-1", 5, 5, armed="missile"), vehicle("1-2", 2, 2, armed="missile"),
        vehicle("3-1", 10, 5, mined=400), vehicle("3-2", 2, 8, shield=True),
    )  # fmt: skip
    lines = play(
        state,
        {"robot": "1-1", "type": "fire_missile", "target": [10, 5]},
        {"robot": "1-2", "type": "fire_missile", "target": [2, 8]},
    )
    assert lines == [
        "Vehicle 1-1 fired a missile at (10, 5), destroying 3-1 (400 helium dropped).",
        "Vehicle 1-2 fired a missile at (2, 8), 3-2's shield took the hit.",
    ]


def test_a_laser_turned_by_a_deflect_destroys_what_it_meets_next():
    state = scene(
        vehicle("1-1", 2, 5, armed="laser"), vehicle("3-1", 8, 5, shield=True, deflect="N"),
        vehicle("3-2", 8, 1),
    )  # fmt: skip
    assert play(state, {"robot": "1-1", "type": "fire_laser", "direction": "E"}) == [
        "Vehicle 1-1 fired a laser east, 3-1's shield turned it north, destroying 3-2."
    ]


def test_a_kamikaze_destroys_its_launcher_or_spends_its_shield():
    bare = scene(
        vehicle("1-1", 5, 5), vehicle("1-2", 0, 0), vehicle("3-1", 6, 6), vehicle("3-2", 15, 15)
    )
    assert play(bare, {"robot": "1-1", "type": "kamikaze"}) == [
        "Vehicle 1-1 blew itself up, destroying 3-1."
    ]
    shielded = scene(
        vehicle("1-1", 5, 5, shield=True), vehicle("3-1", 6, 6), vehicle("3-2", 15, 15)
    )
    assert play(shielded, {"robot": "1-1", "type": "kamikaze"}) == [
        "Vehicle 1-1 set off its blast and survived, its shield spent, destroying 3-1."
    ]


def test_an_action_of_a_vehicle_destroyed_earlier_in_the_turn_is_told_as_skipped():
    state = scene(vehicle("1-1", 5, 5, armed="laser"), vehicle("1-2", 9, 5), vehicle("3-1", 18, 18))
    lines = play(
        state,
        {"robot": "1-1", "type": "fire_laser", "direction": "E"},
        {"robot": "1-2", "type": "mine"},
    )
    assert lines == [
        "Vehicle 1-1 fired a laser east, destroying 1-2.",
        "Vehicle 1-2's action was skipped: it had been destroyed earlier in the turn.",
    ]


def test_a_deflect_whose_shield_a_hidden_shield_let_be_spent_is_skipped_as_not_shielded():
    # 3-1's hidden shield turns 1-1's beam back onto 1-2, spending 1-2's shield: the
    # deflect planned for 1-2 (legal on the board seat 1 knows) is skipped.
    state = scene(
        vehicle("1-1", 2, 5, armed="laser"), vehicle("1-2", 8, 9, shield=True),
        vehicle("3-1", 8, 5, shield=True, deflect="S"),
    )  # fmt: skip
    lines = play(
        state,
        {"robot": "1-1", "type": "fire_laser", "direction": "E"},
        {"robot": "1-2", "type": "deflect", "direction": "W"},
    )
    assert lines == [
        "Vehicle 1-1 fired a laser east, 3-1's shield turned it south, 1-2's shield took the hit.",
        "Vehicle 1-2's action was skipped: its shield was already spent.",
    ]


def test_every_skip_reason_the_engine_can_give_has_its_words():
    # The codes a remake action can be refused with (the remake's Turn and the turn
    # driver it shares with Helium 3), and the one for a vehicle destroyed earlier.
    source = inspect.getsource(resolve.Turn) + inspect.getsource(helium3_resolve.Turn)
    codes = set(re.findall(r'OrdersError\(\s*"([a-z_]+)"', source)) | {"robot_destroyed"}
    assert {"not_shielded", "not_armed", "out_of_range", "blocked"} <= codes
    assert codes <= set(SKIP_REASONS), codes - set(SKIP_REASONS)
    for code in codes:
        event = {"type": "skipped", "t_ms": 0, "duration_ms": 0, "robot": "1-1", "reason": code}
        line = say([event])[0]
        assert line == f"Vehicle 1-1's action was skipped: {SKIP_REASONS[code]}."


def test_the_end_of_the_match_names_its_reason_and_winners():
    rounds = {
        "type": "match_over",
        "t_ms": 0,
        "duration_ms": 0,
        "winners": [1, 3],
        "reason": "rounds",
    }
    assert say([rounds]) == [
        "The match is over (the last round was played): seat 1 and seat 3 won."
    ]
    last = scene(vehicle("1-1", 5, 5, armed="missile"), vehicle("3-1", 7, 5))
    assert play(last, {"robot": "1-1", "type": "fire_missile", "target": [7, 5]})[-1] == (
        "The match is over (one seat was left): seat 1 won."
    )


def test_a_pass_reads_as_a_pass():
    state = scene(vehicle("1-1", 5, 5), vehicle("3-1", 15, 15))
    assert play(state) == ["Seat 1 passed."]
