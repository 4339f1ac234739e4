"""The planner's mine yields: for each cell a robot (a vehicle in the remake) may mine
at, the helium the hints promise is what the engine's own mine takes there."""

from __future__ import annotations

from typing import Any

import pytest

import engine
from engine.helium3 import api as helium3_api
from engine.remake import api as remake_api
from games.play.helium3 import hints as helium3_hints
from games.play.remake import hints as remake_hints


def _mined(state: dict[str, Any], seat: int, robot: str, to: list[int]) -> int:
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
def test_each_mine_target_promises_what_the_engine_mines_there(new_game: Any, hints: Any) -> None:
    state = new_game(seed=7, seats=2)
    seat = state["to_move"]
    view = engine.view(state, seat)
    given = hints.hints_for(view)["robots"]
    assert given
    promised = []
    for robot_id, hint in given.items():
        cells = hint["mine"]
        assert len(cells) > 1
        for x, y, amount in cells:
            assert amount == _mined(state, seat, robot_id, [x, y]), (robot_id, x, y)
            promised.append(amount)
    assert max(promised) > 0


def test_a_mine_where_no_helium_lies_promises_nothing() -> None:
    state = helium3_api.new_game(seed=7, seats=2)
    state["helium"] = [[0] * state["width"] for _ in range(state["height"])]
    seat = state["to_move"]
    given = helium3_hints.hints_for(engine.view(state, seat))["robots"]
    assert all(amount == 0 for hint in given.values() for _x, _y, amount in hint["mine"])
