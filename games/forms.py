"""Forms parse input; the engine decides what is legal."""

from __future__ import annotations

import json
from typing import Any

from django import forms

import engine
from engine.helium3 import orders as helium3_orders
from engine.helium3.board import DIRECTIONS as ENGINE_DIRECTIONS
from games.models import TITLE_MAX, NotificationKind

DEADLINE_PRESETS = [
    (60, "1 minute"),
    (5 * 60, "5 minutes"),
    (15 * 60, "15 minutes"),
    (3600, "1 hour"),
    (6 * 3600, "6 hours"),
    (12 * 3600, "12 hours"),
    (24 * 3600, "1 day"),
    (2 * 24 * 3600, "2 days"),
    (3 * 24 * 3600, "3 days"),
]
DIRECTIONS = list(ENGINE_DIRECTIONS)
ACTION_TYPES = list(helium3_orders.ACTION_TYPES)
MAX_ACTIONS = 2


def _bot_choices(open_label: str) -> list[tuple[str, str]]:
    return [("", open_label)] + [(name, f"Bot: {name}") for name in engine.bot_names()]


class MatchCreateForm(forms.Form):
    title = forms.CharField(
        label="Title",
        required=False,
        max_length=TITLE_MAX,
        help_text="Optional: a name for the match, shown in the lobby and in emails.",
    )
    seat_count = forms.TypedChoiceField(
        label="Seats", choices=[(2, "2"), (3, "3"), (4, "4")], coerce=int, initial=4
    )
    turn_seconds = forms.TypedChoiceField(
        label="Time per turn", choices=DEADLINE_PRESETS, coerce=int, initial=24 * 3600
    )
    length_ms = forms.IntegerField(
        label="Battle length (ms)",
        initial=600_000,
        min_value=1_000,
        max_value=3_600_000,
        help_text="Battle time, the sum of the resolved turns' animation lengths.",
    )
    public = forms.BooleanField(
        label="Public",
        required=False,
        initial=True,
        help_text="Anyone may watch a public match and find it in the archive. A private "
        "match is seen by its players only; others join it by its link.",
    )
    seat_1 = forms.ChoiceField(label="First seat", required=False)
    seat_2 = forms.ChoiceField(label="Second seat", required=False)
    seat_3 = forms.ChoiceField(label="Third seat", required=False)
    seat_4 = forms.ChoiceField(label="Fourth seat", required=False)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["seat_1"].choices = _bot_choices("You")  # type: ignore[attr-defined]
        choices = _bot_choices("Open for a player")
        for name in ("seat_2", "seat_3", "seat_4"):
            self.fields[name].choices = choices  # type: ignore[attr-defined]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        count = data.get("seat_count")
        if data.get("seat_1") and count:
            missing = [i for i in range(2, count + 1) if not data.get(f"seat_{i}")]
            if missing:
                raise forms.ValidationError(
                    "To watch a match of bots, give every seat a bot; "
                    "otherwise keep the first seat for yourself."
                )
        return data

    def bots(self) -> list[str]:
        """Bots for seats 2.. (the creator sits first), or for every seat (a bot match)."""
        count = self.cleaned_data["seat_count"]
        first = 1 if self.cleaned_data.get("seat_1") else 2
        return [self.cleaned_data.get(f"seat_{i}") or "" for i in range(first, count + 1)]


class OrdersForm(forms.Form):
    """Up to two actions as plain fields, or the protocol's action list as JSON."""

    turn = forms.IntegerField(widget=forms.HiddenInput, min_value=0, max_value=10**6)
    actions_json = forms.CharField(
        label="Or the actions as JSON",
        required=False,
        max_length=10_000,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        help_text='For example [{"robot": "1-1", "type": "move", "to": [4, 3]}]. '
        "When given, the fields above are ignored.",
    )

    def __init__(self, *args: Any, robots: list[dict[str, Any]] = (), **kwargs: Any) -> None:  # type: ignore[assignment]
        super().__init__(*args, **kwargs)
        robot_choices = [("", "—")] + [(r["id"], r["id"]) for r in robots]
        for i in range(MAX_ACTIONS):
            self.fields[f"robot_{i}"] = forms.ChoiceField(
                label="Robot", choices=robot_choices, required=False
            )
            self.fields[f"type_{i}"] = forms.ChoiceField(
                label="Action", choices=[("", "—")] + [(t, t) for t in ACTION_TYPES], required=False
            )
            self.fields[f"x_{i}"] = forms.IntegerField(
                label="x", required=False, min_value=0, max_value=999
            )
            self.fields[f"y_{i}"] = forms.IntegerField(
                label="y", required=False, min_value=0, max_value=999
            )
            self.fields[f"direction_{i}"] = forms.ChoiceField(
                label="Direction / deflect",
                choices=[("", "—")] + [(d, d) for d in DIRECTIONS],
                required=False,
            )

    def action_rows(self) -> list[list[forms.BoundField]]:
        names = ("robot", "type", "x", "y", "direction")
        return [[self[f"{n}_{i}"] for n in names] for i in range(MAX_ACTIONS)]

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
        for i in range(MAX_ACTIONS):
            robot, kind = data.get(f"robot_{i}"), data.get(f"type_{i}")
            if not robot and not kind:
                continue
            if not robot:
                self.add_error(f"robot_{i}", "Choose the robot for this action.")
                continue
            if not kind:
                self.add_error(f"type_{i}", "Choose what the robot does.")
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
        elif kind == "fire_laser":
            if not direction:
                self.add_error(f"direction_{i}", "A laser needs a direction.")
            else:
                action["direction"] = direction
        elif kind == "kamikaze":
            pass
        else:
            if cell is not None:
                action["to"] = cell
            elif kind == "move":
                self.add_error(f"x_{i}", "A move needs a destination (x, y).")
            if kind == "shield" and direction:
                action["deflect"] = direction
        return action

    def add_engine_error(self, message: str, action: int | None) -> None:
        """Show the engine's refusal next to the action it names."""
        if self.cleaned_data.get("actions_json"):
            self.add_error("actions_json", message)
        elif action is not None and 0 <= action < len(getattr(self, "row_of_action", [])):
            self.add_error(f"robot_{self.row_of_action[action]}", message)
        else:
            self.add_error(None, message)


class NotificationSettingsForm(forms.Form):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for kind, label in NotificationKind.choices:
            self.fields[kind] = forms.BooleanField(label=f"Email me: {label}", required=False)


class ApiTokenForm(forms.Form):
    name = forms.CharField(
        label="Name",
        max_length=64,
        help_text="What the token is for, such as the bot that uses it.",
    )


class ArchiveFilterForm(forms.Form):
    """The archive's filters; every field is optional and a bad value is ignored."""

    BOTS_CHOICES = [
        ("", "With or without bots"),
        ("yes", "With a built-in bot"),
        ("no", "People only"),
    ]

    player = forms.CharField(label="Player", required=False, max_length=150)
    since = forms.DateField(
        label="Finished from", required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    until = forms.DateField(
        label="to", required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    bots = forms.ChoiceField(label="Bots", required=False, choices=BOTS_CHOICES)
