"""Players, spawns and turns (docs/games/helium3.md "Players and spawns" and "Turns")."""

from __future__ import annotations

from typing import Any

import pytest
from helpers import (
    act,
    alive,
    arm,
    bot,
    cell,
    events,
    fire_missile,
    kamikaze,
    move,
    reject,
    robot,
    scene,
    types,
)

import engine
from engine.errors import EngineError

SPAWNS = {
    1: [(2, 0), (2, 1), (0, 2), (1, 2), (2, 2)],
    2: [(17, 0), (17, 1), (17, 2), (18, 2), (19, 2)],
    3: [(17, 19), (17, 18), (17, 17), (18, 17), (19, 17)],
    4: [(2, 19), (2, 18), (0, 17), (1, 17), (2, 17)],
}


def test_each_seat_starts_with_five_robots_in_an_l_around_its_corner() -> None:
    state = engine.new_game(seed=3)
    for seat, cells in SPAWNS.items():
        mine = [r for r in state["robots"] if r["seat"] == seat]
        assert [(r["x"], r["y"]) for r in mine] == cells


def test_robot_ids_are_seat_dash_n_numbered_1_to_5_in_the_listed_order() -> None:
    state = engine.new_game(seed=3)
    for seat, cells in SPAWNS.items():
        for n, (x, y) in enumerate(cells, start=1):
            assert cell(state, f"{seat}-{n}") == (x, y)
    assert len(state["robots"]) == 20


@pytest.mark.parametrize(("seat", "facing"), [(1, "SE"), (2, "SW"), (3, "NW"), (4, "NE")])
def test_robots_start_facing_the_centre_se_sw_nw_ne(seat: int, facing: str) -> None:
    state = engine.new_game(seed=3)
    assert {r["facing"] for r in state["robots"] if r["seat"] == seat} == {facing}


def test_robots_start_inactive_unarmed_unshielded_alive_with_nothing_mined() -> None:
    state = engine.new_game(seed=3)
    for r in state["robots"]:
        assert (r["active"], r["armed"], r["shield"], r["deflect"], r["mined"], r["alive"]) == (
            False, None, False, None, 0, True,
        )  # fmt: skip


def test_a_new_match_starts_at_turn_0_with_seat_1_to_move_and_no_money() -> None:
    state = engine.new_game(seed=3)
    assert (state["turn"], state["to_move"], state["clock_ms"]) == (0, 1, 0)
    assert state["players"] == [{"seat": s, "money": 0} for s in (1, 2, 3, 4)]
    assert (state["over"], state["winners"]) == (False, [])


@pytest.mark.parametrize(("seats", "expected"), [(2, [1, 3]), (3, [1, 2, 3]), (4, [1, 2, 3, 4])])
def test_two_players_take_seats_1_and_3_and_three_players_seats_1_2_3(
    seats: int, expected: list[int]
) -> None:
    state = engine.new_game(seed=3, seats=seats)
    assert [p["seat"] for p in state["players"]] == expected
    assert sorted({r["seat"] for r in state["robots"]}) == expected
    for seat in expected:
        assert [cell(state, f"{seat}-{n}") for n in range(1, 6)] == SPAWNS[seat]


@pytest.mark.parametrize("seats", [0, 1, 5])
def test_a_match_has_2_3_or_4_seats(seats: int) -> None:
    with pytest.raises(EngineError) as caught:
        engine.new_game(seed=3, seats=seats)
    assert caught.value.code == "bad_shape"


def pass_turn(state: dict[str, Any]) -> dict[str, Any]:
    return act(state).state


def test_seats_move_in_order_1_2_3_4_and_then_1_again() -> None:
    state = engine.new_game(seed=3)
    seen = []
    for _ in range(6):
        seen.append(state["to_move"])
        state = pass_turn(state)
    assert seen == [1, 2, 3, 4, 1, 2]
    assert state["turn"] == 6


def test_in_a_two_player_match_seats_1_and_3_alternate() -> None:
    state = engine.new_game(seed=3, seats=2)
    seen = []
    for _ in range(4):
        seen.append(state["to_move"])
        state = pass_turn(state)
    assert seen == [1, 3, 1, 3]


def test_a_seat_with_no_robots_left_is_skipped() -> None:
    state = scene(
        bot("1-1", 5, 5),
        bot("2-1", 10, 10, alive=False),
        bot("3-1", 15, 15),
        bot("4-1", 0, 19),
    )
    state = pass_turn(state)
    assert state["to_move"] == 3
    state = pass_turn(pass_turn(state))
    assert state["to_move"] == 1


def test_a_seat_that_loses_its_last_robot_during_a_turn_is_skipped_from_then_on() -> None:
    state = scene(
        bot("1-1", 5, 5, armed="missile"),
        bot("2-1", 8, 5),
        bot("3-1", 15, 15),
        bot("4-1", 0, 19),
    )
    applied = act(state, fire_missile("1-1", 8, 5))
    assert not alive(applied.state, "2-1")
    assert applied.state["to_move"] == 3
    assert not applied.state["over"]


def test_the_seat_to_move_after_the_last_seat_wraps_past_eliminated_seats() -> None:
    state = scene(
        bot("1-1", 5, 5, alive=False),
        bot("2-1", 8, 5),
        bot("3-1", 15, 15),
        bot("4-1", 0, 19),
        to_move=4,
    )
    assert pass_turn(state)["to_move"] == 2


