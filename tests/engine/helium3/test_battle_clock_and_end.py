"""The battle clock, the end of the match and its winners (docs/games/helium3.md
"The battle clock and the end"). Timing constants are referred to by name, so the
tests hold whatever their values."""

from __future__ import annotations

from typing import Any

from helpers import (
    act,
    alive,
    arm,
    bot,
    end_of,
    events,
    fire_laser,
    fire_missile,
    kamikaze,
    mine,
    move,
    reject_orders,
    robot,
    scene,
    shield,
    types,
)

import engine
from engine import Applied
from engine.helium3.timing import (
    ARM_MS,
    KAMIKAZE_MS,
    MIN_TURN_MS,
    MINE_MS,
    MISSILE_CELL_MS,
    STEP_MS,
    TURN_STEP_MS,
)

FAR = bot("4-5", 19, 19)


def only(applied: Applied, kind: str) -> dict[str, Any]:
    [event] = events(applied, kind)
    return event


# -- the length of a turn -----------------------------------------------------------------


def test_a_turns_length_is_the_end_of_its_last_event() -> None:
    state = scene(bot("1-1", 2, 5, facing="N"), FAR)
    applied = act(state, move("1-1", 8, 5))
    expected = 2 * TURN_STEP_MS + 6 * STEP_MS
    assert end_of(applied) == expected
    assert applied.turn_ms == max(expected, MIN_TURN_MS)
    assert applied.state["clock_ms"] == applied.turn_ms


def test_a_turn_is_never_shorter_than_the_minimum_turn_length_so_a_pass_costs_time() -> None:
    state = scene(bot("1-1", 5, 5), FAR)
    applied = act(state)
    assert types(applied) == ["pass"]
    assert applied.turn_ms == MIN_TURN_MS
    assert applied.state["clock_ms"] == MIN_TURN_MS


def test_a_short_action_costs_the_minimum_turn_length() -> None:
    state = scene(bot("1-1", 5, 5, facing="E"), FAR)
    applied = act(state, move("1-1", 6, 5))
    assert end_of(applied) == STEP_MS
    assert applied.turn_ms == max(STEP_MS, MIN_TURN_MS)


def test_the_battle_clock_is_the_sum_of_the_resolved_turns_lengths() -> None:
    state = scene(bot("1-1", 5, 5), bot("2-1", 15, 15), FAR, clock_ms=1234)
    lengths = []
    for order in ([move("1-1", 5, 10)], [], [], [mine("1-1")], [arm("2-1", "laser", 16, 16)]):
        applied = act(state, *order)
        lengths.append(applied.turn_ms)
        state = applied.state
    assert state["clock_ms"] == 1234 + sum(lengths)


# -- facing: the turn step and when it is skipped -----------------------------------------


def test_a_robot_turns_to_face_its_first_step_before_moving() -> None:
    state = scene(bot("1-1", 5, 5, facing="N"), FAR)
    applied = act(state, move("1-1", 8, 5))
    turned, moved = only(applied, "turned"), only(applied, "moved")
    assert (turned["robot"], turned["from"], turned["to"]) == ("1-1", "N", "E")
    assert (turned["t_ms"], turned["duration_ms"]) == (0, 2 * TURN_STEP_MS)
    assert (moved["t_ms"], moved["duration_ms"]) == (2 * TURN_STEP_MS, 3 * STEP_MS)


def test_the_turn_step_is_skipped_when_the_robot_already_faces_its_way() -> None:
    state = scene(bot("1-1", 5, 5, facing="E"), FAR)
    applied = act(state, move("1-1", 8, 5))
    assert events(applied, "turned") == []
    moved = only(applied, "moved")
    assert (moved["t_ms"], moved["duration_ms"]) == (0, 3 * STEP_MS)


def test_a_robot_turns_the_shorter_way_a_step_per_45_degrees() -> None:
    for facing, to, steps in [
        ("N", (4, 6), 3),
        ("N", (5, 6), 4),
        ("SE", (6, 4), 2),
        ("NW", (5, 4), 1),
    ]:
        state = scene(bot("1-1", 5, 5, facing=facing), FAR)
        assert only(act(state, move("1-1", *to)), "turned")["duration_ms"] == steps * TURN_STEP_MS


