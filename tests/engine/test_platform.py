"""The platform's engine contract (platform.md, "The engine"): every ruleset answers
`awaiting`, `scores`, `check`, `default_orders`; `apply` takes a list of orders for a
simultaneous turn or a setup phase; a turn may be made of steps, each checked by its
`step_no`. Shown on Helium 3 and on the test rulesets of platform_rulesets.py, one
for each shape of turn no shipped game uses yet."""

from __future__ import annotations

import copy
import json
from typing import Any

import platform_rulesets
import pytest
from helpers import assert_one_sentence, reject_orders

import engine
from engine import match, rulesets
from engine.core import Option, OptionError, Shape

State = dict[str, Any]


@pytest.fixture(autouse=True, scope="module")
def test_rulesets():
    platform_rulesets.register()
    yield
    platform_rulesets.unregister()


def rps(seed: int = 1, seats: int = 2, **options: Any) -> State:
    return engine.new_game(seed=seed, seats=seats, ruleset="rps", options=options)


def throw(state: State, seat: int, what: str | None = "rock", **extra: Any) -> dict[str, Any]:
    return {"seat": seat, "turn": state["turn"], "throw": what, **extra}


def step(state: State, action: str, **extra: Any) -> dict[str, Any]:
    return {"seat": state["to_move"], "turn": state["turn"], "action": action, **extra}


# -- Helium 3 through the new entry points ------------------------------------------------


def test_helium3_awaits_the_seat_to_move_and_no_one_once_over() -> None:
    state = engine.new_game(seed=3, seats=3)
    assert engine.awaiting(state) == [1]
    state = engine.apply(state, engine.default_orders(state, 1)).state
    assert engine.awaiting(state) == [2] == [state["to_move"]]
    over = dict(state, over=True, to_move=None, winners=[2])
    assert engine.awaiting(over) == []


def test_helium3_scores_are_each_seats_money() -> None:
    state = engine.new_game(seed=3, seats=2)
    state["players"][1]["money"] = 700
    assert engine.scores(state) == {"1": 0, "3": 700}


def test_helium3_state_json_keeps_its_protocol_keys_only() -> None:
    # Its awaiting and scores come from engine.awaiting and engine.scores: the state's
    # JSON stays exactly docs/protocol.md's, so its golden replays still replay byte for byte.
    state = engine.new_game(seed=3)
    assert "awaiting" not in state and "scores" not in state


def test_helium3_default_orders_are_a_pass() -> None:
    state = engine.new_game(seed=3)
    assert engine.default_orders(state, 1) == {"seat": 1, "turn": 0, "actions": []}
    applied = engine.apply(state, engine.default_orders(state, 1))
    assert [e["type"] for e in applied.events] == ["pass"]


def test_default_orders_are_only_for_an_awaited_seat() -> None:
    state = engine.new_game(seed=3)
    with pytest.raises(engine.OrdersError) as caught:
        engine.default_orders(state, 2)
    assert caught.value.code == "not_your_turn"
    with pytest.raises(engine.OrdersError) as caught:
        engine.default_orders(dict(state, over=True, to_move=None), 1)
    assert caught.value.code == "match_over"


@pytest.mark.parametrize(
    ("orders", "code"),
    [
        ({"seat": 2, "turn": 0, "actions": []}, "not_your_turn"),
        ({"seat": 1, "turn": 5, "actions": []}, "stale_turn"),
        ({"seat": 1, "turn": 0}, "bad_shape"),
        ({"seat": 1, "turn": 0, "actions": [{"robot": "1-1", "type": "move", "to": [19, 19]}]},
         "out_of_range"),
        ({"seat": 1, "turn": 0, "actions": [{"robot": "2-1", "type": "kamikaze"}]},
         "not_your_robot"),
        ("orders", "bad_shape"),
    ],
)  # fmt: skip
def test_helium3_check_refuses_what_apply_refuses_with_the_same_error(orders: Any, code: str):
    state = engine.new_game(seed=3)
    before = copy.deepcopy(state)
    with pytest.raises(engine.EngineError) as by_check:
        engine.check(state, orders)
    assert by_check.value.code == code
    assert reject_orders(state, orders, code=code)["message"] == by_check.value.message
    assert state == before


