"""The engine's turn against a plain reading of the 2016 environment's frame.

`reference_frame` follows the 2016 environment's `processNextFrame` step by step, with
its data structures (a map of pieces per player, damage summed per piece over the
cell and its four neighbours, one pass over the board per step) and none of the
engine's shortcuts (flat tables, contact pairs found once, contested cells handled
apart). Random positions, crowded with every seat, pieces of strength 0 and near 255,
neutral cells and moves that collide, must give the same frame both ways.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from halite_helpers import position

import engine

Loc = tuple[int, int]


def reference_frame(
    state: dict[str, Any], moves: dict[int, list[list[int]]]
) -> tuple[list[list[int]], list[list[int]]]:
    """(owner, strength) after one turn, as the 2016 environment computes the frame."""
    w, h, players = state["width"], state["height"], state["seats"]
    owner = [row[:] for row in state["owner"]]
    strength = [row[:] for row in state["strength"]]
    production = state["production"]

    def step(loc: Loc, d: int) -> Loc:
        x, y = loc
        return [(x, y), (x, (y - 1) % h), ((x + 1) % w, y), (x, (y + 1) % h), ((x - 1) % w, y)][d]

    pieces: list[dict[Loc, int]] = [{} for _ in range(players)]
    for a in range(players):
        for x, y, d in sorted(moves.get(a + 1, []), key=lambda m: (m[0], m[1])):
            if owner[y][x] != a + 1:
                continue
            if d == 0:
                strength[y][x] = min(255, strength[y][x] + production[y][x])
            new = step((x, y), d)
            pieces[a][new] = min(255, pieces[a].get(new, 0) + strength[y][x])
            pieces[a].setdefault((x, y), 0)
            owner[y][x] = 0
            strength[y][x] = 0
    for y in range(h):
        for x in range(w):
            if owner[y][x]:
                a = owner[y][x] - 1
                grown = min(255, strength[y][x] + production[y][x])
                pieces[a][(x, y)] = min(255, pieces[a].get((x, y), 0) + grown)
                owner[y][x] = 0
                strength[y][x] = 0
    to_injure: list[dict[Loc, int]] = [{} for _ in range(players)]
    injure_map = [[0] * w for _ in range(h)]
    for y in range(h):
        for x in range(w):
            loc = (x, y)
            for c in range(players):
                if loc not in pieces[c]:
                    continue
                for d in range(players):
                    if d == c:
                        continue
                    for direction in range(5):
                        target = step(loc, direction)
                        if target in pieces[d]:
                            to_injure[d][target] = to_injure[d].get(target, 0) + pieces[c][loc]
                if strength[y][x] > 0:
                    to_injure[c][loc] = to_injure[c].get(loc, 0) + strength[y][x]
                    injure_map[y][x] += pieces[c][loc]
    for a in range(players):
        for loc, damage in to_injure[a].items():
            if damage >= pieces[a][loc]:
                del pieces[a][loc]
            else:
                pieces[a][loc] -= damage
    for y in range(h):
        for x in range(w):
            strength[y][x] = max(0, strength[y][x] - injure_map[y][x])
            owner[y][x] = 0
    for a in range(players):
        for (x, y), value in pieces[a].items():
            owner[y][x] = a + 1
            strength[y][x] = value
    return owner, strength


def random_position(rng: random.Random) -> dict[str, Any]:
    width, height = rng.randint(3, 9), rng.randint(3, 9)
    seats = rng.randint(2, 6)
    cells = [(x, y) for y in range(height) for x in range(width)]
    rng.shuffle(cells)
    owned = cells[: rng.randint(seats, len(cells) * 3 // 4)]
    pieces = {
        loc: (1 + n % seats if n < seats else rng.randint(1, seats), rng.choice(STRENGTHS)(rng))
        for n, loc in enumerate(owned)
    }
    neutral = {loc: rng.choice(STRENGTHS)(rng) for loc in cells[len(owned) :]}
    production = {loc: rng.randint(0, 15) for loc in cells}
    return position(
        pieces, neutral=neutral, production=production, width=width, height=height, seats=seats
    )


STRENGTHS = [
    lambda rng: 0,
    lambda rng: rng.randint(0, 20),
    lambda rng: rng.randint(0, 255),
    lambda rng: rng.randint(240, 255),
]


def random_moves(state: dict[str, Any], rng: random.Random) -> dict[int, list[list[int]]]:
    moves: dict[int, list[list[int]]] = {s: [] for s in state["awaiting"]}
    for y, row in enumerate(state["owner"]):
        for x, seat in enumerate(row):
            if seat and rng.random() < 0.8:
                moves[seat].append([x, y, rng.randrange(5)])
    for seat_moves in moves.values():
        rng.shuffle(seat_moves)
    return moves


@pytest.mark.parametrize("seed", range(40))
def test_random_turns_give_the_frame_of_the_2016_environment(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(25):
        state = random_position(rng)
        moves = random_moves(state, rng)
        applied = engine.apply(
            state, [{"seat": s, "turn": 0, "moves": moves[s]} for s in state["awaiting"]]
        )
        owner, strength = reference_frame(state, moves)
        assert applied.state["owner"] == owner
        assert applied.state["strength"] == strength


def test_matches_of_the_built_in_bots_give_the_frames_of_the_2016_environment() -> None:
    for seed, bots in ((4, ["grower", "random", "grower"]), (9, ["random"] * 4)):
        state = engine.new_game(
            seed=seed, seats=len(bots), ruleset="halite", options={"width": 12, "height": 12}
        )
        while not state["over"]:
            orders = [engine.bot_orders(bots[s - 1], state, s) for s in state["awaiting"]]
            after = engine.apply(state, orders).state
            owner, strength = reference_frame(state, {o["seat"]: o["moves"] for o in orders})
            assert (after["owner"], after["strength"]) == (owner, strength), state["turn"]
            state = after
