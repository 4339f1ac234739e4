"""Properties of random legal play (hypothesis): what holds after every turn of every match.

Matches are played by `legal_orders`, a random player richer than the `random` bot: it
fires at robots more often, raises shields with deflect directions, sometimes gives an
explicit (not necessarily shortest) path, and chooses on what its seat knows, as a
bot must. Seeds, seat counts (2-4) and battle lengths vary.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from random_play import check_beam, helium_total, matches, money, random_walk

import engine
from engine.core import Applied
from engine.errors import EngineError
from engine.helium3 import timing
from engine.helium3.api import masked
from engine.helium3.board import DELTAS, DIRECTIONS, cheb
from engine.helium3.moves import MOVING, action_kinds, missile_targets, reachable
from engine.helium3.orders import MISSILE_RANGE, MOVE_RANGE, Action, Orders
from engine.helium3.resolve import Turn
from engine.helium3.state import State

Json = dict[str, Any]

MATCHES = matches(12)
match_args = {
    "seed": st.integers(0, 2**40),
    "seats": st.sampled_from([2, 3, 4]),
    "length_ms": st.sampled_from([60_000, 200_000, 600_000]),
    "player": st.integers(0, 2**32),
}


# -- a random legal player --------------------------------------------------------------------


def random_action(turn: Turn, i: int, rng: random.Random) -> Action:
    robot = turn.state.robots[i]
    kinds = action_kinds(robot)
    fire = [k for k in kinds if k.startswith("fire")]
    if fire and rng.random() < 0.6:
        kind = fire[0]
    elif rng.random() < 0.03:
        kind = "kamikaze"
    else:
        kind = rng.choice([k for k in kinds if k in MOVING])
    others = [r for r in turn.state.robots if r.alive and r.id != robot.id]
    if kind == "fire_missile":
        near = [(r.x, r.y) for r in others if cheb(r.x, r.y, robot.x, robot.y) <= MISSILE_RANGE]
        cells = near if near and rng.random() < 0.7 else missile_targets(turn.state, robot)
        return Action(robot.id, kind, target=rng.choice(cells))
    if kind == "fire_laser":
        lined = [
            d
            for d, (dx, dy) in DELTAS.items()
            for r in others
            if cheb(r.x, r.y, robot.x, robot.y) * dx == r.x - robot.x
            and cheb(r.x, r.y, robot.x, robot.y) * dy == r.y - robot.y
        ]
        pick = lined if lined and rng.random() < 0.7 else list(DIRECTIONS)
        return Action(robot.id, kind, direction=rng.choice(pick))
    if kind == "kamikaze":
        return Action(robot.id, kind)
    reach = MOVE_RANGE[kind]
    deflect = rng.choice((None, *DIRECTIONS, *DIRECTIONS)) if kind == "shield" else None
    if rng.random() < 0.2:
        path = random_walk(turn, i, reach, rng)
        if path:
            return Action(robot.id, kind, to=path[-1], path=path, deflect=deflect)
    cell = rng.choice(list(reachable(turn, robot, reach)))
    stay = cell == (robot.x, robot.y) and kind != "move" and rng.random() < 0.5
    return Action(robot.id, kind, to=None if stay else cell, deflect=deflect)


def legal_orders(state: State, rng: random.Random) -> Orders:
    """0-2 random legal actions for the seat to move, drawn on what that seat knows."""
    seat = state.to_move
    assert seat is not None
    turn = Turn(masked(state, seat))
    mine = [r.id for r in turn.state.robots if r.seat == seat and r.alive]
    count = min(len(mine), rng.choice((0, 1, 2, 2, 2)))
    actions: list[Action] = []
    for robot_id in rng.sample(mine, count):
        i = turn.index[robot_id]
        if not turn.state.robots[i].alive:
            break
        action = random_action(turn, i, rng)
        path = turn.check(action, i, len(actions))
        if path and action.path is None and rng.random() < 0.2:
            action = replace(action, path=tuple(path))
        turn.perform(action, i, path)
        actions.append(action)
    return Orders(seat, state.turn, tuple(actions))


@dataclass(frozen=True)
class Step:
    before: Json
    orders: Json
    applied: Applied
    before_json: str  # the state and orders as they were before `apply` saw them


def play(seed: int, seats: int, length_ms: int, player: int) -> Iterator[Step]:
    """Every turn of one whole match of random legal play."""
    rng = random.Random(player)
    state = engine.new_game(seed=seed, seats=seats, length_ms=length_ms)
    while not state["over"]:
        orders = legal_orders(State.from_json(state), rng).to_json()
        before_json = json.dumps([state, orders])
        applied = engine.apply(state, orders)
        yield Step(state, orders, applied, before_json)
        state = applied.state


# -- properties ---------------------------------------------------------------------------------


@MATCHES
@given(**match_args)
def test_no_two_living_robots_ever_share_a_cell(
    seed: int, seats: int, length_ms: int, player: int
) -> None:
    for step in play(seed, seats, length_ms, player):
        cells = [(r["x"], r["y"]) for r in step.applied.state["robots"] if r["alive"]]
        assert len(cells) == len(set(cells))


@MATCHES
@given(**match_args)
def test_helium_and_money_are_never_negative(
    seed: int, seats: int, length_ms: int, player: int
) -> None:
    for step in play(seed, seats, length_ms, player):
        state = step.applied.state
        assert min(min(row) for row in state["helium"]) >= 0
        assert min(money(state).values()) >= 0


@MATCHES
@given(**match_args)
def test_money_is_what_a_seats_robots_mined_minus_what_they_dropped(
    seed: int, seats: int, length_ms: int, player: int
) -> None:
    """Read from the events alone: `mined` amounts in, `destroyed` drops out."""
    earned: dict[int, int] = {}
    mined_by: dict[str, int] = {}
    for step in play(seed, seats, length_ms, player):
        seat_of = {r["id"]: r["seat"] for r in step.before["robots"]}
        for event in step.applied.events:
            if event["type"] == "mined":
                assert event["amount"] == sum(c[2] for c in event["cells"])
                seat = seat_of[event["robot"]]
                earned[seat] = earned.get(seat, 0) + event["amount"]
                mined_by[event["robot"]] = mined_by.get(event["robot"], 0) + event["amount"]
            elif event["type"] == "destroyed":
                assert event["dropped"] == mined_by.get(event["robot"], 0) // 2
                seat = seat_of[event["robot"]]
                earned[seat] = earned.get(seat, 0) - event["dropped"]
        state = step.applied.state
        assert money(state) == {s: earned.get(s, 0) for s in money(state)}
        assert {r["id"]: r["mined"] for r in state["robots"]} == {
            r["id"]: mined_by.get(r["id"], 0) for r in state["robots"]
        }


@MATCHES
@given(**match_args)
def test_helium_on_the_board_plus_all_money_never_grows(
    seed: int, seats: int, length_ms: int, player: int
) -> None:
    """Mining moves helium into money; a drop gives back at most what the owner loses."""
    for step in play(seed, seats, length_ms, player):
        before, after = step.before, step.applied.state
        total_before = helium_total(before) + sum(money(before).values())
        total_after = helium_total(after) + sum(money(after).values())
        assert total_after <= total_before
        events = step.applied.events
        mined = sum(e["amount"] for e in events if e["type"] == "mined")
        landed = sum(c[2] for e in events if e["type"] == "destroyed" for c in e["cells"])
        dropped = sum(e["dropped"] for e in events if e["type"] == "destroyed")
        assert landed <= dropped
        assert helium_total(after) == helium_total(before) - mined + landed
        assert sum(money(after).values()) == sum(money(before).values()) + mined - dropped


@MATCHES
@given(**match_args)
def test_every_laser_beam_ends(seed: int, seats: int, length_ms: int, player: int) -> None:
    """Finite segments of 45-degree lines, one more than the beam's deflections."""
    for step in play(seed, seats, length_ms, player):
        before = step.before
        robots = {r["id"]: r for r in before["robots"]}
        events = step.applied.events
        lasers = [e for e in events if e["type"] == "laser"]
        deflected = [e for e in events if e["type"] == "deflected"]
        shields = sum(1 for r in before["robots"] if r["alive"] and r["shield"])
        assert len(deflected) <= shields
        assert sum(len(e["segments"]) for e in lasers) == len(lasers) + len(deflected)
        for beam in lasers:
            check_beam(robots[beam["robot"]], beam["segments"], before["width"], before["height"])