def test_check_takes_one_seats_orders_never_a_list() -> None:
    state = engine.new_game(seed=3)
    with pytest.raises(engine.ShapeError):
        engine.check(state, [{"seat": 1, "turn": 0, "actions": []}])
    reject_orders(state, [], code="bad_shape")


def test_helium3_check_accepts_legal_orders_and_changes_nothing() -> None:
    state = engine.new_game(seed=3)
    before = copy.deepcopy(state)
    legal = {"seat": 1, "turn": 0, "actions": [{"robot": "1-1", "type": "move", "to": [3, 2]}]}
    assert engine.check(state, legal) is None
    assert engine.validate(state, legal) is None
    assert state == before


def test_a_list_of_one_orders_is_the_same_as_the_orders() -> None:
    state = engine.new_game(seed=3)
    given = {"seat": 1, "turn": 0, "actions": [{"robot": "1-1", "type": "move", "to": [3, 2]}]}
    assert engine.apply(state, [given]) == engine.apply(state, given)


def test_a_list_of_orders_for_a_one_seat_turn_names_only_the_awaited_seat() -> None:
    state = engine.new_game(seed=3)
    one = {"seat": 1, "turn": 0, "actions": []}
    two = {"seat": 2, "turn": 0, "actions": []}
    reject_orders(state, [two], code="not_your_turn")
    reject_orders(state, [one, two], code="not_your_turn")
    reject_orders(state, [one, one], code="bad_shape")


def test_helium3_orders_take_no_step_no_as_before() -> None:
    state = engine.new_game(seed=3)
    assert engine.step(state) == 0
    reject_orders(state, {"seat": 1, "turn": 0, "step_no": 0, "actions": []}, code="bad_shape")


def test_helium3_declares_its_seats_options_and_shape() -> None:
    rules = engine.ruleset("helium3")
    assert rules.seats == (2, 3, 4) and rules.default_seats == 4
    assert rules.shape == Shape() and rules.shape.describe() == "one seat at a time"
    assert [o.name for o in engine.options("helium3")] == ["length_ms"]
    assert engine.new_game(seed=1, options={"length_ms": 90_000})["length_ms"] == 90_000
    assert engine.new_game(seed=1) == engine.new_game(seed=1, seats=4, length_ms=600_000)


# -- options -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"rounds": 0}, "Option rounds is at least 1."),
        ({"rounds": 51}, "Option rounds is at most 50."),
        ({"rounds": "3"}, "Option rounds takes a whole number."),
        ({"rounds": True}, "Option rounds takes a whole number."),
        ({"colour": "red"}, "The rps ruleset has no option 'colour'; known: rounds."),
    ],
)
def test_options_are_checked_against_the_rulesets_declarations(options, message) -> None:
    with pytest.raises(OptionError) as caught:
        rps(**options)
    assert caught.value.code == "bad_shape" and caught.value.message == message
    assert_one_sentence(message)


def test_options_fill_in_their_defaults() -> None:
    assert rps()["rounds"] == 3 and rps(rounds=7)["rounds"] == 7
    assert engine.ruleset("dig").resolve_options({"steps": 5}) == {
        "steps": 5,
        "rounds": 4,
        "width": 9,
    }


def test_options_parse_from_the_command_lines_text() -> None:
    rules = engine.ruleset("dig")
    assert rules.parse_options(["steps=5", " width = 12"]) == {"steps": 5, "width": 12}
    for bad, message in [
        (["steps"], "Write an option as NAME=VALUE, not 'steps'."),
        (["steps=x"], "Option steps takes a whole number, not 'x'."),
        (["steps=2", "steps=3"], "Option steps is given twice."),
    ]:
        with pytest.raises(OptionError) as caught:
            rules.parse_options(bad)
        assert caught.value.message == message