def test_zero_actions_is_a_pass_and_the_turn_still_counts() -> None:
    state = scene(bot("1-1", 5, 5), bot("2-1", 8, 5))
    applied = act(state)
    assert types(applied) == ["pass"]
    assert events(applied, "pass")[0]["seat"] == 1
    assert applied.state["turn"] == 1
    assert applied.state["robots"] == state["robots"]


def test_a_seat_gives_orders_to_at_most_two_robots() -> None:
    state = scene(bot("1-1", 5, 5), bot("1-2", 6, 6), bot("1-3", 7, 7), bot("2-1", 19, 19))
    body = reject(
        state, move("1-1", 5, 3), move("1-2", 6, 3), move("1-3", 7, 3), code="too_many_actions"
    )
    assert "2" in body["message"]


def test_a_robot_takes_at_most_one_action_a_turn() -> None:
    state = scene(bot("1-1", 5, 5), bot("2-1", 19, 19))
    body = reject(state, move("1-1", 5, 3), move("1-1", 5, 1), code="duplicate_robot")
    assert body["action"] == 1


def test_a_seat_orders_only_its_own_robots() -> None:
    state = scene(bot("1-1", 5, 5), bot("2-1", 19, 19))
    body = reject(state, move("2-1", 18, 18), code="not_your_robot")
    assert body["action"] == 0


def test_two_robots_may_act_in_one_turn() -> None:
    state = scene(bot("1-1", 5, 5), bot("1-2", 6, 6), bot("2-1", 19, 19))
    applied = act(state, move("1-1", 5, 3), move("1-2", 9, 6))
    assert cell(applied.state, "1-1") == (5, 3)
    assert cell(applied.state, "1-2") == (9, 6)


def test_the_second_action_sees_the_board_as_the_first_left_it() -> None:
    # 1-2 may move into the cell 1-1 has just left.
    state = scene(bot("1-1", 5, 5), bot("1-2", 5, 6), bot("2-1", 19, 19))
    applied = act(state, move("1-1", 5, 2), move("1-2", 5, 5))
    assert cell(applied.state, "1-2") == (5, 5)


def test_the_second_action_cannot_end_where_the_first_has_just_arrived() -> None:
    state = scene(bot("1-1", 5, 5), bot("1-2", 9, 5), bot("2-1", 19, 19))
    body = reject(state, move("1-1", 7, 5), move("1-2", 7, 5), code="occupied")
    assert body["action"] == 1


def test_the_second_action_walks_around_the_robot_the_first_has_just_moved() -> None:
    state = scene(bot("1-1", 5, 5, facing="E"), bot("1-2", 4, 6, facing="E"), bot("2-1", 19, 19))
    applied = act(state, move("1-1", 5, 6), move("1-2", 6, 6))
    second = [c for e in applied.events if e.get("robot") == "1-2" and e["type"] == "moved"
              for c in e["path"]]  # fmt: skip
    assert [5, 6] not in second
    assert cell(applied.state, "1-2") == (6, 6)


def test_the_actions_resolve_in_the_order_given() -> None:
    state = scene(bot("1-1", 5, 5, facing="N"), bot("1-2", 8, 8, facing="N"), bot("2-1", 19, 19))
    applied = act(state, move("1-2", 8, 6), move("1-1", 5, 3))
    first = [e for e in applied.events if e.get("robot") == "1-2"]
    second = [e for e in applied.events if e.get("robot") == "1-1"]
    assert max(e["t_ms"] + e["duration_ms"] for e in first) <= min(e["t_ms"] for e in second)


def test_an_illegal_second_action_rejects_the_whole_turn_and_the_first_is_not_played() -> None:
    state = scene(bot("1-1", 5, 5), bot("1-2", 9, 9), bot("2-1", 19, 19))
    reject(state, move("1-1", 5, 3), move("1-2", 19, 19), code="out_of_range")


def test_the_second_action_is_skipped_not_refused_when_the_first_destroyed_its_robot() -> None:
    state = scene(bot("1-1", 5, 5), bot("1-2", 6, 5), bot("2-1", 19, 19))
    applied = act(state, kamikaze("1-1"), move("1-2", 6, 1))
    assert not alive(applied.state, "1-2")
    skipped = events(applied, "skipped")
    assert [(e["robot"], e["reason"]) for e in skipped] == [("1-2", "robot_destroyed")]
    assert applied.state["turn"] == 1


def test_a_fire_order_after_the_robot_was_destroyed_by_the_first_action_is_skipped() -> None:
    state = scene(
        bot("1-1", 5, 5),
        bot("1-2", 6, 5, armed="missile"),
        bot("2-1", 9, 5),
        bot("3-1", 19, 19),
    )
    applied = act(state, kamikaze("1-1"), fire_missile("1-2", 9, 5))
    assert alive(applied.state, "2-1")
    assert events(applied, "missile") == []
    assert [e["robot"] for e in events(applied, "skipped")] == ["1-2"]


def test_the_first_action_may_arm_and_the_second_act_on_the_new_board() -> None:
    state = scene(bot("1-1", 5, 5), bot("1-2", 6, 6), bot("2-1", 19, 19))
    applied = act(state, arm("1-1", "missile", 5, 3), move("1-2", 5, 5))
    assert robot(applied.state, "1-1")["armed"] == "missile"
    assert cell(applied.state, "1-2") == (5, 5)
