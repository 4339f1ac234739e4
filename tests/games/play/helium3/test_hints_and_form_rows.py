"""The click hints' reach strings against the engine's own search, and the order form's
rows for forms that share their fields: each form draws its own robots, values and
errors, whatever forms were drawn before it."""

from __future__ import annotations

from typing import Any

import pytest

import engine
from engine.helium3.moves import reachable
from engine.helium3.resolve import Turn
from engine.helium3.state import State
from games.play.helium3 import hints
from games.play.helium3.forms import OrdersForm
from games.play.remake.forms import OrdersForm as RemakeOrdersForm

BOTS = ("fighter", "miner", "random", "fighter")


def _played(seed: int, seats: int, turns: int) -> dict[str, Any]:
    state = engine.new_game(seed=seed, seats=seats)
    for _ in range(turns):
        awaited = engine.awaiting(state)
        if not awaited:
            break
        orders = [engine.bot_orders(BOTS[s - 1], state, s) for s in awaited]
        state = engine.apply(state, orders if len(orders) > 1 else orders[0]).state
    return state


def _engine_reach(turn: Turn, robot: Any, width: int, height: int) -> str:
    cells = ["."] * (width * height)
    for (x, y), d in reachable(turn, robot, hints.MAX_REACH).items():
        cells[y * width + x] = str(d)
    return "".join(cells)


@pytest.mark.parametrize(("seed", "seats", "turns"), [(1, 2, 0), (2, 4, 0), (3, 4, 15), (5, 2, 30)])
def test_reach_strings_are_the_engines_distances(seed: int, seats: int, turns: int) -> None:
    state = State.from_json(_played(seed, seats, turns))
    turn = Turn(state)
    checked = 0
    for robot in state.robots:
        if not robot.alive:
            continue
        ours = hints._reach_string(turn, robot, state.width, state.height)
        assert ours == _engine_reach(turn, robot, state.width, state.height)
        assert ours[robot.y * state.width + robot.x] == "0"
        checked += 1
    assert checked


def test_reach_string_of_a_boxed_in_robot_and_of_a_corner() -> None:
    state = _played(4, 4, 0)
    robots = state["robots"]
    # One robot in the corner, the others around it: it reaches nothing.
    robots[0].update(x=0, y=0)
    for robot, (x, y) in zip(robots[1:4], [(1, 0), (0, 1), (1, 1)], strict=True):
        robot.update(x=x, y=y)
    for i, robot in enumerate(robots[4:]):
        robot.update(x=10 + i % 5, y=10 + i // 5)
    board = State.from_json(state)
    turn = Turn(board)
    corner = next(r for r in board.robots if r.x == 0 and r.y == 0)
    reach = hints._reach_string(turn, corner, board.width, board.height)
    assert reach == "0" + "." * (board.width * board.height - 1)
    free = next(r for r in board.robots if (r.x, r.y) == (10, 10))
    assert hints._reach_string(turn, free, board.width, board.height) == _engine_reach(
        turn, free, board.width, board.height
    )


def _view(seed: int, seats: int) -> dict[str, Any]:
    state = engine.new_game(seed=seed, seats=seats)
    return engine.view(state, engine.awaiting(state)[0])


def _options(html: str, name: str) -> str:
    start = html.index(f'<select name="{name}"')
    return html[start : html.index("</select>", start)]


def test_each_form_draws_its_own_robots_and_labels() -> None:
    view = _view(1, 2)
    mine = [r["id"] for r in view["robots"] if r["seat"] == view["viewer"]]
    full = str(OrdersForm(view=view).rows())
    fewer = str(OrdersForm(view=view, robots=[{"id": mine[0]}]).rows())
    again = str(OrdersForm(view=view).rows())
    assert again == full
    for robot_id in mine:
        assert f'<option value="{robot_id}">' in _options(full, "robot_0")
    assert f'<option value="{mine[1]}">' not in _options(fewer, "robot_0")
    remake = str(RemakeOrdersForm(view=view).rows())
    assert "Vehicle:" in remake and "Robot:" not in remake
    assert "Robot:" in str(OrdersForm(view=view).rows())
    assert remake.count("<fieldset") == RemakeOrdersForm.MAX_ACTIONS
    assert full.count("<fieldset") == OrdersForm.MAX_ACTIONS


def test_a_filled_form_shows_its_values_and_errors_then_a_fresh_one_none() -> None:
    view = _view(2, 4)
    robot = next(r["id"] for r in view["robots"] if r["seat"] == view["viewer"])
    posted = {
        "turn": str(view["turn"]),
        "robot_0": robot,
        "type_0": "move",
        "x_0": "3",
        "robot_1": "9-9",
        "type_1": "fire_laser",
    }
    form = OrdersForm(posted, view=view)
    assert not form.is_valid()
    rows = str(form.rows())
    assert f'<option value="{robot}" selected>' in _options(rows, "robot_0")
    assert '<option value="move" selected>' in _options(rows, "type_0")
    assert 'name="x_0" id="id_x_0" min="0" max="19" inputmode="numeric" value="3"' in rows
    assert "Give both x and y, or neither." in rows
    assert "Select a valid choice. 9-9 is not one of the available choices." in rows
    fresh = str(OrdersForm(view=view, initial={"turn": view["turn"]}).rows())
    assert " selected>" not in fresh.replace('<option value="" selected>', "")
    assert "errorlist" not in fresh
    valid = OrdersForm({**posted, "y_0": "4", "robot_1": "", "type_1": ""}, view=view)
    assert valid.is_valid(), valid.errors
    assert valid.orders() == {"actions": [{"robot": robot, "type": "move", "to": [3, 4]}]}


def test_a_long_posted_value_is_drawn_escaped_and_not_kept() -> None:
    from games.play.helium3 import forms as helium3_forms

    view = _view(3, 2)

    def rows(value: str) -> str:
        form = OrdersForm({"turn": str(view["turn"]), "x_1": value}, view=view)
        form.is_valid()
        return str(form.rows())

    assert 'value="&lt;b&gt;&quot;' + "9" * 200 + '"' in rows('<b>"' + "9" * 200)
    kept = helium3_forms._control_html.cache_info().currsize
    assert 'value="' + "8" * 300 + '"' in rows("8" * 300)
    assert helium3_forms._control_html.cache_info().currsize == kept
    assert 'value="77"' in rows("77")
    assert helium3_forms._control_html.cache_info().currsize == kept + 1