def test_a_string_option_takes_one_of_its_choices() -> None:
    option = Option("map", "str", "moon", choices=("moon", "mars"))
    assert option.parse("mars") == "mars"
    with pytest.raises(OptionError, match="one of moon, mars"):
        option.parse("venus")
    assert option.describe() == "map=moon (moon|mars)"


def test_a_ruleset_without_a_battle_clock_ignores_length_ms() -> None:
    assert engine.new_game(seed=1, ruleset="rps", length_ms=600_000) == rps()


def test_a_seat_count_the_ruleset_does_not_have_is_refused() -> None:
    with pytest.raises(engine.ShapeError) as caught:
        engine.new_game(seed=1, seats=3, ruleset="nim")
    assert caught.value.message == "A nim match has 2 seats."


# -- simultaneous turns (rps) ---------------------------------------------------------------


def test_a_simultaneous_turn_awaits_every_seat_in_seat_order() -> None:
    state = rps(seats=3)
    assert engine.awaiting(state) == [1, 2, 3]
    assert engine.ruleset("rps").shape.simultaneous


def test_a_simultaneous_turn_resolves_every_seats_orders_together() -> None:
    state = rps(seats=3)
    applied = engine.apply(
        state, [throw(state, 1, "rock"), throw(state, 2, "scissors"), throw(state, 3, "paper")]
    )
    assert applied.state["turn"] == 1
    assert engine.scores(applied.state) == {"1": 1, "2": 1, "3": 1}
    assert applied.state["last"] == {"1": "rock", "2": "scissors", "3": "paper"}
    assert engine.awaiting(applied.state) == [1, 2, 3]


def test_each_seats_orders_are_checked_alone_without_the_others() -> None:
    state = rps(seats=3)
    engine.check(state, throw(state, 2, "paper"))
    with pytest.raises(engine.ShapeError):
        engine.check(state, throw(state, 2, "lizard"))
    with pytest.raises(engine.OrdersError) as caught:
        engine.check(state, throw(state, 4))
    assert caught.value.code == "not_your_turn"


@pytest.mark.parametrize(
    ("seats", "code", "message"),
    [
        ([1, 2], "bad_shape",
         "Orders for seat 3 are missing; give its default orders if it sent none."),
        ([1, 2, 3, 4], "not_your_turn", "Seat 4 is not awaited this turn."),
        ([1, 2, 2, 3], "bad_shape", "Seat 2 appears twice in the list of orders."),
        ([2, 1, 3], "bad_shape", "Give the orders in seat order: 1, 2, 3."),
    ],
)  # fmt: skip
def test_a_simultaneous_list_has_one_orders_per_awaited_seat_in_seat_order(seats, code, message):
    state = rps(seats=3)
    body = reject_orders(state, [throw(state, s) for s in seats], code=code)
    assert body["message"] == message


def test_a_simultaneous_turn_refuses_one_orders_object_and_an_empty_list() -> None:
    state = rps(seats=3)
    body = reject_orders(state, throw(state, 1), code="bad_shape")
    assert body["message"] == "Seats 1, 2, 3 are all awaited: give a list of their orders."
    reject_orders(state, throw(state, 5), code="not_your_turn")
    reject_orders(state, [], code="bad_shape")
    body = reject_orders(state, [throw(state, 1), "rock", throw(state, 3)], code="bad_shape")
    assert (
        body["message"]
        == "Item 2 of the list of orders must be an object with 'seat', a seat number."
    )
    reject_orders(state, "rock", code="bad_shape")


def test_one_bad_orders_in_the_list_refuses_the_whole_turn() -> None:
    state = rps()
    stale = {"seat": 2, "turn": 4, "throw": "rock"}
    reject_orders(state, [throw(state, 1), stale], code="stale_turn")
    reject_orders(state, [throw(state, 1), throw(state, 2, "spock")], code="bad_shape")


def test_a_seat_missing_at_the_deadline_gets_default_orders_a_pass() -> None:
    state = rps()
    assert engine.default_orders(state, 2) == {"seat": 2, "turn": 0, "throw": None}
    applied = engine.apply(state, [throw(state, 1, "rock"), engine.default_orders(state, 2)])
    assert engine.scores(applied.state) == {"1": 0, "2": 0}


