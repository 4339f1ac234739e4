"""The arena's plain order form: it works without JavaScript.

In the build phase it asks for the robot's parts (a checkbox each, with the
capacity each takes); the form adds them up and says beside the field when they
take more than the capacity or hold two of a kind. In play it asks for one step
at a time: scan, move (a path such as "up up left"), shoot (a target x y) or end
the turn; each step is resolved in the request, so the page after posting shows
its result (a scan's cells drawn at once). The hidden `step_no` is the step the
page showed, so a page sent twice or from an old tab is recognised.

The textarea `actions_json` holds the orders object without seat, turn and step_no
(`{"build": [...]}` or `{"step": {...}}`); the board script writes it and submits
the form (id "orders-form"), and when it is not empty it wins. The engine judges
what the fields cannot (a wall in the path, a target out of range, a cannon still
reloading) and its refusal is shown beside the field (`add_engine_error`).
"""

from __future__ import annotations

import json
import re
from typing import Any

from django import forms
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from engine.arena.orders import CAPACITY, STEP_TYPES, WEAPON_RANGE
from engine.arena.state import DIRECTIONS, PARTS

MAX_ORDERS_JSON = 10_000
PATH_MAX_TEXT = 200
COORD_MAX = 99
_SEPARATORS = re.compile(r"[\s,;]+")
STEP_LABELS = {
    "scan": "Scan around the robot",
    "move": "Move along a path",
    "shoot": "Shoot at a cell",
    "end": "End the turn",
}


def parse_path(text: str) -> tuple[list[str], str | None]:
    """A path from text ("up up left"): the directions, or an error."""
    steps = [s.lower() for s in _SEPARATORS.split(text.strip()) if s]
    bad = [s for s in steps if s not in DIRECTIONS]
    if bad:
        known = ", ".join(DIRECTIONS)
        return [], f"“{bad[0][:20]}” is not a direction; the directions are {known}."
    if not steps:
        return [], "A move needs a path: directions such as “up up left”."
    return steps, None


def build_problem(parts: list[str]) -> str | None:
    """Why a set of parts cannot be built (two of a kind, over the capacity), or None."""
    kinds: dict[str, str] = {}
    for part in parts:
        kind = PARTS[part][0]
        if kind in kinds:
            return f"Two parts of one kind: {kinds[kind]} and {part}; choose one {kind}."
        kinds[kind] = part
    used = sum(PARTS[p][1] for p in parts)
    if used > CAPACITY:
        return f"These parts take {used} of the capacity; at most {CAPACITY}."
    return None


def build_phase(view: dict[str, Any] | None) -> bool:
    return view is not None and view.get("phase") == "build"


