"""The arena's built-in bots: `random` draws legal builds and steps, `hunter` plays with a
plan (docs/games/arena-bots.md) and beats `random` bots; both give orders the engine
accepts in every phase, decided by the seat's view, the seed, the turn, the step and the
seat, never by what the seat does not know."""

from __future__ import annotations

import copy
import random
from collections import Counter
from typing import Any

import pytest
from arena_helpers import built, place
from arena_helpers import play as play_step
from helpers import engine_cli

import engine
from engine import tournament
from engine.arena import bots
from engine.arena.orders import CAPACITY
from engine.arena.state import PARTS
from engine.errors import EngineError, ShapeError

RULESET = "arena"
BOTS = ["random", "hunter"]
State = dict[str, Any]


def new(seed: int, seats: int, rounds: int = 40) -> State:
    return engine.new_game(seed=seed, seats=seats, ruleset=RULESET, options={"rounds": rounds})


def play_checking(seed: int, lineup: list[str], rounds: int = 40) -> Counter[str]:
    """Play a match; at every resolution ask both bots for every awaited seat and check
    the engine accepts their orders. Counts what the bots were asked to play through."""
    seen: Counter[str] = Counter()
    state = new(seed, len(lineup), rounds)
    while awaited := engine.awaiting(state):
        for seat in awaited:
            assert state["robots"][seat - 1]["alive"]
            seen[state["phase"]] += 1
            if seen["destroyed"]:
                seen["asked after a destruction"] += 1
            for name in BOTS:
                orders = engine.bot_orders(name, state, seat)
                engine.check(state, orders)
                assert orders["seat"] == seat and orders["turn"] == state["turn"]
                if state["phase"] == "play":
                    assert orders["step_no"] == state["step"]
                    seen[f"{name} {orders['step']['type']}"] += 1
        given = [engine.bot_orders(lineup[seat - 1], state, seat) for seat in awaited]
        applied = engine.apply(state, given if len(given) > 1 else given[0])
        for event in applied.events:
            seen[event["type"]] += 1
        state = applied.state
    seen["matches"] += 1
    return seen


def hunter_wins(matches: int, seed_base: int = 0) -> tuple[int, int]:
    """Wins alone and shared of the hunter against three random bots, its seat rotating."""
    alone = shared = 0
    for k in range(matches):
        lineup = ["random"] * 4
        lineup[k % 4] = "hunter"
        final = play(seed_base + k, lineup)
        if k % 4 + 1 in final["winners"]:
            alone += len(final["winners"]) == 1
            shared += len(final["winners"]) > 1
    return alone, shared


def play(seed: int, lineup: list[str], rounds: int = 40) -> State:
    state = new(seed, len(lineup), rounds)
    while awaited := engine.awaiting(state):
        given = [engine.bot_orders(lineup[seat - 1], state, seat) for seat in awaited]
        state = engine.apply(state, given if len(given) > 1 else given[0]).state
    return state


def test_the_ruleset_lists_random_then_hunter_each_with_a_description() -> None:
    assert engine.bot_names(RULESET) == bots.names() == ["random", "hunter"]
    for name in BOTS:
        assert engine.bot_description(name, RULESET) == bots.description(name) != ""
    assert bots.description("nobody") == ""


def test_an_unknown_bot_is_a_bad_shape_error_whatever_the_state() -> None:
    for state in (new(1, 2), {"ruleset": "arena"}, None):
        with pytest.raises(ShapeError) as caught:
            bots.bot_orders("nobody", state, 1)
        assert caught.value.code == "bad_shape"


def test_a_bot_is_not_asked_for_a_seat_that_does_not_play_now() -> None:
    state = play_until(new(2, 2), turn=1)
    for name in BOTS:
        with pytest.raises(EngineError) as caught:
            engine.bot_orders(name, state, 2)
        assert caught.value.code == "not_your_turn"
    final = play(3, ["hunter", "random"], rounds=10)
    with pytest.raises(EngineError) as caught:
        engine.bot_orders("hunter", final, 1)
    assert caught.value.code == "match_over"


def play_until(state: State, *, turn: int, step: int = 0, lineup: list[str] | None = None) -> State:
    """Play `lineup` (hunters by default) until the state reaches `turn` and `step`."""
    seats = len(state["robots"])
    lineup = lineup or ["hunter"] * seats
    while (state["turn"], state["step"]) < (turn, step) and engine.awaiting(state):
        awaited = engine.awaiting(state)
        given = [engine.bot_orders(lineup[seat - 1], state, seat) for seat in awaited]
        state = engine.apply(state, given if len(given) > 1 else given[0]).state
    return state


def test_the_bots_build_within_the_capacity_one_part_of_each_kind() -> None:
    for seed in range(40):
        state = new(seed, 4)
        for seat in range(1, 5):
            for name in BOTS:
                orders = engine.bot_orders(name, state, seat)
                engine.check(state, orders)
                parts = orders["build"]
                assert len({PARTS[p][0] for p in parts}) == len(parts)
                assert sum(PARTS[p][1] for p in parts) <= CAPACITY


