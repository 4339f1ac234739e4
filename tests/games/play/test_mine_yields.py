"""The planner's mining rule: the hints' `mining` (the board page computes each mine
target's yield with it) gives, at every cell a robot (a vehicle in the remake) may mine
at, what the engine's own mine takes there."""

from __future__ import annotations

from typing import Any

import pytest

import engine
from engine.helium3 import api as helium3_api
from engine.remake import api as remake_api
from games.play.helium3 import hints as helium3_hints
from games.play.remake import hints as remake_hints


def by_rule(rule: dict[str, Any], helium: list[list[int]], x: int, y: int) -> int:
    """The rule as board.js's yieldAt applies it."""
    total = 0
    for cy in range(max(0, y - 1), min(len(helium), y + 2)):
        for cx in range(max(0, x - 1), min(len(helium[0]), x + 2)):
            cap = rule["centre"] if (cx, cy) == (x, y) else rule["around"]
            a = helium[cy][cx]
            total += (cap if a >= cap else 0) if rule["whole"] else min(cap, a)
    return total


def mined(state: dict[str, Any], seat: int, robot: str, to: list[int]) -> int:
    orders = {
        "seat": seat,
        "turn": state["turn"],
        "actions": [{"robot": robot, "type": "mine", "to": to}],
    }
    applied = engine.apply(state, orders)
    return sum(e["amount"] for e in applied.events if e["type"] == "mined")


@pytest.mark.parametrize(
    ("new_game", "hints"),
    [(helium3_api.new_game, helium3_hints), (remake_api.new_game, remake_hints)],
    ids=["helium3", "remake"],
)
def test_the_hints_mining_rule_gives_what_the_engine_mines_at_every_target(
    new_game: Any, hints: Any
) -> None:
    found = []
    for seed in (3, 7, 11):
        state = new_game(seed=seed, seats=2)
        seat = state["to_move"]
        answer = hints.hints_for(engine.view(state, seat))
        w, most = answer["w"], answer["ranges"]["mine"]
        for robot_id, hint in answer["robots"].items():
            for i, d in enumerate(hint["reach"]):
                if d == "." or int(d) > most:
                    continue
                x, y = i % w, i // w
                expected = mined(state, seat, robot_id, [x, y])
                assert by_rule(answer["mining"], state["helium"], x, y) == expected, (
                    seed,
                    robot_id,
                    x,
                    y,
                )
                found.append(expected)
    assert 0 in found and max(found) > 0
