"""Helium 3's plain order form (it works without JavaScript) and its action rows as
HTML, built in Python like the board.

Django renders each form widget through a template, a few milliseconds for the
dozen controls of two action rows; these rows are on every page of a player on
the move, so they are joined here instead. The field names, ids and
choices are the form's own, so the form parses what this draws, JavaScript or not.

`ActionsForm` is the form of any game whose orders are a list of actions, one per
robot, each a type with a cell or a direction (Helium 3 and its remake): a game
sets its action types, its number of actions and how an action is read.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any, ClassVar

from django import forms
from django.utils.safestring import SafeString, mark_safe

from engine.helium3 import orders as helium3_orders
from engine.helium3.board import DIRECTIONS
from games.html_text import escape

LABELS = {
    "robot": "Robot",
    "type": "Action",
    "x": "x",
    "y": "y",
    "direction": "Direction / deflect",
}
# The longest value a control's drawing is kept for (a cell's coordinate or a choice;
# longer values are sent by hand, and each would hold its size in the cache).
SHORT = 16


class ActionsForm(forms.Form):
    """Up to MAX_ACTIONS actions as plain fields, or the protocol's action list as JSON.

    Built from the seat's view (`view=`): its living robots are the choices and its
    turn the hidden field's first value. `cleaned_data["actions"]` is the action list
    and `orders()` the orders object without seat and turn.
    """

    MAX_ACTIONS: ClassVar[int] = helium3_orders.MAX_ACTIONS
    ACTION_TYPES: ClassVar[tuple[str, ...]] = tuple(helium3_orders.ACTION_TYPES)
    DIRECTION_LABEL: ClassVar[str] = "Direction / deflect"
    ROBOT_LABEL: ClassVar[str] = "Robot"

    turn = forms.IntegerField(widget=forms.HiddenInput, min_value=0, max_value=10**6)
    actions_json = forms.CharField(
        label="Or the actions as JSON",
        required=False,
        max_length=10_000,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        help_text='For example [{"robot": "1-1", "type": "move", "to": [4, 3]}]. '
        "When given, the fields above are ignored.",
    )

    def __init__(
        self,
        *args: Any,
        view: dict[str, Any] | None = None,
        robots: list[dict[str, Any]] | None = None,
        **kwargs: Any,
    ) -> None:
        if view is not None:
            kwargs.setdefault("initial", {"turn": view.get("turn")})
            if robots is None:
                seat = view.get("viewer")
                robots = [r for r in view.get("robots", []) if r["seat"] == seat and r.get("alive")]
        super().__init__(*args, **kwargs)
        robot_ids = tuple(r["id"] for r in robots or ())
        self.fields.update(_row_fields(type(self), robot_ids))

    def action_rows(self) -> list[list[forms.BoundField]]:
        names = ("robot", "type", "x", "y", "direction")
        return [[self[f"{n}_{i}"] for n in names] for i in range(self.MAX_ACTIONS)]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        raw = (data.get("actions_json") or "").strip()
        if raw:
            try:
                actions = json.loads(raw)
            except ValueError as error:
                raise forms.ValidationError(f"The actions are not valid JSON: {error}.") from error
            except RecursionError:
                raise forms.ValidationError("The actions are nested too deeply.") from None
            if not isinstance(actions, list) or not all(isinstance(a, dict) for a in actions):
                raise forms.ValidationError("The actions must be a JSON list of objects.")
            data["actions"] = actions
            return data
        actions = []
        self.row_of_action: list[int] = []
        for i in range(self.MAX_ACTIONS):
            robot, kind = data.get(f"robot_{i}"), data.get(f"type_{i}")
            if not robot and not kind:
                continue
            if not robot:
                self.add_error(
                    f"robot_{i}", f"Choose the {self.ROBOT_LABEL.lower()} for this action."
                )
                continue
            if not kind:
                self.add_error(f"type_{i}", f"Choose what the {self.ROBOT_LABEL.lower()} does.")
                continue
            actions.append(self._action(i, robot, kind, data))
            self.row_of_action.append(i)
        data["actions"] = actions
        return data

    def _action(self, i: int, robot: str, kind: str, data: dict[str, Any]) -> dict[str, Any]:
        action: dict[str, Any] = {"robot": robot, "type": kind}
        x, y, direction = data.get(f"x_{i}"), data.get(f"y_{i}"), data.get(f"direction_{i}")
        cell = [x, y] if x is not None and y is not None else None
        if (x is None) != (y is None):
            self.add_error(f"x_{i}", "Give both x and y, or neither.")
        if kind == "fire_missile":
            if cell is None:
                self.add_error(f"x_{i}", "A missile needs a target cell (x, y).")
            else:
                action["target"] = cell
        elif kind in ("fire_laser", "deflect"):
            if not direction:
                what = "A laser" if kind == "fire_laser" else "A deflect"
                self.add_error(f"direction_{i}", f"{what} needs a direction.")
            else:
                action["direction"] = direction
        elif kind == "kamikaze":
            pass
        else:
            if cell is not None:
                action["to"] = cell
            elif kind == "move":
                self.add_error(f"x_{i}", "A move needs a destination (x, y).")
            self._moving_extra(i, kind, direction, action)
        return action

    def _moving_extra(
        self, i: int, kind: str, direction: str | None, action: dict[str, Any]
    ) -> None:
        """Helium 3: a shield takes its deflect direction in the same action."""
        if kind == "shield" and direction:
            action["deflect"] = direction

    def orders(self) -> dict[str, Any]:
        """The orders object of a valid form, without seat and turn."""
        return {"actions": self.cleaned_data["actions"]}

    def add_engine_error(self, message: str, action: int | None) -> None:
        """Show the engine's refusal next to the action it names."""
        if self.cleaned_data.get("actions_json"):
            self.add_error("actions_json", message)
        elif action is not None and 0 <= action < len(getattr(self, "row_of_action", [])):
            self.add_error(f"robot_{self.row_of_action[action]}", message)
        else:
            self.add_error(None, message)

    def rows(self) -> SafeString:
        """The action rows as HTML (action_rows below)."""
        return action_rows(self)


