"""The two ways a turn's frame is computed (`engine.halite.lists`, walking the pieces,
and `engine.halite.arrays`, on whole-board numpy arrays) give the same next state and
the same events, in the same order, on every position: random crowded boards of two
to six seats (contested cells, pieces of strength 0 and near 255, neutral cells,
moves that collide) and every turn of matches of the built-in bots. `resolve` picks
one by how much of the board is owned; these tests run both on every position, so
the other rule tests hold for either.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from test_halite_reference import random_moves, random_position

import engine
from engine.halite import api
from engine.halite.resolve import ARRAYS_FROM, resolve
from engine.halite.state import State, peek


def both_ways(state: dict[str, Any], orders: list[dict[str, Any]]) -> tuple[Any, Any]:
    """The turn resolved each way, as (state JSON, events)."""
    moves: dict[int, int] = {}
    for given in orders:
        moves.update(api.read_orders(peek(state), given).moves)
    by_lists = resolve(State.from_json(state), moves, use_arrays=False)
    by_arrays = resolve(State.from_json(state), moves, use_arrays=True)
    return (
        (by_lists[0].to_json(), by_lists[1]),
        (by_arrays[0].to_json(), by_arrays[1]),
    )


@pytest.mark.parametrize("seed", range(30))
def test_random_positions_resolve_the_same_both_ways(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(20):
        state = random_position(rng)
        moves = random_moves(state, rng)
        orders = [{"seat": s, "turn": 0, "moves": moves[s]} for s in state["awaiting"]]
        lists, arrays = both_ways(state, orders)
        assert arrays == lists
        assert lists[0] == engine.apply(state, orders).state


@pytest.mark.parametrize(
    ("seed", "bots", "size"),
    [
        (4, ["grower", "random", "grower"], 12),
        (9, ["random"] * 4, 10),
        (1000, ["grower"] * 4, 30),
        (3, ["grower"] * 6, 10),
    ],
)
def test_every_turn_of_a_match_resolves_the_same_both_ways(
    seed: int, bots: list[str], size: int
) -> None:
    state = engine.new_game(
        seed=seed, seats=len(bots), ruleset="halite", options={"width": size, "height": size}
    )
    crowded = 0
    while not state["over"]:
        orders = [engine.bot_orders(bots[s - 1], state, s) for s in state["awaiting"]]
        lists, arrays = both_ways(state, orders)
        assert arrays == lists, state["turn"]
        owned = sum(1 for row in state["owner"] for seat in row if seat)
        crowded += owned >= ARRAYS_FROM * size * size
        state = engine.apply(state, orders).state
        assert state == lists[0]
    if size == 30:
        assert crowded, "the growers' match never crowded the board"