def test_a_simultaneous_game_ends_with_no_seat_awaited() -> None:
    state = rps(rounds=1)
    over = engine.apply(state, [throw(state, 1, "paper"), throw(state, 2, "rock")]).state
    assert over["over"] and over["winners"] == [1] and engine.awaiting(over) == []
    reject_orders(over, [throw(over, 1), throw(over, 2)], code="match_over")
    with pytest.raises(engine.OrdersError) as caught:
        engine.check(over, throw(over, 1))
    assert caught.value.code == "match_over"


def test_a_game_with_nothing_hidden_views_as_the_state_plus_the_viewer() -> None:
    state = rps()
    assert engine.view(state, 2) == {**{k: v for k, v in state.items() if k != "seed"},
                                     "viewer": 2}  # fmt: skip
    assert engine.view(state, None)["viewer"] is None


# -- a setup phase at once, then one seat at a time (race) ------------------------------------


def test_a_setup_phase_awaits_every_seat_then_one_at_a_time() -> None:
    state = engine.new_game(seed=2, seats=3, ruleset="race")
    assert engine.awaiting(state) == [1, 2, 3] and state["phase"] == "setup"
    setup = [{"seat": s, "turn": 0, "head_start": s} for s in (1, 2, 3)]
    state = engine.apply(state, setup).state
    assert state["phase"] == "race" and engine.awaiting(state) == [1]
    assert engine.view(state, 3)["viewer"] == 3 and "seed" not in engine.view(state, 3)
    assert engine.scores(state) == {"1": 1, "2": 2, "3": 3}
    state = engine.apply(state, {"seat": 1, "turn": 1, "add": 3}).state
    assert engine.awaiting(state) == [2]
    state = engine.apply(state, [{"seat": 2, "turn": 2, "add": 1}]).state
    assert engine.awaiting(state) == [3] and engine.scores(state)["2"] == 3


def test_a_setup_phase_refuses_orders_of_one_seat_and_a_race_turn_a_list() -> None:
    state = engine.new_game(seed=2, seats=2, ruleset="race")
    reject_orders(state, {"seat": 1, "turn": 0, "head_start": 1}, code="bad_shape")
    reject_orders(state, [{"seat": 1, "turn": 0, "head_start": 1}], code="bad_shape")
    reject_orders(state, [{"seat": 1, "turn": 0, "head_start": 9},
                          {"seat": 2, "turn": 0, "head_start": 0}], code="out_of_range")  # fmt: skip
    state = engine.apply(state, [engine.default_orders(state, s) for s in (1, 2)]).state
    reject_orders(state, [{"seat": 1, "turn": 1, "add": 1}, {"seat": 2, "turn": 1, "add": 1}],
                  code="not_your_turn")  # fmt: skip
    reject_orders(state, {"seat": 2, "turn": 1, "add": 1}, code="not_your_turn")


def test_default_orders_follow_the_phase() -> None:
    state = engine.new_game(seed=2, seats=2, ruleset="race")
    assert engine.default_orders(state, 2) == {"seat": 2, "turn": 0, "head_start": 0}
    state = engine.apply(state, [engine.default_orders(state, s) for s in (1, 2)]).state
    assert engine.default_orders(state, 1) == {"seat": 1, "turn": 1, "add": 0}


# -- turns made of steps (dig) ------------------------------------------------------------------


def dig(seed: int = 4, **options: Any) -> State:
    return engine.new_game(seed=seed, ruleset="dig", options=options)


def test_a_step_keeps_the_seat_awaited_and_the_turn_where_it_is() -> None:
    state = dig()
    after = engine.apply(state, step(state, "right", step_no=0)).state
    assert engine.awaiting(after) == [1] and after["turn"] == 0
    assert engine.step(after) == 1 and after["positions"]["1"] == 1


def test_the_turn_advances_when_the_seat_ends_it_or_its_steps_run_out() -> None:
    state = dig(steps=2)
    ended = engine.apply(state, step(state, "end")).state
    assert ended["turn"] == 1 and engine.step(ended) == 0 and engine.awaiting(ended) == [2]
    state = engine.apply(state, step(state, "scan")).state
    state = engine.apply(state, step(state, "scan")).state
    assert state["turn"] == 1 and engine.awaiting(state) == [2]