@MATCHES
@given(**match_args)
def test_every_match_ends_and_every_turn_costs_battle_time(
    seed: int, seats: int, length_ms: int, player: int
) -> None:
    """The end is a value: `match_over` says why (`reason`), as the state's `termination`."""
    for turns, step in enumerate(play(seed, seats, length_ms, player), start=1):
        assert turns <= length_ms // timing.MIN_TURN_MS + 1
        ends = [e["t_ms"] + e["duration_ms"] for e in step.applied.events]
        assert min(e["t_ms"] for e in step.applied.events) >= 0
        assert step.applied.turn_ms == max(max(ends), timing.MIN_TURN_MS)
        state = step.applied.state
        assert state["clock_ms"] == step.before["clock_ms"] + step.applied.turn_ms
        assert state["turn"] == step.before["turn"] + 1
    assert state["over"] and state["to_move"] is None
    living = {r["seat"] for r in state["robots"] if r["alive"]}
    reason = "elimination" if len(living) <= 1 else "clock"
    assert reason == "elimination" or state["clock_ms"] >= length_ms
    last = step.applied.events[-1]
    assert last == {"type": "match_over", "t_ms": step.applied.turn_ms, "duration_ms": 0,
                    "winners": state["winners"], "reason": reason}  # fmt: skip
    assert state["termination"] == reason