@pytest.mark.parametrize(
    ("seed", "lineup"),
    [
        (0, ["random", "random"]),
        (1, ["hunter", "random", "random"]),
        (2, ["random", "hunter", "random", "hunter"]),
        (3, ["hunter", "hunter", "hunter", "hunter"]),
        (4, ["random", "random", "random", "random"]),
    ],
)
def test_both_bots_give_orders_the_engine_accepts_for_every_seat_to_the_end(
    seed: int, lineup: list[str]
) -> None:
    seen = play_checking(seed, lineup)
    assert seen["build"] == len(lineup)
    assert seen["play"] > 0 and seen["turn_end"] > 0
    for kind in ("scan", "move", "end"):
        assert seen[f"random {kind}"] > 0 and seen[f"hunter {kind}"] > 0


def test_the_bots_play_on_after_robots_are_destroyed() -> None:
    seen: Counter[str] = Counter()
    for seed in range(2):
        seen += play_checking(seed, ["random", "random", "hunter", "random"])
    assert seen["destroyed"] >= 4 and seen["asked after a destruction"] > 0
    assert seen["random shoot"] > 0 and seen["hunter shoot"] > 0 and seen["damage"] > 0


def test_a_bot_ends_its_turn_within_a_few_steps() -> None:
    for name in BOTS:
        state = new(5, 4)
        state = play_until(state, turn=1, lineup=[name] * 4)
        for _ in range(8 * 4):
            turn, steps = state["turn"], 0
            while state["turn"] == turn and not state["over"]:
                orders = engine.bot_orders(name, state, state["awaiting"][0])
                state = engine.apply(state, orders).state
                steps += 1
            assert steps <= 25
            if state["over"]:
                break


def test_the_bots_are_deterministic() -> None:
    for seed in (6, 7):
        lineup = ["hunter", "random", "random", "hunter"]
        assert play(seed, lineup) == play(seed, lineup)
    state = play_until(new(8, 4), turn=9, step=1, lineup=["random"] * 4)
    for name in BOTS:
        seat = state["awaiting"][0]
        assert engine.bot_orders(name, state, seat) == engine.bot_orders(name, state, seat)


def test_random_draws_differently_from_seed_to_seed() -> None:
    builds = {tuple(engine.bot_orders("random", new(seed, 2), 1)["build"]) for seed in range(20)}
    assert len(builds) > 5


def hide_the_unknown(state: State, seat: int, rng: random.Random) -> State:
    """The same state, with everything `seat` does not know changed: the other robots'
    places, health, parts and moves left, their knowledge and scores, and the obstacles
    its scans did not show."""
    other = copy.deepcopy(state)
    known = other["knowledge"][str(seat)]
    own = other["robots"][seat - 1]
    seen_obstacles = [
        [int(v) for v in key.split(",")] for key, k in known.items() if k[0] == "obstacle"
    ]
    taken = {(own["x"], own["y"])} | {tuple(c) for c in seen_obstacles}
    free = [(x, y) for y in range(10) for x in range(10) if (x, y) not in taken]
    rng.shuffle(free)
    for robot in other["robots"]:
        if robot["seat"] == seat or not robot["alive"]:
            continue
        robot["x"], robot["y"] = free.pop()
        robot["parts"] = rng.choice([["cannon", "shield3"], ["gun"], ["engine3", "radar2"]])
        robot["max_health"] = 30
        robot["health"] = rng.randint(1, 30)
        robot["steps_left"] = rng.randint(0, 6)
        robot["shot"] = not robot["shot"]
        other["scores"][str(robot["seat"])] = robot["health"]
        other["knowledge"][str(robot["seat"])] = {}
    other["obstacles"] = [*seen_obstacles, *(list(c) for c in free[:3])]
    return other


def test_a_bot_decides_on_what_its_seat_knows_only() -> None:
    rng = random.Random(0)
    checked = Counter[str]()
    for seed in range(6):
        state = new(seed, 4)
        lineup = ["hunter", "random", "hunter", "random"]
        while engine.awaiting(state) and not state["over"]:
            awaited = engine.awaiting(state)
            if state["phase"] == "play" and state["turn"] % 3 == 0:
                seat = awaited[0]
                other = hide_the_unknown(state, seat, rng)
                assert other != state
                assert engine.view(other, seat) == engine.view(state, seat)
                for name in BOTS:
                    orders = engine.bot_orders(name, state, seat)
                    assert engine.bot_orders(name, other, seat) == orders
                    checked[f"{name} {orders['step']['type']}"] += 1
            given = [engine.bot_orders(lineup[seat - 1], state, seat) for seat in awaited]
            state = engine.apply(state, given if len(given) > 1 else given[0]).state
    assert checked["hunter shoot"] > 0 and checked["hunter move"] > 0
    assert checked["random shoot"] > 0 and checked["random move"] > 0


