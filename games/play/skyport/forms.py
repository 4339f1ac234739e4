"""Skyport's plain order form: it works without JavaScript.

In the loadout phase it asks for two different weapons; in play for up to three
actions, each a row: its type, a direction (move, laser), a weapon (upgrade), the
mortar's target as an offset `[dj, dk]` from the player, or the droid's walk (a list
of directions). The textarea `actions_json` holds the orders object without seat
and turn (`{"loadout": [...]}` or `{"actions": [...]}`); the board script writes it
and submits the form (id "orders-form"), and when it is not empty it wins.

Orders already sent (a loadout, which may be changed until every seat has chosen)
fill both the fields and the textarea, so the board script starts from them too;
the hidden `sent_json` keeps the text they were shown as. A textarea still holding
exactly that text was not touched, so the fields win then: a person without
JavaScript who changes the fields is not overruled by the old orders' JSON.

The form reads what the fields can say by themselves and says it next to the field;
the engine judges the orders when they are sent, and its refusal is shown next to
the action it names (`add_engine_error`). The rows are joined in Python, not
rendered through Django's widget templates, which cost milliseconds a page.
"""

from __future__ import annotations

import json
import re
from typing import Any

from django import forms
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from engine.skyport.hexgrid import DIRECTIONS
from engine.skyport.orders import ACTIONS_PER_TURN
from engine.skyport.state import WEAPONS

ACTION_TYPES = ("move", "mine", "upgrade", "laser", "mortar", "droid")
MAX_ACTIONS = ACTIONS_PER_TURN
# A mortar's offset and a droid's walk are small: range 4 and 5 steps at level 3.
OFFSET_MAX = 20
SEQUENCE_MAX_TEXT = 200
MAX_ORDERS_JSON = 10_000
_SEPARATORS = re.compile(r"[\s,;]+")
_NONE = [("", "—")]
# What the form asks for, said in the phase it is asked: the loadout's note is gone
# once the loadouts are chosen.
LOADOUT_NOTE = (
    "Choose two different weapons for the whole match (every seat at once; you may change "
    "your choice until all have chosen)."
)
PLAY_NOTE = (
    f"Up to {MAX_ACTIONS} actions, in order; an attack ends the turn, and each action left "
    "unused adds a fifth to its damage."
)
PLANNED_NOTE = "Planned on the board above: its Send button sends what it shows as planned."


def parse_sequence(text: str) -> tuple[list[str], str | None]:
    """A droid's walk from text ("up, left-up down"): the directions, or an error."""
    steps = [s.lower() for s in _SEPARATORS.split(text.strip()) if s]
    bad = [s for s in steps if s not in DIRECTIONS]
    if bad:
        known = ", ".join(DIRECTIONS)
        return [], f"“{bad[0][:20]}” is not a direction; the directions are {known}."
    return steps, None


def loadout_phase(view: dict[str, Any] | None) -> bool:
    return view is not None and view.get("phase") == "loadout"