class OrdersForm(forms.Form):
    """A build or one step as plain fields, or the orders object as JSON; `orders()`
    gives {"build": [...]} or {"step": {...}, "step_no": n} without seat and turn."""

    turn = forms.IntegerField(widget=forms.HiddenInput, min_value=0, max_value=10**6)
    step_no = forms.IntegerField(
        widget=forms.HiddenInput, min_value=0, max_value=10**6, required=False
    )
    # Named as the other games' JSON field, so the match page's JSON box is this form's.
    actions_json = forms.CharField(
        label="Or the orders as JSON",
        required=False,
        max_length=MAX_ORDERS_JSON,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
    )

    def __init__(self, *args: Any, view: dict[str, Any] | None = None, **kwargs: Any) -> None:
        self.view = view
        self.build = build_phase(view)
        if view is not None:
            initial = {"turn": view.get("turn")}
            if not self.build:
                initial["step_no"] = view.get("step")
            kwargs["initial"] = {**initial, **(kwargs.get("initial") or {})}
        super().__init__(*args, **kwargs)
        if self.build:
            self.fields["actions_json"].help_text = (
                'For example {"build": ["engine2", "radar2", "gun"]}. When given, the parts '
                "above are ignored."
            )
            self.fields["parts"] = forms.MultipleChoiceField(
                label="Parts",
                required=False,
                choices=[(name, name) for name in PARTS],
            )
            return
        self.fields["actions_json"].help_text = (
            'For example {"step": {"type": "move", "path": ["up", "left"]}}. When given, the '
            "step above is ignored."
        )
        self.fields["step"] = forms.ChoiceField(
            label="Step",
            required=False,
            choices=[(t, STEP_LABELS.get(t, t)) for t in STEP_TYPES],
        )
        self.fields["path"] = forms.CharField(
            label="Path", required=False, max_length=PATH_MAX_TEXT
        )
        for axis in ("x", "y"):
            self.fields[axis] = forms.IntegerField(
                label=axis,
                required=False,
                min_value=0,
                max_value=COORD_MAX,
                error_messages={
                    "invalid": f"{axis} is a whole number.",
                    "min_value": f"{axis} is from 0 to {COORD_MAX}.",
                    "max_value": f"{axis} is from 0 to {COORD_MAX}.",
                },
            )

    # -- reading -------------------------------------------------------------------

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        raw = (data.get("actions_json") or "").strip()
        if raw:
            self._clean_json(raw, data)
        elif self.build:
            self._clean_build(data)
        else:
            self._clean_step(data)
        return data

    def _clean_json(self, raw: str, data: dict[str, Any]) -> None:
        key = "build" if self.build else "step"
        example = '{"build": ["engine2", "gun"]}' if self.build else '{"step": {"type": "scan"}}'
        try:
            given = json.loads(raw)
        except ValueError as error:
            self.add_error("actions_json", f"The orders are not valid JSON: {error}.")
            return
        except RecursionError:
            self.add_error("actions_json", "The orders are nested too deeply.")
            return
        wanted = list if self.build else dict
        if not isinstance(given, dict) or not isinstance(given.get(key), wanted):
            self.add_error("actions_json", f"Give an object such as {example}.")
            return
        # The engine judges the rest (parts, paths, targets) and says what is wrong.
        data["orders"] = {key: given[key]}

    def _clean_build(self, data: dict[str, Any]) -> None:
        parts = list(data.get("parts") or [])
        if "parts" in self.errors:
            return
        if not parts:
            self.add_error("parts", "Choose the parts of your robot.")
            return
        problem = build_problem(parts)
        if problem:
            self.add_error("parts", problem)
            return
        data["orders"] = {"build": parts}

    def _clean_step(self, data: dict[str, Any]) -> None:
        kind = data.get("step")
        if "step" in self.errors:
            return
        if not kind:
            self.add_error("step", "Choose a step: scan, move, shoot or end the turn.")
            return
        step: dict[str, Any] = {"type": kind}
        if kind == "move":
            path, error = parse_path(data.get("path") or "")
            if error:
                self.add_error("path", error)
                return
            step["path"] = path
        elif kind == "shoot":
            if "x" in self.errors or "y" in self.errors:
                return
            x, y = data.get("x"), data.get("y")
            if x is None or y is None:
                self.add_error("x", "A shot needs its target: x and y.")
                return
            step["target"] = [x, y]
        data["orders"] = {"step": step}

    def orders(self) -> dict[str, Any]:
        """The orders object of a valid form, without seat and turn (with the step the
        page showed, so a repeated post is known for one)."""
        orders = dict(self.cleaned_data["orders"])
        step_no = self.cleaned_data.get("step_no")
        if not self.build and step_no is not None:
            orders["step_no"] = step_no
        return orders

    def add_engine_error(self, message: str, action: int | None) -> None:
        """The engine's refusal beside the field it is about."""
        if (getattr(self, "cleaned_data", {}).get("actions_json") or "").strip():
            self.add_error("actions_json", message)
        elif self.build:
            self.add_error("parts", message)
        else:
            kind = getattr(self, "cleaned_data", {}).get("step")
            field = {"move": "path", "shoot": "x"}.get(str(kind), "step")
            self.add_error(field, message)

    # -- drawing -------------------------------------------------------------------

    def rows(self) -> SafeString:
        """The build's parts or the step's choices, each with its errors beside it."""
        step_no = self["step_no"].value()
        hidden = (
            f'<input type="hidden" name="step_no" id="id_step_no" value="{escape(step_no)}">'
            if step_no not in (None, "") and not self.build
            else ""
        )
        body = self._build_rows() if self.build else self._step_rows()
        return mark_safe(hidden + body)  # noqa: S308 - escaped in the rows

    def _build_rows(self) -> str:
        field = self["parts"]
        chosen = {str(v) for v in (field.value() or [])}
        invalid = ' aria-invalid="true"' if field.errors else ""
        boxes = []
        for n, name in enumerate(PARTS):
            kind, cost, strength = PARTS[name]
            ident = f"id_parts_{n}"
            checked = " checked" if name in chosen else ""
            boxes.append(
                f'<li><label for="{ident}"><input type="checkbox" name="parts" id="{ident}" '
                f'value="{escape(name)}" data-kind="{escape(kind)}" data-capacity="{cost}"'
                f"{checked}{invalid}> {escape(name)} ({escape(_effect(name, kind, strength))}; "
                f"takes {cost})</label></li>"
            )
        used = sum(PARTS[p][1] for p in chosen if p in PARTS)
        return (
            '<fieldset class="ar-build"><legend>Your robot: at most one part of each kind, '
            f"within a capacity of {CAPACITY}</legend>"
            f'<ul class="ar-parts">{"".join(boxes)}</ul>'
            f'<p class="ar-capacity" id="id_capacity">Capacity used: <output>{used}</output> '
            f"of {CAPACITY}.</p>"
            f"{_errors([str(e) for e in field.errors], 'id_parts_errors')}</fieldset>"
        )

    def _step_rows(self) -> str:
        field = self["step"]
        current = str(field.value() or "")
        radios = []
        for n, (value, label) in enumerate(field.field.choices):  # type: ignore[attr-defined]
            ident = f"id_step_{n}"
            checked = " checked" if str(value) == current else ""
            radios.append(
                f'<li><label for="{ident}"><input type="radio" name="step" id="{ident}" '
                f'value="{escape(value)}"{checked}> {escape(label)}</label></li>'
            )
        path, x, y = self["path"], self["x"], self["y"]
        errors = [str(e) for name in ("step", "path", "x", "y") for e in self[name].errors]
        return (
            '<fieldset class="ar-step"><legend>Your next step</legend>'
            f'<ul class="ar-steps">{"".join(radios)}</ul>'
            f'<span class="field"><label for="id_path">Path:</label> '
            f'<input type="text" name="path" id="id_path" maxlength="{PATH_MAX_TEXT}" '
            f'placeholder="up up left" autocomplete="off" value="{escape(path.value() or "")}"'
            f"{_invalid(path)}></span> "
            f'<span class="field"><label for="id_x">Target x:</label> '
            f'<input type="number" name="x" id="id_x" min="0" max="{COORD_MAX}" size="3" '
            f'inputmode="numeric" value="{escape(_text(x.value()))}"{_invalid(x)}></span> '
            f'<span class="field"><label for="id_y">y:</label> '
            f'<input type="number" name="y" id="id_y" min="0" max="{COORD_MAX}" size="3" '
            f'inputmode="numeric" value="{escape(_text(y.value()))}"{_invalid(y)}></span>'
            f"{_errors(errors, 'id_step_errors')}</fieldset>"
        )


def _effect(name: str, kind: str, strength: int) -> str:
    if kind == "engine":
        return f"{strength} steps a turn"
    if kind == "radar":
        return f"scans within {strength}"
    if kind == "shield":
        return f"+{strength} health"
    return f"hits for {strength} within {WEAPON_RANGE.get(name, 0)}"


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def _invalid(field: forms.BoundField) -> str:
    return ' aria-invalid="true"' if field.errors else ""


def _errors(errors: list[str], ident: str) -> str:
    if not errors:
        return ""
    items = "".join(f"<li>{escape(e)}</li>" for e in errors)
    return (
        f'<div class="action-error" role="alert" id="{ident}"><ul class="errorlist">'
        f"{items}</ul></div>"
    )