class OrdersForm(ActionsForm):
    """Helium 3's orders: up to two actions, a shield with its deflect direction."""


@lru_cache(maxsize=256)
def _row_fields(form: type[ActionsForm], robot_ids: tuple[str, ...]) -> tuple[tuple[str, Any], ...]:
    """The action rows' fields of a form class with these robots to choose, in order.

    Made once and shared by the forms that have the same robots: Django copies a
    form's declared fields for each form, and a choice field checks its choices
    twice when made (the field's and the widget's), about a third of a first view's
    form; nothing changes these fields after they are made (the rows are drawn here,
    not by their widgets). A form that must change one of them copies it first."""
    robot_choices = [("", "—")] + [(r, r) for r in robot_ids]
    type_choices = [("", "—")] + [(t, t) for t in form.ACTION_TYPES]
    direction_choices = [("", "—")] + [(d, d) for d in DIRECTIONS]
    fields: list[tuple[str, Any]] = []
    for i in range(form.MAX_ACTIONS):
        fields += [
            (
                f"robot_{i}",
                forms.ChoiceField(label=form.ROBOT_LABEL, choices=robot_choices, required=False),
            ),
            (f"type_{i}", forms.ChoiceField(label="Action", choices=type_choices, required=False)),
            (f"x_{i}", forms.IntegerField(label="x", required=False, min_value=0, max_value=999)),
            (f"y_{i}", forms.IntegerField(label="y", required=False, min_value=0, max_value=999)),
            (
                f"direction_{i}",
                forms.ChoiceField(
                    label=form.DIRECTION_LABEL, choices=direction_choices, required=False
                ),
            ),
        ]
    return tuple(fields)


def _control(field: forms.BoundField) -> str:
    """A field's label and control, as a `<span class="field">`."""
    value = field.value()
    current = "" if value is None else str(value)
    kind = field.name.rsplit("_", 1)[0]
    label = field.label if kind in ("robot", "direction") else LABELS.get(kind, kind)
    choices = None
    if isinstance(field.field, forms.ChoiceField):
        choices = tuple(field.field.choices)  # type: ignore[arg-type]
    args = (field.html_name, field.id_for_label, str(label), current, choices)
    if len(current) > SHORT:  # a posted value no control offers: drawn, not kept
        return _control_html.__wrapped__(*args)
    return _control_html(*args)


@lru_cache(maxsize=1024)
def _control_html(
    name: str, id_: str, label: str, current: str, choices: tuple[tuple[Any, Any], ...] | None
) -> str:
    """The same controls are drawn on page after page (the fresh form's, and those of
    the orders sent): each is escaped and joined once."""
    head = f'<span class="field"><label for="{escape(id_)}">{escape(label)}:</label> '
    if choices is not None:
        options = "".join(
            f'<option value="{escape(v)}"{" selected" if str(v) == current else ""}>{escape(text)}</option>'
            for v, text in choices
        )
        return f'{head}<select name="{escape(name)}" id="{escape(id_)}">{options}</select></span>'
    return (
        f'{head}<input type="number" name="{escape(name)}" id="{escape(id_)}" min="0" max="19" '
        f'inputmode="numeric" value="{escape(current)}"></span>'
    )


def action_rows(form: Any) -> SafeString:
    """Each action as a fieldset: its controls, then the errors that belong to it."""
    parts = []
    for i, row in enumerate(form.action_rows()):
        parts.append(f'<fieldset class="action" data-index="{i}"><legend>Action {i + 1}</legend>')
        errors: list[str] = []
        for field in row:
            parts.append(_control(field))
            errors.extend(str(e) for e in field.errors)
        parts.append('<p class="summary" aria-live="polite"></p>')
        if errors:
            items = "".join(f"<li>{escape(e)}</li>" for e in errors)
            parts.append(
                f'<div class="action-error" role="alert"><ul class="errorlist">{items}</ul></div>'
            )
        parts.append(
            '<button type="button" class="undo" hidden>Undo this action</button></fieldset>'
        )
    return mark_safe("".join(parts))  # noqa: S308 - every interpolated value is escaped