class OrdersForm(forms.Form):
    """A loadout or a turn's actions as plain fields, or the orders object as JSON;
    `orders()` gives {"loadout": [w1, w2]} or {"actions": [...]} without seat and turn."""

    turn = forms.IntegerField(widget=forms.HiddenInput, min_value=0, max_value=10**6)
    # Named as the other games' JSON field, so the match page's JSON box is this form's.
    actions_json = forms.CharField(
        label="Or the orders as JSON",
        required=False,
        max_length=MAX_ORDERS_JSON,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
    )
    sent_json = forms.CharField(
        required=False, max_length=MAX_ORDERS_JSON, widget=forms.HiddenInput
    )

    def __init__(self, *args: Any, view: dict[str, Any] | None = None, **kwargs: Any) -> None:
        self.view = view
        self.loadout = loadout_phase(view)
        if view is not None:
            kwargs.setdefault("initial", {"turn": view.get("turn")})
        super().__init__(*args, **kwargs)
        self.row_of_action: list[int] = []
        weapons = _NONE + [(w, w) for w in WEAPONS]
        if self.loadout:
            self.fields["actions_json"].help_text = (
                'For example {"loadout": ["laser", "mortar"]}. When given, the choice above '
                "is ignored."
            )
            for n in (1, 2):
                self.fields[f"loadout_{n}"] = forms.ChoiceField(
                    label=f"Weapon {n}", choices=weapons, required=False
                )
            return
        self.fields["actions_json"].help_text = (
            'For example {"actions": [{"type": "move", "direction": "up"}, {"type": "mortar", '
            '"target": [1, -2]}]}. When given, the rows above are ignored.'
        )
        directions = _NONE + [(d, d) for d in DIRECTIONS]
        for i in range(MAX_ACTIONS):
            self.fields[f"type_{i}"] = forms.ChoiceField(
                label="Action", choices=_NONE + [(t, t) for t in ACTION_TYPES], required=False
            )
            self.fields[f"direction_{i}"] = forms.ChoiceField(
                label="Direction", choices=directions, required=False
            )
            self.fields[f"weapon_{i}"] = forms.ChoiceField(
                label="Weapon", choices=weapons, required=False
            )
            for axis in ("dj", "dk"):
                self.fields[f"{axis}_{i}"] = forms.IntegerField(
                    label=axis,
                    required=False,
                    min_value=-OFFSET_MAX,
                    max_value=OFFSET_MAX,
                    error_messages={
                        "invalid": f"{axis} is a whole number.",
                        "min_value": f"{axis} is from -{OFFSET_MAX} to {OFFSET_MAX}.",
                        "max_value": f"{axis} is from -{OFFSET_MAX} to {OFFSET_MAX}.",
                    },
                )
            self.fields[f"sequence_{i}"] = forms.CharField(
                label="Droid's walk", required=False, max_length=SEQUENCE_MAX_TEXT
            )

    # -- reading -------------------------------------------------------------------

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        raw = (data.get("actions_json") or "").strip()
        untouched = raw and raw == (data.get("sent_json") or "").strip()
        if untouched and self._fields_given(data):
            raw = ""
            data["actions_json"] = ""
        if raw:
            self._clean_json(raw, data)
        elif self.loadout:
            self._clean_loadout(data)
        else:
            self._clean_rows(data)
        return data

    def _fields_given(self, data: dict[str, Any]) -> bool:
        """Whether any plain field of the phase holds a value."""
        if self.loadout:
            names = ["loadout_1", "loadout_2"]
        else:
            names = [f"type_{i}" for i in range(MAX_ACTIONS)]
        return any(data.get(name) for name in names)

    def _clean_json(self, raw: str, data: dict[str, Any]) -> None:
        key = "loadout" if self.loadout else "actions"
        example = '{"loadout": ["laser", "mortar"]}' if self.loadout else '{"actions": [...]}'
        try:
            given = json.loads(raw)
        except ValueError as error:
            self.add_error("actions_json", f"The orders are not valid JSON: {error}.")
            return
        except RecursionError:
            self.add_error("actions_json", "The orders are nested too deeply.")
            return
        if not isinstance(given, dict) or not isinstance(given.get(key), list):
            self.add_error("actions_json", f"Give an object such as {example}.")
            return
        if not self.loadout and not all(isinstance(a, dict) for a in given[key]):
            self.add_error("actions_json", "Each action is an object with a “type”.")
            return
        # The engine judges the rest (weapons, directions, ranges) and names the action.
        data["orders"] = {key: given[key]}

    def _clean_loadout(self, data: dict[str, Any]) -> None:
        first, second = data.get("loadout_1"), data.get("loadout_2")
        if not first:
            self.add_error("loadout_1", "Choose your first weapon.")
        if not second:
            self.add_error("loadout_2", "Choose your second weapon.")
        if first and second and first == second:
            self.add_error("loadout_2", "Choose two different weapons.")
        if first and second and first != second:
            data["orders"] = {"loadout": [first, second]}

    def _clean_rows(self, data: dict[str, Any]) -> None:
        actions: list[dict[str, Any]] = []
        self.row_of_action = []
        for i in range(MAX_ACTIONS):
            kind = data.get(f"type_{i}")
            if not kind:
                if any(data.get(f"{n}_{i}") not in (None, "") for n in ("direction", "weapon")):
                    self.add_error(f"type_{i}", "Choose the action these fields are for.")
                continue
            action = self._action(i, kind, data)
            if action is not None:
                actions.append(action)
                self.row_of_action.append(i)
        data["orders"] = {"actions": actions}

    def _action(self, i: int, kind: str, data: dict[str, Any]) -> dict[str, Any] | None:
        if kind in ("move", "laser"):
            direction = data.get(f"direction_{i}")
            if not direction:
                what = "A move" if kind == "move" else "A laser"
                self.add_error(f"direction_{i}", f"{what} needs a direction.")
                return None
            return {"type": kind, "direction": direction}
        if kind == "upgrade":
            weapon = data.get(f"weapon_{i}")
            if not weapon:
                self.add_error(f"weapon_{i}", "Choose the weapon to upgrade.")
                return None
            return {"type": kind, "weapon": weapon}
        if kind == "mortar":
            dj, dk = data.get(f"dj_{i}"), data.get(f"dk_{i}")
            if f"dj_{i}" in self.errors or f"dk_{i}" in self.errors:
                return None
            if dj is None or dk is None:
                self.add_error(
                    f"dj_{i}", "A mortar needs its target as an offset: dj and dk (0 0 is you)."
                )
                return None
            return {"type": kind, "target": [dj, dk]}
        if kind == "droid":
            steps, error = parse_sequence(data.get(f"sequence_{i}") or "")
            if error:
                self.add_error(f"sequence_{i}", error)
                return None
            return {"type": kind, "sequence": steps}
        return {"type": kind}

    def orders(self) -> dict[str, Any]:
        """The orders object of a valid form, without seat and turn."""
        return dict(self.cleaned_data["orders"])

    def add_engine_error(self, message: str, action: int | None) -> None:
        """The engine's refusal next to the action it names (or the loadout)."""
        if (getattr(self, "cleaned_data", {}).get("actions_json") or "").strip():
            prefix = f"Action {action + 1}: " if action is not None and not self.loadout else ""
            self.add_error("actions_json", prefix + message)
        elif self.loadout:
            self.add_error("loadout_1", message)
        elif action is not None and 0 <= action < len(self.row_of_action):
            self.add_error(f"type_{self.row_of_action[action]}", message)
        else:
            self.add_error(None, message)

    # -- drawing -------------------------------------------------------------------

    def rows(self) -> SafeString:
        """The loadout's two choices or the three action rows, with their errors."""
        sent = self["sent_json"].value()
        hidden = (
            f'<input type="hidden" name="sent_json" id="id_sent_json" value="{escape(sent)}">'
            if sent
            else ""
        )
        # Shown instead of the fields while the board's planner runs (board.css).
        planned = f'<p class="sp-planned-note">{PLANNED_NOTE}</p>'
        return mark_safe(planned + hidden + self._rows())  # noqa: S308 - escaped here and in _rows

    def _rows(self) -> str:
        if self.loadout:
            parts = [
                f'<p class="note sp-note">{LOADOUT_NOTE}</p>',
                '<fieldset class="sp-loadout"><legend>Your loadout: two weapons</legend>',
            ]
            errors: list[str] = []
            for n in (1, 2):
                field = self[f"loadout_{n}"]
                parts.append(_field(field))
                errors.extend(str(e) for e in field.errors)
            parts.append(_errors(errors, "id_loadout_errors"))
            parts.append("</fieldset>")
            return "".join(parts)
        parts = [f'<p class="note sp-note">{PLAY_NOTE}</p>']
        for i in range(MAX_ACTIONS):
            parts.append(
                f'<fieldset class="action sp-action" data-index="{i}">'
                f"<legend>Action {i + 1}</legend>"
            )
            errors = []
            for name in ("type", "direction", "weapon", "dj", "dk", "sequence"):
                field = self[f"{name}_{i}"]
                parts.append(_field(field))
                errors.extend(str(e) for e in field.errors)
            parts.append(_errors(errors, f"id_action_{i}_errors"))
            parts.append("</fieldset>")
        return "".join(parts)