def test_a_path_that_bends_turns_at_the_bend() -> None:
    state = scene(bot("1-1", 5, 5, facing="E"), FAR)
    applied = act(state, move("1-1", 8, 6))
    assert [(e["type"], e["t_ms"], e["duration_ms"]) for e in applied.events] == [
        ("moved", 0, 2 * STEP_MS),
        ("turned", 2 * STEP_MS, TURN_STEP_MS),
        ("moved", 2 * STEP_MS + TURN_STEP_MS, STEP_MS),
    ]


def test_a_robot_turns_to_face_its_missile_target_before_firing() -> None:
    state = scene(bot("1-1", 5, 5, facing="N", armed="missile"), bot("2-1", 9, 5), FAR)
    applied = act(state, fire_missile("1-1", 9, 5))
    turned, missile, destroyed = (
        only(applied, "turned"),
        only(applied, "missile"),
        only(applied, "destroyed"),
    )
    assert (turned["to"], turned["duration_ms"]) == ("E", 2 * TURN_STEP_MS)
    assert missile["t_ms"] == 2 * TURN_STEP_MS
    assert destroyed["t_ms"] == 2 * TURN_STEP_MS + 4 * MISSILE_CELL_MS


def test_no_turn_step_before_firing_a_laser_already_facing_its_way() -> None:
    state = scene(bot("1-1", 5, 5, facing="S", armed="laser"), FAR)
    applied = act(state, fire_laser("1-1", "S"))
    assert events(applied, "turned") == []
    assert only(applied, "laser")["t_ms"] == 0


def test_a_robot_turns_to_face_the_way_it_fires_its_laser() -> None:
    state = scene(bot("1-1", 5, 5, facing="N", armed="laser"), FAR)
    applied = act(state, fire_laser("1-1", "SW"))
    turned = only(applied, "turned")
    assert (turned["from"], turned["to"], turned["duration_ms"]) == ("N", "SW", 3 * TURN_STEP_MS)
    assert only(applied, "laser")["t_ms"] == 3 * TURN_STEP_MS


def test_a_robot_keeps_facing_where_it_last_turned_so_its_next_turn_step_may_be_skipped() -> None:
    state = scene(bot("1-1", 5, 5, facing="N", armed="laser"), bot("2-1", 15, 15))
    state = act(state, fire_laser("1-1", "E")).state
    assert robot(state, "1-1")["facing"] == "E"
    state = act(state).state  # seat 2 passes
    assert events(act(state, move("1-1", 8, 5)), "turned") == []


def test_mining_arming_and_kamikaze_in_place_turn_nothing() -> None:
    for action, duration in [
        (mine("1-1"), MINE_MS),
        (arm("1-1", "missile"), ARM_MS),
        (kamikaze("1-1"), KAMIKAZE_MS),
    ]:
        state = scene(bot("1-1", 5, 5, facing="N"), FAR)
        applied = act(state, action)
        assert events(applied, "turned") == []
        assert applied.events[0]["t_ms"] == 0 and applied.events[0]["duration_ms"] == duration


def test_the_second_action_starts_when_the_first_ends() -> None:
    state = scene(bot("1-1", 5, 5, facing="E"), bot("1-2", 5, 8, facing="E"), FAR)
    applied = act(state, move("1-1", 8, 5), mine("1-2"))
    assert only(applied, "mined")["t_ms"] == 3 * STEP_MS
    assert applied.turn_ms == max(3 * STEP_MS + MINE_MS, MIN_TURN_MS)


def test_a_shield_costs_no_time_beyond_its_move_and_its_deflect_turns_nothing() -> None:
    for to in [(8, 8), (5, 5)]:
        base = scene(bot("1-1", 5, 5, facing="N"), FAR)
        moved = act(base, move("1-1", *to))
        shielded = act(base, shield("1-1", *to, deflect="S"))
        assert shielded.turn_ms == moved.turn_ms
        assert shielded.state["clock_ms"] == moved.state["clock_ms"]
        public = [e for e in shielded.events if e["type"] != "shielded"]
        assert public == [e for e in moved.events if e["type"] != "pass"]


# -- the end ------------------------------------------------------------------------------


