"""Properties of random legal Halite play (hypothesis): what holds after every turn.

Matches are played by `random_orders`, a player that names a random share of its cells
with random directions (still included), in a random order; seeds, sizes, seat counts
and the player's own randomness vary. Whole matches run to their end.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from halite_helpers import shown
from hypothesis import given
from hypothesis import strategies as st
from random_play import matches

import engine
from engine.core import Applied
from engine.halite.state import State

Json = dict[str, Any]
TIMING = {
    "move": (0, 300), "merge": (300, 100), "damage": (400, 200), "destroyed": (600, 200),
    "captured": (600, 200), "eliminated": (800, 0), "over": (800, 0),
}  # fmt: skip
MATCHES = matches(12)
match_args = {
    "seed": st.integers(0, 2**40),
    "seats": st.sampled_from([2, 3, 4, 5, 6]),
    "size": st.sampled_from([(10, 10), (12, 10), (15, 20)]),
    "player": st.integers(0, 2**32),
}


def random_orders(state: Json, seat: int, rng: random.Random) -> Json:
    share = rng.choice([0.0, 0.3, 0.9])
    moves = [
        [x, y, rng.randrange(5)]
        for y, row in enumerate(state["owner"])
        for x, owner in enumerate(row)
        if owner == seat and rng.random() < share
    ]
    rng.shuffle(moves)
    return {"seat": seat, "turn": state["turn"], "moves": moves}


@dataclass
class Step:
    state: Json
    orders: list[Json]
    applied: Applied
    before: str
    events: list[Json]  # as every viewer reads them: piece by piece


def play(seed: int, seats: int, size: tuple[int, int], player: int) -> Iterator[Step]:
    rng = random.Random(player)
    options = {"width": size[0], "height": size[1]}
    state = engine.new_game(seed=seed, seats=seats, ruleset="halite", options=options)
    while not state["over"]:
        orders = [random_orders(state, s, rng) for s in state["awaiting"]]
        before = json.dumps(state, sort_keys=True)
        applied = engine.apply(state, orders)
        yield Step(state, orders, applied, before, shown(applied.events))
        state = applied.state


def territory(state: Json) -> dict[str, int]:
    flat = [o for row in state["owner"] for o in row]
    return {str(s): flat.count(s) for s in range(1, state["seats"] + 1)}


@MATCHES
@given(**match_args)
def test_every_state_of_random_play_is_valid_and_round_trips(
    seed: int, seats: int, size: tuple[int, int], player: int
) -> None:
    for step in play(seed, seats, size, player):
        after = step.applied.state
        assert State.from_json(after).to_json() == after
        assert json.dumps(step.state, sort_keys=True) == step.before  # apply changed nothing
        strengths = [v for row in after["strength"] for v in row]
        assert min(strengths) >= 0 and max(strengths) <= 255
        assert after["turn"] == step.state["turn"] + 1


@MATCHES
@given(**match_args)
def test_scores_are_territory_and_territory_total_accumulates_it(
    seed: int, seats: int, size: tuple[int, int], player: int
) -> None:
    for step in play(seed, seats, size, player):
        after = step.applied.state
        counts = territory(after)
        assert after["scores"] == counts
        assert after["territory_total"] == {
            s: step.state["territory_total"][s] + counts[s] for s in counts
        }
        assert after["alive"] == [int(s) for s, n in counts.items() if n]
        assert after["awaiting"] == ([] if after["over"] else after["alive"])
        assert after["eliminated"][: len(step.state["eliminated"])] == step.state["eliminated"]
        assert sorted(after["alive"] + after["eliminated"]) == list(range(1, seats + 1))


@MATCHES
@given(**match_args)
def test_the_match_ends_exactly_when_one_seat_or_none_is_left_or_time_is_up(
    seed: int, seats: int, size: tuple[int, int], player: int
) -> None:
    for step in play(seed, seats, size, player):
        after = step.applied.state
        ended = len(after["alive"]) <= 1 or after["turn"] == after["max_turns"]
        assert after["over"] == ended
        if ended:
            assert sorted(after["ranking"]) == list(range(1, seats + 1))
            assert after["ranking"][0] in after["winners"]
            assert step.events[-1]["type"] == "over"
        else:
            assert after["ranking"] == after["winners"] == []


@MATCHES
@given(**match_args)
def test_the_events_tell_the_moves_the_changes_of_hands_and_their_timing(
    seed: int, seats: int, size: tuple[int, int], player: int
) -> None:
    for step in play(seed, seats, size, player):
        before, after = step.state, step.applied.state
        w, h = before["width"], before["height"]
        events = step.events
        for event in events:
            assert (event["t_ms"], event["duration_ms"]) == TIMING[event["type"]]
        moved = sorted((y, x, d) for o in step.orders for x, y, d in o["moves"] if d)
        shown = sorted((e["from"][1], e["from"][0], e["direction"]) for e in events
                       if e["type"] == "move")  # fmt: skip
        assert shown == moved
        for e in events:
            if e["type"] == "move":
                (x, y), d = e["from"], e["direction"]
                dx, dy = [(0, 0), (0, -1), (1, 0), (0, 1), (-1, 0)][d]
                assert e["to"] == [(x + dx) % w, (y + dy) % h]
                assert e["strength"] == before["strength"][y][x]
                assert e["seat"] == before["owner"][y][x]
        changed = [
            {"at": [x, y], "owner": after["owner"][y][x], "previous": before["owner"][y][x]}
            for y in range(h)
            for x in range(w)
            if after["owner"][y][x] != before["owner"][y][x]
        ]
        captured = [
            {k: e[k] for k in ("at", "owner", "previous")}
            for e in events
            if e["type"] == "captured"
        ]
        assert captured == changed
        gone = [e["seat"] for e in events if e["type"] == "eliminated"]
        assert gone == after["eliminated"][len(before["eliminated"]) :]


@MATCHES
@given(**match_args)
def test_a_copy_of_the_state_resolves_to_the_same_turn(
    seed: int, seats: int, size: tuple[int, int], player: int
) -> None:
    for step in play(seed, seats, size, player):
        again = engine.apply(copy.deepcopy(step.state), copy.deepcopy(step.orders))
        assert again == step.applied
