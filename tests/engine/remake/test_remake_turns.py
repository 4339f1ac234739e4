"""Turns of the remake (remake.md "Turns"): seat order, one action per vehicle up to
five, in order on the board the previous one left, no inactive immunity, rounds."""

from __future__ import annotations

import pytest
from helpers import (
    act,
    alive,
    bot,
    cell,
    events,
    fire_laser,
    fire_missile,
    kamikaze,
    mine,
    move,
    reject,
    reject_orders,
    robot,
)
from remake_helpers import pass_turn, scene

import engine

FAR = bot("4-5", 19, 19)


def test_seats_move_in_order_and_a_seat_with_no_vehicle_left_is_skipped() -> None:
    state = scene(bot("1-1", 5, 5), bot("2-1", 15, 5), bot("4-1", 5, 15), to_move=1)
    order = []
    for _ in range(4):
        order.append(state["to_move"])
        state = pass_turn(state).state
    assert order == [1, 2, 4, 1]


def test_a_seat_gives_one_action_to_each_of_its_five_vehicles() -> None:
    mine_ = [bot(f"1-{n}", n * 3, 5) for n in range(1, 6)]
    state = scene(*mine_, FAR)
    applied = act(state, *(move(f"1-{n}", n * 3, 10) for n in range(1, 6)))
    assert [cell(applied.state, f"1-{n}") for n in range(1, 6)] == [
        (n * 3, 10) for n in range(1, 6)
    ]


def test_zero_actions_is_a_pass() -> None:
    applied = pass_turn(scene(bot("1-1", 5, 5), FAR))
    assert [e["type"] for e in applied.events] == ["pass"]
    assert applied.state["to_move"] == 4


def test_more_than_five_actions_is_too_many_actions() -> None:
    state = scene(*(bot(f"1-{n}", n * 3, 5) for n in range(1, 6)), FAR)
    actions = [move(f"1-{n}", n * 3, 6) for n in range(1, 6)] + [move("1-1", 3, 7)]
    body = reject(state, *actions, code="too_many_actions")
    assert "5" in body["message"]


def test_a_vehicle_named_twice_is_a_duplicate_robot() -> None:
    state = scene(bot("1-1", 5, 5), FAR)
    body = reject(state, move("1-1", 6, 6), move("1-1", 7, 7), code="duplicate_robot")
    assert body["action"] == 1


def test_actions_resolve_in_order_each_on_the_board_the_previous_one_left() -> None:
    state = scene(bot("1-1", 5, 5), bot("1-2", 4, 5), FAR)
    reject(state, move("1-2", 5, 5), move("1-1", 9, 5), code="occupied")
    applied = act(state, move("1-1", 9, 5), move("1-2", 5, 5))
    assert (cell(applied.state, "1-1"), cell(applied.state, "1-2")) == ((9, 5), (5, 5))


def test_an_illegal_action_rejects_the_whole_turn_and_names_its_index() -> None:
    state = scene(bot("1-1", 5, 5), bot("1-2", 8, 8), FAR)
    body = reject(state, move("1-1", 6, 6), move("1-2", 8, 18), code="out_of_range")
    assert body["action"] == 1


def test_an_action_of_a_vehicle_destroyed_earlier_in_the_turn_is_skipped() -> None:
    state = scene(bot("1-1", 5, 5), bot("1-2", 6, 5), FAR)
    applied = act(state, kamikaze("1-1"), move("1-2", 8, 8))
    assert not alive(applied.state, "1-2")
    [skipped] = events(applied, "skipped")
    assert (skipped["robot"], skipped["reason"]) == ("1-2", "robot_destroyed")


def test_there_is_no_inactive_immunity_vehicles_can_be_hit_from_the_first_turn() -> None:
    state = scene(bot("1-1", 5, 5, armed="missile"), bot("2-1", 9, 9, active=False), FAR)
    applied = act(state, fire_missile("1-1", 9, 9))
    assert not alive(applied.state, "2-1")


def test_every_vehicle_is_active_from_the_start() -> None:
    state = engine.new_game(seed=2, ruleset="helium3-remake")
    assert all(r["active"] for r in state["robots"])


def test_a_later_action_is_judged_on_what_the_seat_knows_not_on_hidden_shields() -> None:
    # 2-1's shield is hidden from seat 1: it believes its laser destroys 2-1, so
    # moving 1-2 onto 2-1's cell is legal; in reality 2-1 survives and the move is skipped.
    state = scene(
        bot("1-1", 5, 5, armed="laser"), bot("1-2", 5, 7), bot("2-1", 8, 5, shield=True), FAR
    )
    applied = act(state, fire_laser("1-1", "E"), move("1-2", 8, 5))
    assert alive(applied.state, "2-1") and cell(applied.state, "1-2") == (5, 7)
    [skipped] = events(applied, "skipped")
    assert (skipped["robot"], skipped["reason"]) == ("1-2", "occupied")
    # Without a hidden shield the same orders are simply legal.
    plain = scene(bot("1-1", 5, 5, armed="laser"), bot("1-2", 5, 7), bot("2-1", 8, 5), FAR)
    assert cell(act(plain, fire_laser("1-1", "E"), move("1-2", 8, 5)).state, "1-2") == (8, 5)


