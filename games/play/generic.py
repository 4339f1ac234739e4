"""The presentation of a ruleset that has none of its own (the test rulesets, a game
being written): its view as a readable list, its events as plain lines, its orders
as one JSON field. Everything still comes from the viewer's view and copy of the
events, so it shows no more than a game's own presentation would.
"""

from __future__ import annotations

import json
from typing import Any

from django import forms
from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe

import engine
from games.presentation_shape import Event, Presentation

MAX_ORDERS_JSON = 10_000


def _value(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(", ", ": "))


def board(view: dict[str, Any], *, caption: str = "") -> SafeString:
    """The view as a definition list: each key and its value as JSON."""
    items = "".join(
        f"<dt>{escape(key)}</dt><dd><code>{escape(_value(value))}</code></dd>"
        for key, value in sorted(view.items())
    )
    title = f"<p class='board-caption'>{escape(caption)}</p>" if caption else ""
    return mark_safe(f'<div class="board-text">{title}<dl>{items}</dl></div>')  # noqa: S308


def sentences(events: list[Event]) -> list[str]:
    """Each event as its type and its fields in name order: the same sentence whichever
    order a database hands a JSON object's keys back in (PostgreSQL's jsonb sorts them
    its own way)."""
    lines = []
    for event in events:
        kind = str(event.get("type", "event")).replace("_", " ").capitalize()
        fields = ", ".join(
            f"{key} {_value(value)}"
            for key, value in sorted(event.items())
            if key not in ("type", "t_ms", "duration_ms")
        )
        lines.append(f"{kind}: {fields}." if fields else f"{kind}.")
    return lines


class JsonOrdersForm(forms.Form):
    """The orders object (without seat and turn) as JSON, for any ruleset."""

    turn = forms.IntegerField(widget=forms.HiddenInput, min_value=0, max_value=10**6)
    # Named as Helium 3's JSON field, so the match page's JSON box is this form's.
    actions_json = forms.CharField(
        label="Your orders as JSON",
        required=False,
        max_length=MAX_ORDERS_JSON,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        help_text="The orders object without seat and turn, as the bot API takes it. "
        "Empty: the game's default orders.",
    )

    def __init__(self, *args: Any, view: dict[str, Any] | None = None, **kwargs: Any) -> None:
        if view is not None:
            kwargs.setdefault("initial", {"turn": view.get("turn")})
        super().__init__(*args, **kwargs)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        raw = (data.get("actions_json") or "").strip()
        if not raw:
            data["orders"] = {}
            return data
        try:
            orders = json.loads(raw)
        except ValueError as error:
            raise forms.ValidationError(f"The orders are not valid JSON: {error}.") from error
        except RecursionError:
            raise forms.ValidationError("The orders are nested too deeply.") from None
        if not isinstance(orders, dict):
            raise forms.ValidationError("The orders must be a JSON object.")
        data["orders"] = {k: v for k, v in orders.items() if k not in ("seat", "turn")}
        return data

    def orders(self) -> dict[str, Any]:
        return dict(self.cleaned_data["orders"])

    def add_engine_error(self, message: str, action: int | None) -> None:
        self.add_error("actions_json", message)

    def rows(self) -> SafeString:
        """No rows: the page's JSON box (this form's `actions_json`) is the whole form."""
        return mark_safe("")


def _rules_context(name: str) -> dict[str, Any]:
    ruleset = engine.ruleset(name)
    return {"ruleset": ruleset.describe(), "shape": ruleset.shape.describe(), "name": name}


def _picture(title: str) -> SafeString:
    initials = "".join(word[0] for word in title.split()[:3]).upper() or "?"
    return format_html(
        '<svg class="game-picture" viewBox="0 0 96 64" role="img" aria-label="{}">'
        '<rect width="96" height="64" rx="6" fill="#2b2f36"/>'
        '<text x="48" y="40" font-size="22" font-family="system-ui,sans-serif" '
        'text-anchor="middle" fill="#e8ebef">{}</text></svg>',
        title,
        initials,
    )


def _orders_initial(orders: dict[str, Any]) -> dict[str, Any]:
    """The JSON box showing orders already sent, without seat, turn and step."""
    own = {k: v for k, v in orders.items() if k not in ("seat", "turn", "step_no")}
    return {"actions_json": json.dumps(own)}


def generic(name: str) -> Presentation:
    """A presentation for ruleset `name` built from what the engine declares."""
    try:
        title = engine.ruleset(name).title or name
    except engine.EngineError:
        title = name
    return Presentation(
        name=name,
        orders_initial=_orders_initial,
        title=title,
        blurb=f"{title}, played through its orders as JSON. "
        "Its board is shown as the list of what you know.",
        board=board,
        sentences=sentences,
        orders_form=JsonOrdersForm,
        orders_note="Give your orders as the JSON object the game takes (without seat and turn).",
        rules_template="play/generic/rules.html",
        rules_context=lambda: _rules_context(name),
        picture=lambda: _picture(title),
    )
