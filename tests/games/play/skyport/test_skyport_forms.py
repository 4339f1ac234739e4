"""Skyport's plain order form: two different weapons in the loadout phase, up to three
action rows in play, the JSON textarea that wins when given, and every error beside
the field it is about."""

from __future__ import annotations

import re

import pytest

import engine
from games.play.skyport import orders_initial
from games.play.skyport.forms import OrdersForm, parse_sequence


@pytest.fixture(scope="module")
def loadout_view() -> dict:
    return engine.view(engine.new_game(seed=4, seats=2, ruleset="skyport"), 1)


@pytest.fixture(scope="module")
def play_view() -> dict:
    state = engine.new_game(seed=4, seats=2, ruleset="skyport")
    orders = [
        {"seat": 1, "turn": 0, "loadout": ["laser", "mortar"]},
        {"seat": 2, "turn": 0, "loadout": ["droid", "mortar"]},
    ]
    state = engine.apply(state, orders).state
    return engine.view(state, engine.awaiting(state)[0])


def _form(view: dict, **data: str) -> OrdersForm:
    form = OrdersForm({"turn": str(view["turn"]), **data}, view=view)
    form.is_valid()
    return form


def test_the_loadout_phase_asks_two_weapons_and_no_action(loadout_view):
    form = OrdersForm(None, view=loadout_view)
    html = str(form.rows())
    assert '<select name="loadout_1"' in html and '<select name="loadout_2"' in html
    assert 'fieldset class="action' not in html
    valid = _form(loadout_view, loadout_1="droid", loadout_2="laser")
    assert valid.is_valid() and valid.orders() == {"loadout": ["droid", "laser"]}


@pytest.mark.parametrize(
    ("data", "field", "message"),
    [
        (
            {"loadout_1": "laser", "loadout_2": "laser"},
            "loadout_2",
            "Choose two different weapons.",
        ),
        ({"loadout_1": "laser"}, "loadout_2", "Choose your second weapon."),
        ({"loadout_2": "mortar"}, "loadout_1", "Choose your first weapon."),
        ({"loadout_1": "sword", "loadout_2": "laser"}, "loadout_1", "Select a valid choice."),
    ],
)
def test_a_bad_loadout_is_explained_beside_its_field(loadout_view, data, field, message):
    form = _form(loadout_view, **data)
    assert not form.is_valid()
    assert any(message in e for e in form.errors[field])
    html = str(form.rows())
    errors = re.search(
        r'<div class="action-error" role="alert" id="id_loadout_errors">.*?</div>', html
    )
    assert errors and message in errors.group(0) and 'aria-invalid="true"' in html


def test_three_action_rows_read_every_kind_of_action(play_view):
    form = _form(
        play_view,
        type_0="move",
        direction_0="left-down",
        type_1="upgrade",
        weapon_1="mortar",
        type_2="mortar",
        dj_2="1",
        dk_2="-2",
    )
    assert form.is_valid(), form.errors
    assert form.orders() == {
        "actions": [
            {"type": "move", "direction": "left-down"},
            {"type": "upgrade", "weapon": "mortar"},
            {"type": "mortar", "target": [1, -2]},
        ]
    }
    html = str(form.rows())
    assert html.count('<fieldset class="action sp-action"') == 3
    droid = _form(play_view, type_0="mine", type_1="droid", sequence_1="up, left-up  down")
    assert droid.orders() == {
        "actions": [{"type": "mine"}, {"type": "droid", "sequence": ["up", "left-up", "down"]}]
    }
    empty_walk = _form(play_view, type_0="droid")
    assert empty_walk.orders() == {"actions": [{"type": "droid", "sequence": []}]}
    assert _form(play_view).orders() == {"actions": []}


@pytest.mark.parametrize(
    ("data", "field", "message"),
    [
        ({"type_0": "move"}, "direction_0", "A move needs a direction."),
        ({"type_1": "laser"}, "direction_1", "A laser needs a direction."),
        ({"type_0": "upgrade"}, "weapon_0", "Choose the weapon to upgrade."),
        ({"type_2": "mortar", "dj_2": "1"}, "dj_2", "A mortar needs its target"),
        ({"type_0": "mortar", "dj_0": "x", "dk_0": "1"}, "dj_0", "dj is a whole number."),
        ({"type_0": "mortar", "dj_0": "99", "dk_0": "1"}, "dj_0", "dj is from -20 to 20."),
        ({"type_0": "droid", "sequence_0": "up sideways"}, "sequence_0", "“sideways” is not"),
        ({"direction_1": "up"}, "type_1", "Choose the action these fields are for."),
        ({"type_0": "jump"}, "type_0", "Select a valid choice."),
    ],
)
def test_a_bad_action_is_explained_in_its_own_row(play_view, data, field, message):
    form = _form(play_view, **data)
    assert not form.is_valid()
    assert any(message in e for e in form.errors[field])
    row = int(field.rsplit("_", 1)[1])
    html = str(form.rows())
    block = re.search(rf'id="id_action_{row}_errors">.*?</div>', html)
    assert block and message.replace("“", "&ldquo;")[:8] in block.group(0).replace("“", "&ldquo;")


