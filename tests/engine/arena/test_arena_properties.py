"""Properties over whole matches of the built-in bots (random and hunter): the rules'
invariants after every build and step, and the fog on every state met."""

from __future__ import annotations

import json
from typing import Any

import pytest
from test_arena_fog import unseen_variants

import engine
from engine.arena.orders import CAPACITY
from engine.arena.state import PARTS, engine_steps, max_health

MATCHES = [
    (1, ["random", "random"]),
    (2, ["random", "hunter"]),
    (3, ["hunter", "random", "random"]),
    (4, ["hunter", "hunter", "random", "random"]),
    (5, ["random", "random", "random", "random"]),
]


def blob(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def entries(seed: int, bots: list[str], rounds: int = 12) -> list[tuple[Any, Any, Any]]:
    """(state before, orders, applied) for each resolution of a match of `bots`."""
    state = engine.new_game(seed=seed, seats=len(bots), ruleset="arena", options={"rounds": rounds})
    out = []
    while awaited := engine.awaiting(state):
        given = [engine.bot_orders(bots[s - 1], state, s) for s in awaited]
        orders: Any = given[0] if len(given) == 1 else given
        applied = engine.apply(state, orders)
        out.append((state, orders, applied))
        state = applied.state
        assert len(out) < 20_000
    return out


def check_invariants(before: dict[str, Any], after: dict[str, Any]) -> None:
    obstacles = {tuple(c) for c in after["obstacles"]}
    living = [r for r in after["robots"] if r["alive"]]
    cells = [(r["x"], r["y"]) for r in living]
    assert len(set(cells)) == len(cells) and not set(cells) & obstacles
    assert all(0 <= x < 10 and 0 <= y < 10 for x, y in cells)
    for robot in after["robots"]:
        parts = robot["parts"]
        assert sum(PARTS[p][1] for p in parts) <= CAPACITY
        assert len({PARTS[p][0] for p in parts}) == len(parts)
        assert 0 <= robot["health"] <= robot["max_health"] == max_health(parts)
        assert robot["alive"] == (robot["health"] > 0)
        assert after["scores"][str(robot["seat"])] == robot["health"]
        assert 0 <= robot["steps_left"] <= engine_steps(parts)
        assert 0 <= robot["reload"] <= 2
    assert after["turn"] >= before["turn"] and after["round"] <= after["rounds"]
    if after["over"]:
        assert after["awaiting"] == [] and after["winners"]
        best = max(r["health"] for r in living)
        assert after["winners"] == [r["seat"] for r in living if r["health"] == best]
    else:
        assert len(after["awaiting"]) == 1
        assert after["robots"][after["awaiting"][0] - 1]["alive"]


@pytest.mark.parametrize(("seed", "bots"), MATCHES)
def test_properties_every_resolution_keeps_the_rules_invariants(seed: int, bots: list[str]) -> None:
    played = entries(seed, bots)
    final = played[-1][2].state
    assert final["over"]
    for before, _, applied in played:
        check_invariants(before, applied.state)


@pytest.mark.parametrize(("seed", "bots"), MATCHES)
def test_properties_events_show_a_seat_only_its_own_scans_moves_and_shots_and_a_spectator_public_ones(
    seed: int, bots: list[str]
) -> None:
    for _, _, applied in entries(seed, bots):
        for seat in range(1, len(bots) + 1):
            for event in engine.events_view(applied.events, seat, ruleset="arena"):
                if event["type"] in ("scan", "move", "shot"):
                    assert event["seat"] == seat
                if event["type"] in ("hit", "damage"):
                    assert event["seat"] == seat and "from" not in event
        # A spectator of a running match hears only the public events (a build names
        # no part); once the match is over, everyone hears every event.
        spectator = engine.events_view(applied.events, None, ruleset="arena")
        public = [
            e for e in applied.events if e["type"] in ("built", "turn_end", "destroyed", "over")
        ]
        assert [e["type"] for e in spectator] == [e["type"] for e in public]
        assert all(e["parts"] == {} for e in spectator if e["type"] == "built")
        assert (
            engine.events_view(applied.events, None, over=True, ruleset="arena") == applied.events
        )


@pytest.mark.parametrize(("seed", "bots"), MATCHES[:3])
def test_properties_views_depend_only_on_what_the_seat_scanned(seed: int, bots: list[str]) -> None:
    played = entries(seed, bots)
    for before, _, _ in played[1 :: max(1, len(played) // 12)]:
        if before["over"]:
            continue
        for seat in range(1, len(bots) + 1):
            if not before["robots"][seat - 1]["alive"]:
                continue
            mine = blob(engine.view(before, seat))
            for other in unseen_variants(before, seat)[:4]:
                assert blob(engine.view(other, seat)) == mine


@pytest.mark.parametrize(("seed", "bots"), MATCHES[:2])
def test_properties_a_replay_of_the_same_orders_gives_the_same_match(
    seed: int, bots: list[str]
) -> None:
    one, two = entries(seed, bots), entries(seed, bots)
    assert [blob(o) for _, o, _ in one] == [blob(o) for _, o, _ in two]
    assert one[-1][2].state == two[-1][2].state
