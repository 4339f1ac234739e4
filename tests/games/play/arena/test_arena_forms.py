"""The arena's plain form: a build of parts with its capacity, then one step at a
time; the JSON textarea wins when given; the engine's refusals beside the field;
and the planner's hints (the viewer's own robot, nothing for a spectator)."""

from __future__ import annotations

from typing import Any

import engine
from games import presentation
from games.play.arena.forms import OrdersForm, build_problem, parse_path

BUILD = {"phase": "build", "turn": 0, "step": 0, "viewer": 1}
PLAY = {"phase": "play", "turn": 3, "step": 2, "viewer": 1}


def _form(view: dict[str, Any], **data: Any) -> OrdersForm:
    form = OrdersForm({"turn": view["turn"], **data}, view=view)
    form.is_valid()
    return form


def test_a_build_within_the_capacity_is_the_orders():
    form = _form(BUILD, parts=["engine2", "radar2", "gun"])
    assert form.is_valid() and form.orders() == {"build": ["engine2", "radar2", "gun"]}
    assert build_problem(["engine3", "radar2"]) is None


def test_a_build_over_the_capacity_or_with_two_of_a_kind_is_an_error_beside_the_parts():
    over = _form(BUILD, parts=["engine3", "shield2", "gun"])
    assert not over.is_valid()
    assert over.errors["parts"] == ["These parts take 12 of the capacity; at most 10."]
    assert 'id="id_parts_errors"' in str(over.rows()) and "Capacity used: <output>12" in str(
        over.rows()
    )
    twice = _form(BUILD, parts=["radar1", "radar2"])
    assert "Two parts of one kind: radar1 and radar2" in twice.errors["parts"][0]


def test_each_step_from_the_fields_carries_the_step_the_page_showed():
    assert _form(PLAY, step="scan", step_no=2).orders() == {"step": {"type": "scan"}, "step_no": 2}
    move = _form(PLAY, step="move", path="up, up  LEFT", step_no=2).orders()
    assert move == {"step": {"type": "move", "path": ["up", "up", "left"]}, "step_no": 2}
    shot = _form(PLAY, step="shoot", x="4", y="5", step_no=2).orders()
    assert shot["step"] == {"type": "shoot", "target": [4, 5]}
    assert _form(PLAY, step="end").orders() == {"step": {"type": "end"}}


def test_the_json_textarea_wins_when_given():
    form = _form(PLAY, step="end", step_no=2, actions_json='{"step": {"type": "scan"}}')
    assert form.orders() == {"step": {"type": "scan"}, "step_no": 2}
    built = _form(BUILD, parts=["gun"], actions_json='{"build": ["cannon"]}')
    assert built.orders() == {"build": ["cannon"]}
    wrong = _form(PLAY, actions_json='{"build": ["gun"]}')
    assert "Give an object such as" in wrong.errors["actions_json"][0]


def test_paths_and_targets_are_checked_beside_their_fields():
    assert parse_path("north")[1] and parse_path("")[1] and parse_path("down right")[1] is None
    assert "is not a direction" in _form(PLAY, step="move", path="up north").errors["path"][0]
    assert "needs its target" in _form(PLAY, step="shoot", x="3").errors["x"][0]
    assert "x is from 0 to 99." in _form(PLAY, step="shoot", x="-1", y="2").errors["x"]


def test_the_engines_refusal_lands_beside_the_field_it_is_about():
    move = _form(PLAY, step="move", path="up")
    move.add_engine_error("Step 1 of the path leaves the arena.", None)
    assert move.errors["path"] == ["Step 1 of the path leaves the arena."]
    shot = _form(PLAY, step="shoot", x="9", y="9")
    shot.add_engine_error("Out of range.", None)
    assert shot.errors["x"] == ["Out of range."]
    built = _form(BUILD, parts=["gun"])
    built.add_engine_error("Refused.", None)
    assert built.errors["parts"] == ["Refused."] and "Refused." in str(built.rows())


def test_the_hints_hold_the_viewers_own_robot_and_nothing_for_a_spectator():
    shown = presentation.get("arena")
    state = engine.new_game(seed=4, ruleset="arena", seats=2)
    state = engine.apply(
        state,
        [
            {"seat": 1, "turn": 0, "build": ["engine2", "radar1", "cannon"]},
            {"seat": 2, "turn": 0, "build": ["engine1", "radar1", "gun"]},
        ],
    ).state
    hints = shown.hints(engine.view(state, 1))
    assert hints is not None and hints["seat"] == 1 and hints["capacity"] == 10
    assert hints["robot"] == {
        "x": 0, "y": 0, "health": 10, "max_health": 10, "steps_left": 4, "shot": False, "reload": 0,
        "parts": ["engine2", "radar1", "cannon"], "radar": 1, "weapons": {"cannon": 1},
    }  # fmt: skip
    assert "gun" not in repr(hints["robot"]) and shown.hints(engine.view(state, None)) is None
    assert shown.progress(engine.view(state, 1)) == "Round 1 of 40"