@pytest.mark.parametrize("given", [1, 5, -1])
def test_a_step_no_that_is_not_the_states_step_is_stale(given: int) -> None:
    state = dig()
    body = reject_orders(state, step(state, "scan", step_no=given), code="stale_turn")
    assert body["message"] == f"These orders are for step {given}; the turn is at step 0."
    with pytest.raises(engine.OrdersError) as caught:
        engine.check(state, step(state, "scan", step_no=given))
    assert caught.value.code == "stale_turn"


def test_a_repeated_post_of_the_same_step_is_recognised_as_stale() -> None:
    state = dig()
    given = step(state, "left", step_no=0)
    after = engine.apply(state, given).state
    reject_orders(after, given, code="stale_turn")
    reject_orders(after, [given], code="stale_turn")
    engine.check(after, step(after, "left", step_no=1))


def test_a_step_no_must_be_a_number() -> None:
    state = dig()
    reject_orders(state, step(state, "scan", step_no="0"), code="bad_shape")
    reject_orders(state, step(state, "scan", step_no=True), code="bad_shape")


def test_a_scans_result_is_in_the_seats_view_at_once_and_hidden_from_the_others() -> None:
    state = dig()
    applied = engine.apply(state, step(state, "scan", step_no=0))
    near = applied.events[0]["near"]
    assert engine.view(applied.state, 1)["scans"] == {"1": [[0, near]]}
    assert engine.view(applied.state, 2)["scans"] == {"2": []}
    assert engine.view(applied.state, None)["scans"] == {}
    assert "treasure" not in engine.view(applied.state, 1)
    theirs = engine.events_view(applied.events, 2, ruleset="dig")
    assert (
        "near" not in theirs[0]
        and engine.events_view(applied.events, 1, ruleset="dig")[0]["near"] == near
    )


def test_a_steps_view_depends_only_on_what_the_seat_may_know() -> None:
    state = dig()
    other = copy.deepcopy(state)
    other["treasure"] = [1, 2, 3]
    other["seed"] = 99
    other["scans"]["2"] = [[8, 1]]
    for seat in (1, None):
        assert json.dumps(engine.view(state, seat)) == json.dumps(engine.view(other, seat))
    over = dict(state, over=True, to_move=None, awaiting=[], winners=[1])
    assert engine.view(over, 2) == {**over, "viewer": 2}


def test_a_steps_default_orders_end_the_turn() -> None:
    state = dig()
    state = engine.apply(state, step(state, "scan", step_no=0)).state
    default = engine.default_orders(state, 1)
    assert default == {"seat": 1, "turn": 0, "step_no": 1, "action": "end"}
    after = engine.apply(state, default).state
    assert after["turn"] == 1 and engine.awaiting(after) == [2]


def test_step_no_is_checked_by_the_engine_for_every_ruleset_with_steps() -> None:
    # The dig ruleset itself never looks at step_no: the engine's generic layer does.
    state = dig()
    with pytest.raises(engine.OrdersError):
        engine.apply(state, step(state, "scan", step_no=3))
    assert engine.ruleset("dig").apply(state, step(state, "scan", step_no=3)).state["step"] == 1


# -- every shape plays whole matches and replays -----------------------------------------------


@pytest.mark.parametrize(
    ("ruleset", "bots"),
    [
        ("nim", ["perfect", "perfect"]),
        ("rps", ["random", "rock", "random"]),
        ("race", ["random", "greedy"]),
        ("dig", ["walker", "random", "random"]),
    ],
)
def test_every_shape_plays_to_the_end_and_replays(ruleset: str, bots: list[str]) -> None:
    record = match.play_match(7, bots, ruleset=ruleset)
    final = record["final"]
    assert final["over"] and final["winners"] and engine.awaiting(final) == []
    assert set(engine.scores(final)) == {str(s) for s in range(1, len(bots) + 1)}
    assert record["initial"] == engine.new_game(seed=7, seats=len(bots), ruleset=ruleset)
    for entry in record["turns"]:
        assert set(entry) == {"orders", "events"}
        for event in entry["events"]:
            assert {"type", "t_ms", "duration_ms"} <= set(event)
    assert match.replay_check(json.loads(json.dumps(record)))["ok"]
    assert match.play_match(7, bots, ruleset=ruleset) == record