def test_the_json_textarea_wins_over_the_fields(play_view, loadout_view):
    form = _form(
        play_view,
        type_0="move",
        direction_0="up",
        actions_json='{"actions": [{"type": "laser", "direction": "down"}]}',
    )
    assert form.orders() == {"actions": [{"type": "laser", "direction": "down"}]}
    loadout = _form(loadout_view, actions_json='{"loadout": ["mortar", "droid"]}')
    assert loadout.orders() == {"loadout": ["mortar", "droid"]}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{", "The orders are not valid JSON"),
        ('{"moves": []}', 'Give an object such as {"actions": [...]}'),
        ('{"actions": [3]}', "Each action is an object"),
        ("[" * 10_001, "Ensure this value has at most"),
    ],
)
def test_bad_json_is_explained_beside_the_textarea(play_view, text, message):
    form = _form(play_view, actions_json=text)
    assert not form.is_valid()
    assert any(message in e for e in form.errors["actions_json"])


def test_the_engines_refusal_goes_beside_the_action_it_names(play_view):
    form = _form(play_view, type_0="mine", type_2="move", direction_2="up")
    assert form.is_valid()
    form.add_engine_error("Action 2: you cannot move onto rock.", 1)
    assert form.errors["type_2"] == ["Action 2: you cannot move onto rock."]
    assert "you cannot move onto rock" in str(form.rows())
    by_json = _form(play_view, actions_json='{"actions": [{"type": "mine"}]}')
    by_json.add_engine_error("nothing to mine here", 0)
    assert by_json.errors["actions_json"] == ["Action 1: nothing to mine here"]
    unnamed = _form(play_view, type_0="mine")
    unnamed.add_engine_error("Not your turn.", None)
    assert unnamed.non_field_errors() == ["Not your turn."]


def test_the_orders_sent_fill_the_form_again(loadout_view, play_view):
    initial = orders_initial({"seat": 1, "turn": 0, "loadout": ["mortar", "droid"]})
    form = OrdersForm(None, view=loadout_view, initial={"turn": 0, **initial})
    html = str(form.rows())
    assert '<option value="mortar" selected>' in html and '<option value="droid" selected>' in html
    sent = {
        "actions": [
            {"type": "mortar", "target": [1, -2]},
            {"type": "droid", "sequence": ["up", "down"]},
        ]
    }
    html = str(OrdersForm(None, view=play_view, initial=orders_initial(sent)).rows())
    assert 'name="dj_0" id="id_dj_0"' in html and 'value="-2"' in html
    assert 'value="up, down"' in html
    assert orders_initial({"actions": "nonsense"}) == {}


def test_a_walk_is_read_with_any_separator():
    assert parse_sequence("UP,left-down ; down") == (["up", "left-down", "down"], None)
    steps, error = parse_sequence("north")
    assert steps == [] and error and "up, down, right-up" in error


def test_orders_sent_fill_the_textarea_too_and_the_fields_win_while_it_is_untouched(
    loadout_view,
):
    initial = orders_initial({"seat": 1, "turn": 0, "loadout": ["mortar", "droid"]})
    assert initial["actions_json"] == initial["sent_json"] == '{"loadout": ["mortar", "droid"]}'
    html = str(OrdersForm(None, view=loadout_view, initial={"turn": 0, **initial}).rows())
    assert (
        '<input type="hidden" name="sent_json" id="id_sent_json" '
        'value="{&quot;loadout&quot;: [&quot;mortar&quot;, &quot;droid&quot;]}">'
    ) in html
    sent = initial["sent_json"]
    # Without JavaScript: the fields were changed, the textarea still shows what was sent.
    plain = _form(
        loadout_view, loadout_1="laser", loadout_2="droid", actions_json=sent, sent_json=sent
    )
    assert plain.orders() == {"loadout": ["laser", "droid"]}
    # The board script rewrote the textarea: it wins over the fields it left as they were.
    scripted = _form(
        loadout_view,
        loadout_1="mortar",
        loadout_2="droid",
        actions_json='{"loadout": ["laser", "mortar"]}',
        sent_json=sent,
    )
    assert scripted.orders() == {"loadout": ["laser", "mortar"]}
    # The fields emptied: the textarea, untouched, still says it.
    alone = _form(loadout_view, actions_json=sent, sent_json=sent)
    assert alone.orders() == {"loadout": ["mortar", "droid"]}