def test_the_match_ends_after_the_turn_that_takes_the_clock_to_its_length() -> None:
    state = scene(
        bot("1-1", 5, 5), bot("2-1", 15, 15), length_ms=60_000, clock_ms=60_000 - MIN_TURN_MS
    )
    applied = act(state)
    assert applied.state["clock_ms"] == 60_000
    assert applied.state["over"] is True
    assert applied.state["to_move"] is None
    assert only(applied, "match_over")["winners"] == [1, 2]


def test_the_match_ends_after_the_turn_that_takes_the_clock_past_its_length() -> None:
    state = scene(bot("1-1", 5, 5), bot("2-1", 15, 15), length_ms=60_000, clock_ms=59_999)
    assert act(state).state["over"] is True


def test_the_match_goes_on_while_the_clock_is_short_of_its_length() -> None:
    state = scene(
        bot("1-1", 5, 5), bot("2-1", 15, 15), length_ms=60_000, clock_ms=60_000 - MIN_TURN_MS - 1
    )
    applied = act(state)
    assert applied.state["over"] is False
    assert applied.state["to_move"] == 2
    assert events(applied, "match_over") == []


def test_the_default_battle_is_ten_minutes_of_battle_time() -> None:
    assert engine.new_game(seed=1)["length_ms"] == 600_000
    assert engine.new_game(seed=1, length_ms=90_000)["length_ms"] == 90_000


def test_the_match_ends_as_soon_as_at_most_one_seat_has_robots() -> None:
    state = scene(bot("1-1", 5, 5, armed="missile"), bot("2-1", 8, 5), FAR, money={4: 900})
    applied = act(state, fire_missile("1-1", 8, 5))
    assert applied.state["over"] is False  # seats 1 and 4 still have robots
    state = scene(bot("1-1", 5, 5, armed="missile"), bot("2-1", 8, 5), money={2: 900})
    applied = act(state, fire_missile("1-1", 8, 5))
    assert applied.state["over"] is True
    assert applied.state["clock_ms"] < applied.state["length_ms"]


def test_the_winners_are_the_richest_seats_with_robots_left() -> None:
    state = scene(
        bot("1-1", 5, 5),
        bot("2-1", 9, 9, alive=False),
        bot("3-1", 15, 15),
        bot("4-1", 1, 18),
        money={1: 100, 2: 5000, 3: 300, 4: 299},
        clock_ms=599_999,
    )
    applied = act(state)
    assert applied.state["winners"] == [3]
    assert only(applied, "match_over")["winners"] == [3]


def test_seats_tied_for_the_most_money_share_the_win() -> None:
    state = scene(
        bot("1-1", 5, 5),
        bot("2-1", 9, 9),
        bot("3-1", 15, 15),
        money={1: 300, 2: 100, 3: 300},
        clock_ms=599_999,
    )
    assert act(state).state["winners"] == [1, 3]


def test_the_last_seat_with_robots_wins_even_if_poorer() -> None:
    state = scene(bot("1-1", 5, 5, armed="missile"), bot("2-1", 8, 5), money={1: 0, 2: 9000})
    applied = act(state, fire_missile("1-1", 8, 5))
    assert applied.state["winners"] == [1]


def test_when_no_seat_has_robots_left_nobody_wins() -> None:
    state = scene(bot("1-1", 5, 5), bot("2-1", 6, 5), money={1: 10, 2: 20})
    applied = act(state, kamikaze("1-1"))
    assert not alive(applied.state, "2-1")
    assert applied.state["over"] is True
    assert applied.state["winners"] == []
    assert only(applied, "match_over")["winners"] == []


def test_the_match_over_event_comes_last_at_the_end_of_the_turn() -> None:
    state = scene(bot("1-1", 5, 5), bot("2-1", 15, 15), clock_ms=599_999)
    applied = act(state, move("1-1", 5, 6))
    assert applied.events[-1]["type"] == "match_over"
    assert applied.events[-1]["t_ms"] + applied.events[-1]["duration_ms"] <= applied.turn_ms


def test_no_orders_are_taken_once_the_match_is_over() -> None:
    state = scene(bot("1-1", 5, 5), bot("2-1", 15, 15), clock_ms=599_999)
    over = act(state).state
    for seat in (1, 2):
        reject_orders(over, {"seat": seat, "turn": over["turn"], "actions": []}, code="match_over")
