"""The order form's action rows as HTML, built in Python like the board.

Django renders each form widget through a template, a few milliseconds for the
dozen controls of two action rows; these rows are on every page of a player on
the move, so they are joined here instead (style.md 12). The field names, ids and
choices are OrdersForm's own, so the form parses what this draws, JavaScript or not.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

LABELS = {
    "robot": "Robot",
    "type": "Action",
    "x": "x",
    "y": "y",
    "direction": "Direction / deflect",
}


def _control(field: forms.BoundField) -> str:
    name = escape(field.html_name)
    value = field.value()
    current = "" if value is None else str(value)
    if isinstance(field.field, forms.ChoiceField):
        choices: list[tuple[Any, Any]] = list(field.field.choices)  # type: ignore[arg-type]
        options = "".join(
            f'<option value="{escape(v)}"{" selected" if str(v) == current else ""}>{escape(label)}</option>'
            for v, label in choices
        )
        return f'<select name="{name}" id="{escape(field.id_for_label)}">{options}</select>'
    return (
        f'<input type="number" name="{name}" id="{escape(field.id_for_label)}" min="0" max="19" '
        f'inputmode="numeric" value="{escape(current)}">'
    )


def action_rows(form: Any) -> SafeString:
    """Each action as a fieldset: its controls, then the errors that belong to it."""
    parts = []
    for i, row in enumerate(form.action_rows()):
        parts.append(f'<fieldset class="action" data-index="{i}"><legend>Action {i + 1}</legend>')
        errors: list[str] = []
        for field in row:
            kind = field.name.rsplit("_", 1)[0]
            parts.append(
                f'<span class="field"><label for="{escape(field.id_for_label)}">'
                f"{LABELS.get(kind, kind)}:</label> {_control(field)}</span>"
            )
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