@MATCHES
@given(**match_args)
def test_states_orders_and_events_round_trip_through_json_exactly(
    seed: int, seats: int, length_ms: int, player: int
) -> None:
    for step in play(seed, seats, length_ms, player):
        state = step.applied.state
        assert State.from_json(state).to_json() == state
        assert json.dumps(State.from_json(state).to_json()) == json.dumps(state)
        assert json.loads(json.dumps(state)) == state
        assert Orders.from_json(step.orders).to_json() == step.orders
        assert json.loads(json.dumps(step.applied.events)) == step.applied.events


def illegal_variants(state: Json, orders: Json, rng: random.Random) -> Iterator[tuple[str, Json]]:
    """Orders the engine must refuse, each made from legal ones by one change."""
    seat, turn, actions = orders["seat"], orders["turn"], orders["actions"]
    others = [s for s in money(state) if s != seat]
    yield "not_your_turn", {**orders, "seat": rng.choice(others)}
    yield "stale_turn", {**orders, "turn": turn + rng.choice((-1, 1))}
    mine = [r for r in state["robots"] if r["seat"] == seat and r["alive"]]
    theirs = [r for r in state["robots"] if r["seat"] != seat and r["alive"]]
    r = rng.choice(mine)
    bad: dict[str, list[Json]] = {
        "too_many_actions": [{"robot": m["id"], "type": "kamikaze"} for m in mine[:3]],
        "unknown_robot": [{"robot": "9-9", "type": "kamikaze"}],
        "not_your_robot": [{"robot": rng.choice(theirs)["id"], "type": "kamikaze"}],
        "duplicate_robot": [{"robot": r["id"], "type": "kamikaze"}] * 2,
        "off_board": [{"robot": r["id"], "type": "move", "to": [r["x"], -1]}],
        "out_of_range": [{"robot": r["id"], "type": "arm_laser", "to": [r["x"], r["y"] + 3]}],
        "not_armed": [{"robot": r["id"], "type": "fire_laser", "direction": "N"}],
        "bad_direction": [{"robot": r["id"], "type": "shield", "deflect": "UP"}],
        "bad_shape": [{"robot": r["id"], "type": "teleport"}],
    }
    if r["armed"] == "laser":
        bad["not_armed"] = [{"robot": r["id"], "type": "fire_missile", "target": [0, 0]}]
    if r["y"] + 3 > 19:
        bad["out_of_range"][0]["to"] = [r["x"], r["y"] - 3]
    near = [t for t in theirs if cheb(t["x"], t["y"], r["x"], r["y"]) <= 6]
    if near:
        t = rng.choice(near)
        bad["occupied"] = [{"robot": r["id"], "type": "move", "to": [t["x"], t["y"]]}]
    if len(mine) < 3:
        del bad["too_many_actions"]
    for code, wrong in bad.items():
        # After the turn's legal first action, so the refusal comes mid-resolution.
        # (Not after a weapon: it may destroy the robot, and a skipped action is no error.)
        first = actions[0] if actions else None
        if (
            first
            and first["type"] not in ("fire_missile", "fire_laser", "kamikaze")
            and len(wrong) == 1
            and wrong[0]["robot"] != first["robot"]
        ):
            yield code, {**orders, "actions": [actions[0], *wrong]}
        yield code, {**orders, "actions": wrong}


@MATCHES
@given(**match_args)
def test_a_rejected_turn_leaves_the_state_and_the_orders_unchanged(
    seed: int, seats: int, length_ms: int, player: int
) -> None:
    rng = random.Random(player)
    for n, step in enumerate(play(seed, seats, length_ms, player)):
        if n % 7:
            continue
        state = step.before
        for code, wrong in illegal_variants(state, step.orders, rng):
            state_before, wrong_before = copy.deepcopy(state), copy.deepcopy(wrong)
            with pytest.raises(EngineError) as caught:
                engine.apply(state, wrong)
            assert state == state_before and wrong == wrong_before
            if code not in ("occupied", "out_of_range"):
                assert caught.value.code == code, (code, caught.value)
            else:  # the robot or the first action may stand in the way first
                assert caught.value.code in (code, "blocked", "occupied", "out_of_range")


@MATCHES
@given(**match_args)
def test_apply_is_deterministic_and_never_changes_its_input(
    seed: int, seats: int, length_ms: int, player: int
) -> None:
    for step in play(seed, seats, length_ms, player):
        assert json.dumps([step.before, step.orders]) == step.before_json, "input unchanged"
        again = engine.apply(json.loads(json.dumps(step.before)), copy.deepcopy(step.orders))
        assert json.dumps(again.state) == json.dumps(step.applied.state)
        assert json.dumps(again.events) == json.dumps(step.applied.events)
        assert again.turn_ms == step.applied.turn_ms
