"""Properties of random legal remake play (hypothesis): what holds after every turn.

Matches are played by `legal_orders`, a random player richer than the `random` bot:
it fires at vehicles more often, raises shields and deflects them, and sometimes walks
an explicit path; it chooses on what its seat knows, as a bot must. Seeds, seat counts
(2-4), rounds and the player's own randomness vary.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from random_play import check_beam, helium_total, matches, money, random_walk

import engine
from engine.core import Applied
from engine.helium3.board import DIRECTIONS, cheb
from engine.helium3.bots.random_bot import random_orders
from engine.remake.api import masked
from engine.remake.moves import action_kinds, missile_targets, reachable
from engine.remake.orders import MISSILE_RANGE, MOVE_RANGE, MOVING, Action, Orders
from engine.remake.resolve import Turn
from engine.remake.state import State

Json = dict[str, Any]

MATCHES = matches(20)
match_args = {
    "seed": st.integers(0, 2**40),
    "seats": st.sampled_from([2, 3, 4]),
    "rounds": st.sampled_from([5, 12, 20]),
    "player": st.integers(0, 2**32),
}


def random_action(turn: Turn, i: int, rng: random.Random) -> Action:
    robot = turn.state.robots[i]
    kinds = action_kinds(robot)
    special = [k for k in kinds if k.startswith("fire") or k == "deflect"]
    if special and rng.random() < 0.6:
        kind = special[0]
    elif rng.random() < 0.04:
        kind = "kamikaze"
    else:
        kind = rng.choice(MOVING)
    others = [r for r in turn.state.robots if r.alive and r.id != robot.id]
    if kind == "fire_missile":
        near = [
            (r.x, r.y) for r in others if 1 <= cheb(r.x, r.y, robot.x, robot.y) <= MISSILE_RANGE
        ]
        cells = near if near and rng.random() < 0.7 else missile_targets(turn.state, robot)
        return Action(robot.id, kind, target=rng.choice(cells))
    if kind in ("fire_laser", "deflect"):
        return Action(robot.id, kind, direction=rng.choice(DIRECTIONS))
    if kind == "kamikaze":
        return Action(robot.id, kind)
    reach = MOVE_RANGE[kind]
    if rng.random() < 0.2:
        path = random_walk(turn, i, reach, rng)
        if path:
            return Action(robot.id, kind, to=path[-1], path=path)
    cell = rng.choice(list(reachable(turn, robot, reach)))
    stay = cell == (robot.x, robot.y) and kind != "move"
    return Action(robot.id, kind, to=None if stay else cell)


def legal_orders(state: State, rng: random.Random) -> Orders:
    """0-5 random legal actions for the seat to move, drawn on what that seat knows
    (the `random` bot's loop, with this richer choice of each action)."""
    seat = state.to_move
    assert seat is not None
    return random_orders(Turn(masked(state, seat)), seat, None, rng, random_action)


@dataclass(frozen=True)
class Step:
    before: Json
    orders: Json
    applied: Applied


def play(seed: int, seats: int, rounds: int, player: int) -> Iterator[Step]:
    rng = random.Random(player)
    state = engine.new_game(
        seed=seed, seats=seats, ruleset="helium3-remake", options={"rounds": rounds}
    )
    while not state["over"]:
        orders = legal_orders(State.from_json(state), rng).to_json()
        before = json.dumps([state, orders])
        applied = engine.apply(state, orders)
        assert json.dumps([state, orders]) == before, "apply changed its input"
        yield Step(state, orders, applied)
        state = applied.state


@MATCHES
@given(**match_args)
def test_random_legal_play_keeps_the_state_valid(
    seed: int, seats: int, rounds: int, player: int
) -> None:
    turns = 0
    for step in play(seed, seats, rounds, player):
        engine.check(step.before, step.orders)  # what apply accepted, check accepts
        state = step.applied.state
        assert State.from_json(state).to_json() == state
        cells = [(r["x"], r["y"]) for r in state["robots"] if r["alive"]]
        assert len(cells) == len(set(cells))
        assert min(min(row) for row in state["helium"]) >= 0
        assert min(money(state).values()) >= 0
        assert 1 <= state["round"] <= rounds
        assert state["scores"] == {str(s): m for s, m in money(state).items()}
        turns += 1
    assert turns <= rounds * seats


@MATCHES
@given(**match_args)
def test_helium_on_the_ground_plus_all_money_never_changes(
    seed: int, seats: int, rounds: int, player: int
) -> None:
    """Mining moves helium into money; a destruction moves all of it back."""
    start = None
    for step in play(seed, seats, rounds, player):
        if start is None:
            start = helium_total(step.before) + sum(money(step.before).values())
        after = step.applied.state
        assert helium_total(after) + sum(money(after).values()) == start


@MATCHES
@given(**match_args)
def test_a_seats_money_is_what_its_living_vehicles_mined(
    seed: int, seats: int, rounds: int, player: int
) -> None:
    for step in play(seed, seats, rounds, player):
        state = step.applied.state
        living: dict[int, int] = dict.fromkeys(money(state), 0)
        for r in state["robots"]:
            if r["alive"]:
                living[r["seat"]] += r["mined"]
        assert money(state) == living
        for event in step.applied.events:
            if event["type"] == "mined":
                assert event["amount"] == 100 * len(event["cells"]) <= 900


@MATCHES
@given(**match_args)
def test_every_laser_beam_is_made_of_straight_lines_on_the_board(
    seed: int, seats: int, rounds: int, player: int
) -> None:
    for step in play(seed, seats, rounds, player):
        robots = {r["id"]: r for r in step.before["robots"]}
        for event in step.applied.events:
            if event["type"] != "laser":
                continue
            before = step.before
            check_beam(robots[event["robot"]], event["segments"], before["width"], before["height"])


@MATCHES
@given(**match_args)
def test_views_never_show_an_opponents_shield_and_ignore_what_is_hidden(
    seed: int, seats: int, rounds: int, player: int
) -> None:
    for step in play(seed, seats, rounds, player):
        state = step.applied.state
        if state["over"]:
            continue
        for viewer in [p["seat"] for p in state["players"]] + [None]:
            seen = engine.view(state, viewer)
            assert (
                all(("shield" in r) == (r["seat"] == viewer) for r in seen["robots"])
                and "seed" not in seen
            )
            varied = copy.deepcopy(state)
            for r in varied["robots"]:
                if r["seat"] != viewer and r["alive"] and r["armed"] is None:
                    r["shield"], r["deflect"] = True, "NW"
            assert json.dumps(engine.view(varied, viewer)) == json.dumps(seen)


@MATCHES
@given(seed=st.integers(0, 2**40), seats=st.sampled_from([2, 3, 4]))
def test_a_match_between_bots_is_determined_by_its_seed(seed: int, seats: int) -> None:
    from engine import match

    bots = ["random", "prospector", "random", "prospector"][:seats]
    one = match.play_match(seed, bots, ruleset="helium3-remake", options={"rounds": 5})
    two = match.play_match(seed, bots, ruleset="helium3-remake", options={"rounds": 5})
    assert json.dumps(one) == json.dumps(two)