def test_a_simultaneous_replay_entry_holds_every_seats_orders_in_seat_order() -> None:
    record = match.play_match(3, ["random", "rock"], ruleset="rps")
    assert len(record["turns"]) == 3
    for n, entry in enumerate(record["turns"]):
        assert [o["seat"] for o in entry["orders"]] == [1, 2]
        assert all(o["turn"] == n for o in entry["orders"])


def test_a_setup_replay_has_one_list_then_one_orders_object_per_turn() -> None:
    record = match.play_match(3, ["random", "greedy"], ruleset="race")
    shapes = [isinstance(entry["orders"], list) for entry in record["turns"]]
    assert shapes[0] and not any(shapes[1:])


def test_a_steps_replay_has_one_entry_per_step() -> None:
    record = match.play_match(3, ["walker", "walker"], ruleset="dig")
    turns = [entry["orders"]["turn"] for entry in record["turns"]]
    assert len(turns) > len(set(turns)) == 8
    assert [e["orders"]["step_no"] for e in record["turns"][:2]] == [0, 1]


def test_a_replay_whose_orders_were_changed_does_not_replay() -> None:
    record = match.play_match(3, ["random", "rock"], ruleset="rps")
    record["turns"][1]["orders"][1]["throw"] = "paper"
    record["turns"][1]["orders"][0]["throw"] = "rock"
    with pytest.raises(engine.EngineError) as caught:
        match.replay_check(record)
    assert caught.value.code == "bad_state"


def test_every_registered_ruleset_describes_itself() -> None:
    names = engine.ruleset_names()
    assert names[0] == rulesets.DEFAULT and {"nim", "rps", "race", "dig"} <= set(names)
    for name in names:
        described = engine.ruleset(name).describe()
        assert described["name"] == name and described["default_seats"] in described["seats"]
        assert json.loads(json.dumps(described)) == described


@pytest.mark.parametrize(
    "broken",
    [{"over": False, "to_move": None}, {"over": "no"}, {"over": False, "to_move": "1"}],
)
def test_helium3_awaiting_of_a_broken_state_is_a_bad_state(broken: dict[str, Any]) -> None:
    state = dict(engine.new_game(seed=3), **broken)
    with pytest.raises(engine.StateError):
        engine.awaiting(state)


def test_a_step_of_a_seat_not_awaited_is_not_its_turn_whatever_its_step_no() -> None:
    state = dig()
    reject_orders(state, {"seat": 2, "turn": 0, "step_no": 4, "action": "scan"},
                  code="not_your_turn")  # fmt: skip
    over = dict(state, over=True, to_move=None, awaiting=[], winners=[1])
    reject_orders(over, step(state, "scan", step_no=4), code="match_over")


def test_every_state_but_helium3s_carries_awaiting_and_scores() -> None:
    # Helium 3's JSON is docs/protocol.md's, unchanged: its two come from the functions only.
    for name in engine.ruleset_names():
        rules = engine.ruleset(name)
        state = engine.new_game(seed=5, ruleset=name)
        for _ in range(3):
            awaited = engine.awaiting(state)
            assert awaited and set(engine.scores(state)) == {
                str(p["seat"]) for p in state["players"]
            }
            if name != rulesets.DEFAULT:
                assert state["awaiting"] == awaited and state["scores"] == engine.scores(state)
            given = [engine.default_orders(state, seat) for seat in awaited]
            for orders in given:
                engine.check(state, orders)
            state = engine.apply(state, given if len(given) > 1 else given[0]).state
            view = engine.view(state, awaited[0])
            assert view["viewer"] == awaited[0] and view["ruleset"] == name
        assert rules.shape.describe()