def test_orders_illegal_on_what_the_seat_knows_are_refused_even_if_reality_allows_them() -> None:
    # 2-1's hidden deflect turns the beam south onto 2-2, freeing (8, 8) in reality; seat 1
    # believes the beam goes on east and 2-2 still stands there, so its move is refused.
    state = scene(
        bot("1-1", 5, 5, armed="laser"),
        bot("1-2", 6, 8),
        bot("2-1", 8, 5, shield=True, deflect="S"),
        bot("2-2", 8, 8),
        FAR,
    )
    reject(state, fire_laser("1-1", "E"), move("1-2", 8, 8), code="occupied")
    assert not alive(act(state, fire_laser("1-1", "E")).state, "2-2")


def test_rounds_default_to_20_and_may_be_5_to_100() -> None:
    state = engine.new_game(seed=1, ruleset="helium3-remake")
    assert (state["rounds"], state["round"]) == (20, 1)
    for rounds in (5, 100):
        given = engine.new_game(seed=1, ruleset="helium3-remake", options={"rounds": rounds})
        assert given["rounds"] == rounds
    for rounds in (4, 101):
        with pytest.raises(engine.ShapeError):
            engine.new_game(seed=1, ruleset="helium3-remake", options={"rounds": rounds})


def test_round_grows_when_the_turn_passes_to_a_lower_numbered_seat() -> None:
    state = scene(bot("1-1", 5, 5), bot("3-1", 15, 15), seats=4, to_move=1)
    rounds = []
    for _ in range(5):
        rounds.append((state["to_move"], state["round"]))
        state = pass_turn(state).state
    assert rounds == [(1, 1), (3, 1), (1, 2), (3, 2), (1, 3)]


def test_the_match_ends_when_the_rounds_run_out_and_the_richest_seat_with_a_vehicle_wins() -> None:
    def last_turn_of(round_no: int) -> dict[str, object]:
        return scene(
            bot("1-1", 5, 5), bot("2-1", 15, 5), bot("3-1", 15, 15, alive=False),
            money={1: 300, 2: 500, 3: 900}, to_move=2, rounds=5, round_no=round_no,
        )  # fmt: skip

    going_on = pass_turn(last_turn_of(4)).state
    assert (going_on["over"], going_on["to_move"], going_on["round"]) == (False, 1, 5)
    applied = pass_turn(last_turn_of(5))
    final = applied.state
    assert (final["over"], final["winners"], final["to_move"]) == (True, [2], None)
    assert final["termination"] == "rounds" and final["awaiting"] == []
    assert events(applied, "match_over")[0]["winners"] == [2]


def test_a_rich_seat_without_vehicles_does_not_win() -> None:
    state = scene(
        bot("1-1", 5, 5), bot("4-1", 5, 15), bot("2-1", 9, 9, alive=False),
        money={1: 100, 2: 5000, 4: 0}, to_move=4, rounds=5, round_no=5,
    )  # fmt: skip
    assert pass_turn(state).state["winners"] == [1]


def test_the_last_seat_with_vehicles_wins_at_once() -> None:
    state = scene(bot("1-1", 5, 5, armed="missile"), bot("2-1", 9, 9), money={2: 700})
    final = act(state, fire_missile("1-1", 9, 9)).state
    assert (final["over"], final["winners"], final["termination"]) == (True, [1], "elimination")


def test_equal_money_shares_the_win() -> None:
    state = scene(
        bot("1-1", 5, 5), bot("4-1", 5, 15), money={1: 400, 4: 400}, to_move=4, rounds=5,
        round_no=5,
    )  # fmt: skip
    assert pass_turn(state).state["winners"] == [1, 4]


def test_awaiting_is_the_seat_to_move_and_scores_are_the_money() -> None:
    state = scene(bot("1-1", 5, 5, mined=0), FAR, money={1: 200, 4: 100}, to_move=1)
    assert engine.awaiting(state) == [1]
    assert engine.scores(state) == {"1": 200, "2": 0, "3": 0, "4": 100}
    after = act(state, mine("1-1")).state
    assert after["awaiting"] == [4] and engine.awaiting(after) == [4]


def test_default_orders_are_a_pass() -> None:
    state = scene(bot("1-1", 5, 5), FAR)
    given = engine.default_orders(state, 1)
    assert given == {"seat": 1, "turn": 0, "actions": []}
    assert robot(engine.apply(state, given).state, "1-1") == robot(state, "1-1")


def test_orders_for_another_seat_or_turn_are_refused() -> None:
    state = scene(bot("1-1", 5, 5), FAR)
    reject_orders(state, {"seat": 4, "turn": 0, "actions": []}, code="not_your_turn")
    reject_orders(state, {"seat": 1, "turn": 3, "actions": []}, code="stale_turn")
    over = dict(state, over=True, to_move=None, winners=[1], awaiting=[])
    reject_orders(over, {"seat": 1, "turn": 0, "actions": []}, code="match_over")


def test_check_accepts_what_apply_accepts_and_changes_nothing() -> None:
    state = scene(bot("1-1", 5, 5), FAR)
    engine.check(state, {"seat": 1, "turn": 0, "actions": [move("1-1", 10, 10)]})
    with pytest.raises(engine.OrdersError):
        engine.check(state, {"seat": 1, "turn": 0, "actions": [move("1-1", 11, 11)]})
