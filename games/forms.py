"""Forms parse input; the engine decides what is legal."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django import forms

import engine
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


# Battle lengths a person picks from (the field takes any length in between).
LENGTH_PRESETS = [
    (1, "1 min", "a skirmish, about 2 turns each for four players"),
    (5, "5 min", "a short battle, about 10 turns each"),
    (10, "10 min", "the standard battle, about 20 turns each"),
    (30, "30 min", "a long campaign, about 60 turns each"),
]
LENGTH_MIN_MS = 1_000
LENGTH_MAX_MS = 3_600_000
MS_PER_MINUTE = 60_000


def bot_label(name: str) -> str:
    """A bot as a seat choice: its name and, when the engine has them, a few words
    on its strength and play ("Bot: fighter — strongest; mines, shoots and shields")."""
    description = engine.bot_description(name)
    return f"Bot: {name} — {description}" if description else f"Bot: {name}"


def _bot_choices(open_label: str) -> list[tuple[str, str]]:
    return [("", open_label)] + [(name, bot_label(name)) for name in engine.bot_names()]


class MatchCreateForm(forms.Form):
    title = forms.CharField(
        label="Title",
        required=False,
        max_length=TITLE_MAX,
        help_text="Optional: a name for the match, shown in the lobby and in emails.",
    )
    seat_count = forms.TypedChoiceField(
        label="Seats",
        choices=[(2, "2 players"), (3, "3 players"), (4, "4 players")],
        coerce=int,
        initial=4,
        help_text="How many play, you included. Seats past this number are not used.",
    )
    turn_seconds = forms.TypedChoiceField(
        label="Time per turn",
        choices=DEADLINE_PRESETS,
        coerce=int,
        initial=24 * 3600,
        help_text="How long each player has to send orders. A player who misses it "
        "passes; after several misses a bot stands in.",
    )
    length_minutes = forms.DecimalField(
        label="Battle length (minutes)",
        initial=10,
        widget=forms.NumberInput(
            attrs={"step": "any", "min": "0.02", "max": "60", "list": "length-presets"}
        ),
        help_text="The battle clock: each turn adds the length of its animation "
        "(a few seconds). The richest player when it runs out wins.",
    )
    public = forms.BooleanField(
        label="Public",
        required=False,
        initial=True,
        help_text="Anyone may watch a public match and find it in the archive. A private "
        "match is seen by its players only; others join it by its link.",
    )
    seat_1 = forms.ChoiceField(
        label="First seat",
        required=False,
        help_text="Yours, or give it to a bot to watch a match of bots.",
    )
    seat_2 = forms.ChoiceField(label="Second seat", required=False)
    seat_3 = forms.ChoiceField(label="Third seat", required=False)
    seat_4 = forms.ChoiceField(
        label="Fourth seat",
        required=False,
        help_text="An open seat waits for a person to join; the match starts when "
        "every seat is taken.",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["seat_1"].choices = _bot_choices("You")  # type: ignore[attr-defined]
        choices = _bot_choices("Open for a player")
        for name in ("seat_2", "seat_3", "seat_4"):
            self.fields[name].choices = choices  # type: ignore[attr-defined]

    def clean_length_minutes(self) -> Decimal:
        minutes: Decimal = self.cleaned_data["length_minutes"]
        ms = minutes * MS_PER_MINUTE
        if ms < LENGTH_MIN_MS:
            raise forms.ValidationError("A battle lasts at least one second (0.02 minutes).")
        if ms > LENGTH_MAX_MS:
            raise forms.ValidationError("A battle lasts at most 60 minutes.")
        return minutes

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("length_minutes") is not None:
            data["length_ms"] = int(data["length_minutes"] * MS_PER_MINUTE)
        count = data.get("seat_count")
        if data.get("seat_1") and count:
            missing = [i for i in range(2, count + 1) if not data.get(f"seat_{i}")]
            for i in missing:
                self.add_error(
                    f"seat_{i}",
                    "Give this seat a bot too (a match of bots has one in every "
                    "seat), or keep the first seat for yourself.",
                )
        return data

    def length_presets(self) -> list[tuple[int, str, str]]:
        return LENGTH_PRESETS

    def bots(self) -> list[str]:
        """Bots for seats 2.. (the creator sits first), or for every seat (a bot match)."""
        count = self.cleaned_data["seat_count"]
        first = 1 if self.cleaned_data.get("seat_1") else 2
        return [self.cleaned_data.get(f"seat_{i}") or "" for i in range(first, count + 1)]


# When each email goes out, for the settings page (the rules are in games/services/notifications.py).
NOTIFICATION_HELP: dict[str, str] = {
    NotificationKind.YOUR_TURN: "Your move has waited a while and you have not opened "
    "the match since it began.",
    NotificationKind.DEADLINE_WARNING: "Your turn's deadline is near and your orders are not in.",
    NotificationKind.SEAT_TO_BOT: "You missed turns in a row and a bot now plays your seat.",
    NotificationKind.MATCH_STARTED: "Every seat of a match you joined is taken: it begins.",
    NotificationKind.MATCH_OVER: "A match you play in has ended, with the result.",
}


class NotificationSettingsForm(forms.Form):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for kind, label in NotificationKind.choices:
            self.fields[kind] = forms.BooleanField(
                label=label, required=False, help_text=NOTIFICATION_HELP.get(kind, "")
            )


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
