"""Halite's plain order form: the moves textarea, a move a line ("x y direction"),
its errors naming their line, the JSON alternative, and the engine's refusal shown
next to the same field."""

from __future__ import annotations

from typing import Any

import pytest

import engine
from games.play.halite.forms import OrdersForm, moves_text, parse_moves


@pytest.fixture
def view() -> dict[str, Any]:
    state = engine.new_game(seed=6, seats=2, ruleset="halite", options={"width": 12, "height": 10})
    return engine.view(state, 1)


def _mine(view: dict[str, Any]) -> tuple[int, int]:
    ((x, y),) = [(x, y) for y, row in enumerate(view["owner"]) for x, o in enumerate(row) if o == 1]
    return x, y


def test_directions_are_digits_letters_or_words_and_separators_are_lenient():
    moves, lines, errors = parse_moves("1 2 n\n\n3,4,E\n# a note\n5;6;west\n7 8 0\n0 0 still")
    assert errors == []
    assert moves == [[1, 2, 1], [3, 4, 2], [5, 6, 4], [7, 8, 0], [0, 0, 0]]
    assert lines == [1, 3, 5, 6, 7]


def test_an_empty_text_is_a_pass():
    assert parse_moves("") == ([], [], [])
    assert parse_moves("\n  \n") == ([], [], [])


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("1 2", "Line 1: write a move as three parts"),
        ("1 2 3 4", "Line 1: write a move as three parts"),
        ("one 2 n", "Line 1: x and y are whole numbers"),
        ("1 2 up", "Line 1: the direction is 0 to 4 or n, e, s, w (0 stays), not “up”."),
        ("1 2 5", "Line 1: the direction is 0 to 4"),
        ("\n12 0 n", "Line 2: (12, 0) is off the map; x is 0 to 11 and y 0 to 9."),
        ("0 -1 n", "Line 1: (0, -1) is off the map"),
        ("1 1 n\n1 1 s", "Line 2: (1, 1) was already given a move on line 1."),
    ],
)
def test_each_bad_line_is_named(text, error):
    _moves, _lines, errors = parse_moves(text, width=12, height=10)
    assert len(errors) == 1 and errors[0].startswith(error)


def test_the_form_gives_the_orders_object_without_seat_and_turn(view):
    x, y = _mine(view)
    form = OrdersForm({"turn": 0, "moves": f"{x} {y} s"}, view=view)
    assert form.is_valid(), form.errors
    assert form.orders() == {"moves": [[x, y, 3]]} and form.cleaned_data["turn"] == 0
    engine.check(view, {"seat": 1, "turn": 0, **form.orders()})  # the engine takes it


def test_a_cell_the_viewer_does_not_hold_is_an_error_before_sending(view):
    form = OrdersForm({"turn": 0, "moves": "0 0 n" if view["owner"][0][0] != 1 else "1 0 n"})
    assert form.is_valid()  # without a view only the text is judged
    form = OrdersForm({"turn": 0, "moves": "0 0 n\n1 0 n"}, view=view)
    assert not form.is_valid()
    assert "holds no piece of yours" in str(form.errors["moves"])


def test_the_orders_as_json_stand_in_for_the_textarea(view):
    x, y = _mine(view)
    form = OrdersForm(
        {"turn": 0, "moves": "garbage", "actions_json": f'{{"moves": [[{x}, {y}, 2]]}}'},
        view=view,
    )
    assert form.is_valid(), form.errors
    assert form.orders() == {"moves": [[x, y, 2]]}


@pytest.mark.parametrize(
    ("raw", "error"),
    [
        ("[1, 2", "The orders are not valid JSON"),
        ("[1, 2]", 'Give an object such as {"moves": [[4, 7, 1]]}.'),
        ('{"moves": [[1, 2]]}', "Each move is three whole numbers"),
        ('{"moves": [[1, 2, 9]]}', "Line 1: the direction is 0 to 4"),
    ],
)
def test_bad_json_is_an_error_on_the_json_field(view, raw, error):
    form = OrdersForm({"turn": 0, "actions_json": raw}, view=view)
    assert not form.is_valid()
    assert any(error in e for e in form.errors["actions_json"]) and "moves" not in form.errors


def test_too_many_bad_lines_are_summed_up():
    form = OrdersForm({"turn": 0, "moves": "\n".join("x" for _ in range(15))})
    assert not form.is_valid()
    errors = form.errors["moves"]
    assert len(errors) == 11 and errors[-1] == "And 5 more lines like these."


def test_the_engines_refusal_names_the_line_of_its_move(view):
    x, y = _mine(view)
    form = OrdersForm({"turn": 0, "moves": f"\n{x} {y} n\n\n{x} {(y + 1) % 10} n"})
    assert form.is_valid()
    form.add_engine_error("That cell holds no piece of seat 1.", 1)
    assert form.errors["moves"] == ["Line 4: That cell holds no piece of seat 1."]
    form.add_engine_error("The match is over.", None)
    assert form.errors["moves"][-1] == "The match is over."


def test_the_rows_draw_the_textarea_its_value_help_and_errors_escaped(view):
    form = OrdersForm({"turn": 0, "moves": "<b>1 2"}, view=view)
    assert not form.is_valid()
    html = str(form.rows())
    assert '<textarea name="moves" id="id_moves"' in html and "&lt;b&gt;1 2</textarea>" in html
    assert 'class="form-field hl-moves invalid"' in html and 'role="alert"' in html
    assert "<b>" not in html and "One move a line" in html
    blank = str(OrdersForm(None, view=view).rows())
    assert "invalid" not in blank and 'aria-describedby="id_moves_helptext"' in blank


def test_moves_written_back_read_the_same():
    moves = [[1, 2, 3], [0, 0, 0], [49, 49, 4]]
    assert parse_moves(moves_text(moves))[0] == moves