def _field(field: forms.BoundField) -> str:
    name = escape(field.html_name)
    ident = escape(field.id_for_label)
    value = field.value()
    current = "" if value is None else str(value)
    invalid = ' aria-invalid="true"' if field.errors else ""
    if isinstance(field.field, forms.ChoiceField):
        choices: list[tuple[Any, Any]] = list(field.field.choices)  # type: ignore[arg-type]
        options = "".join(
            f'<option value="{escape(v)}"{" selected" if str(v) == current else ""}>'
            f"{escape(label)}</option>"
            for v, label in choices
        )
        control = f'<select name="{name}" id="{ident}"{invalid}>{options}</select>'
    elif isinstance(field.field, forms.IntegerField):
        control = (
            f'<input type="number" name="{name}" id="{ident}" min="-{OFFSET_MAX}" '
            f'max="{OFFSET_MAX}" inputmode="numeric" size="3" value="{escape(current)}"{invalid}>'
        )
    else:
        control = (
            f'<input type="text" name="{name}" id="{ident}" maxlength="{SEQUENCE_MAX_TEXT}" '
            f'placeholder="up, left-up" autocomplete="off" value="{escape(current)}"{invalid}>'
        )
    return (
        f'<span class="field"><label for="{ident}">{escape(field.label)}:</label> {control}</span>'
    )


def _errors(errors: list[str], ident: str) -> str:
    if not errors:
        return ""
    items = "".join(f"<li>{escape(e)}</li>" for e in errors)
    return (
        f'<div class="action-error" role="alert" id="{ident}"><ul class="errorlist">'
        f"{items}</ul></div>"
    )