def test_the_hunter_beats_three_random_bots() -> None:
    alone, shared = hunter_wins(8, seed_base=100)
    assert alone >= 7, (alone, shared)


def test_the_tournament_table_runs_for_the_arena() -> None:
    series = tournament.run_ruleset("arena", 4, 0, "hunter", "random", seats=4)
    first = series[0]
    assert first.matches == 4 and first.tally("hunter").seats == 4
    assert first.tally("random").seats == 12
    text = tournament.table(series, 0)
    assert "| hunter | 4 |" in text and "| random | 12 |" in text


def test_the_tournament_command_prints_the_arena_table() -> None:
    done = engine_cli(
        "tournament", "--ruleset", "arena", "--seats", "4", "--matches", "2", "--seed-base", "0"
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "hunter vs 3 random (4 seats, hunter's seat rotates)" in done.stdout


# -- the hunter's plan, step by step ------------------------------------------------------

HUNTER = ["engine1", "gun", "radar3"]


def hunter_step(state: State) -> dict[str, Any]:
    orders = engine.bot_orders("hunter", state, 1)
    engine.check(state, orders)
    step: dict[str, Any] = orders["step"]
    return step


def duel(x: int, y: int, ex: int, ey: int) -> State:
    """Seat 1 (the hunter's build) at (x, y), seat 2 at (ex, ey), no obstacles; seat 1 plays."""
    state = built(HUNTER, ["engine1", "gun", "radar1"], obstacles=[])
    return place(place(state, 1, x, y), 2, ex, ey)


def end_of(state: State, step: dict[str, Any]) -> tuple[int, int]:
    x, y = state["robots"][0]["x"], state["robots"][0]["y"]
    for direction in step["path"]:
        dx, dy = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}[direction]
        x, y = x + dx, y + dy
    return x, y


def far(a: tuple[int, int], b: tuple[int, int]) -> int:
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


def test_the_hunter_builds_a_far_radar_a_gun_and_an_engine() -> None:
    assert engine.bot_orders("hunter", new(1, 2), 1)["build"] == HUNTER


def test_the_hunter_scans_then_shoots_an_enemy_in_reach_then_ends_its_turn() -> None:
    state = duel(2, 2, 4, 5)
    assert hunter_step(state) == {"type": "scan"}
    state = play_step(state, "scan")
    assert hunter_step(state) == {"type": "shoot", "target": [4, 5]}
    state = play_step(state, "shoot", target=[4, 5])
    state["robots"][0]["steps_left"] = 0
    assert hunter_step(state) == {"type": "end"}


def test_the_hunter_walks_toward_an_enemy_it_sees_out_of_reach() -> None:
    state = play_step(duel(1, 1, 7, 7), "scan")
    step = hunter_step(state)
    assert step["type"] == "move" and len(step["path"]) == 2
    assert end_of(state, step) == (2, 2)  # diagonally: nearer as the gun reaches
    state = play_step(state, "move", path=step["path"])
    assert hunter_step(state) == {"type": "scan"}


def test_the_hunter_explores_toward_cells_it_has_not_seen_when_it_sees_no_one() -> None:
    state = play_step(duel(0, 0, 9, 9), "scan")  # its radar sees x and y 0..6: no one
    unseen = [(x, y) for y in range(10) for x in range(10) if x > 6 or y > 6]
    step = hunter_step(state)
    assert step["type"] == "move" and len(step["path"]) == 2
    to = end_of(state, step)
    assert min(far(to, c) for c in unseen) == min(far((0, 0), c) for c in unseen) - 2


def test_a_hurt_hunter_backs_away_from_the_enemy_it_sees() -> None:
    state = duel(4, 4, 6, 6)
    state["robots"][0].update(health=3, shot=True)
    state = play_step(state, "scan")
    step = hunter_step(state)
    assert step["type"] == "move"
    assert far(end_of(state, step), (6, 6)) > 2
    state["robots"][0]["health"] = 10
    step = hunter_step(state)
    assert step["type"] == "end" or far(end_of(state, step), (6, 6)) <= 2


@pytest.mark.parametrize("name", ["random", "hunter"])
def test_a_bot_plays_from_the_seats_own_view_as_a_program_of_the_api_would(name: str) -> None:
    state = engine.new_game(ruleset="arena", seed=7, seats=2)
    for _ in range(60):
        if state["over"]:
            break
        awaited = engine.awaiting(state)
        orders = [engine.bot_orders(name, engine.view(state, s), s) for s in awaited]
        for seat, given in zip(awaited, orders, strict=True):
            engine.check(state, given)
            # The same view gives the same orders: chance from the bot, turn, step and seat.
            assert engine.bot_orders(name, engine.view(state, seat), seat) == given
        state = engine.apply(state, orders if len(orders) > 1 else orders[0]).state


def test_a_view_that_is_not_the_arenas_is_a_state_error_not_a_crash() -> None:
    with pytest.raises(engine.EngineError):
        engine.bot_orders("hunter", {"viewer": 1, "awaiting": [1], "ruleset": "arena"}, 1)
