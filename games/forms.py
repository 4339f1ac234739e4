"""Forms parse input; the engine decides what is legal."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django import forms
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

import engine
from games import catalog
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


def bot_label(name: str, ruleset: str = engine.rulesets.DEFAULT) -> str:
    """A bot as a seat choice: its name and, when the engine has them, a few words
    on its strength and play ("Bot: fighter — strongest; mines, shoots and shields")."""
    description = engine.bot_description(name, ruleset)
    return f"Bot: {name} — {description}" if description else f"Bot: {name}"


def _bot_choices(open_label: str, ruleset: str) -> list[tuple[str, str]]:
    bots = [(name, bot_label(name, ruleset)) for name in engine.bot_names(ruleset)]
    return [("", open_label), *bots]


class SeatChoiceField(forms.ChoiceField):
    """A seat's choice of a bot of this game; another game's bot (or no bot at all) is
    refused with the game it belongs to and this game's own bots."""

    def __init__(self, *, ruleset: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.ruleset = ruleset

    def validate(self, value: Any) -> None:
        if value and not self.valid_value(value):
            from games.services.matches import bot_unknown_message

            raise forms.ValidationError(
                bot_unknown_message(str(value), self.ruleset), code="invalid_choice"
            )
        super().validate(value)


# The option the battle clock is: asked in minutes, with presets, when a game has it.
LENGTH_OPTION = "length_ms"
SEAT_NAMES = ("First", "Second", "Third", "Fourth", "Fifth", "Sixth", "Seventh", "Eighth")


def option_field_name(option: engine.Option) -> str:
    """The create form's field for a ruleset's option (its own name, but the battle
    clock, which is asked in minutes)."""
    return "length_minutes" if option.name == LENGTH_OPTION else f"option_{option.name}"


def _minutes(ms: int) -> int | Decimal:
    """Milliseconds as minutes, whole when they are ("10", not "1E+1")."""
    return ms // MS_PER_MINUTE if ms % MS_PER_MINUTE == 0 else Decimal(ms) / MS_PER_MINUTE


# A map's size, asked cell by cell, is offered at round sizes too (the browser lists
# them under the field): every SIZE_STEP cells within the option's bounds.
SIZE_OPTIONS = ("width", "height")
SIZE_STEP = 10


class PresetNumberInput(forms.NumberInput):
    """A number field with a list of suggested values (an HTML datalist)."""

    def __init__(self, presets: list[int], attrs: dict[str, Any] | None = None) -> None:
        super().__init__(attrs)
        self.presets = presets

    def render(
        self, name: str, value: Any, attrs: dict[str, Any] | None = None, renderer: Any = None
    ) -> SafeString:
        listed = f"{name}-presets"
        html = super().render(name, value, {**(attrs or {}), "list": listed}, renderer)
        options = format_html_join("", '<option value="{}">', ((p,) for p in self.presets))
        return format_html('{}<datalist id="{}">{}</datalist>', html, listed, options)


def size_presets(option: engine.Option) -> list[int]:
    """Round sizes within a size option's bounds (10, 20, ... 50 for 10..50)."""
    if option.name not in SIZE_OPTIONS or option.minimum is None or option.maximum is None:
        return []
    first = -(-option.minimum // SIZE_STEP) * SIZE_STEP
    return list(range(first, option.maximum + 1, SIZE_STEP))


def _option_field(option: engine.Option) -> forms.Field:
    """A form field from an engine Option: its kind, range, default and help."""
    if option.name == LENGTH_OPTION:
        return forms.DecimalField(
            label="Battle length (minutes)",
            initial=_minutes(int(option.default)),
            widget=forms.NumberInput(
                attrs={"step": "any", "min": "0.02", "max": "60", "list": "length-presets"}
            ),
            help_text="The battle clock: each turn adds the length of its animation "
            "(a few seconds). The richest player when it runs out wins.",
        )
    label = option.name.replace("_", " ").capitalize()
    help_text = option.help[:1].upper() + option.help[1:] if option.help else ""
    if option.kind == "int":
        low, high = option.minimum, option.maximum
        if low is not None and high is not None:
            bounds = f"from {low} to {high}"
        elif low is not None:
            bounds = f"at least {low}"
        elif high is not None:
            bounds = f"at most {high}"
        else:
            bounds = "a whole number"
        message = f"{label}: {bounds}."
        presets = size_presets(option)
        return forms.IntegerField(
            label=label,
            initial=option.default,
            min_value=low,
            max_value=high,
            widget=PresetNumberInput(presets) if presets else None,
            help_text=f"{help_text}: {bounds}." if help_text else f"{bounds.capitalize()}.",
            error_messages={"min_value": message, "max_value": message, "invalid": message},
        )
    if option.choices:
        return forms.ChoiceField(
            label=label,
            initial=option.default,
            choices=[(c, c) for c in option.choices],
            help_text=help_text,
        )
    return forms.CharField(label=label, initial=option.default, max_length=100, help_text=help_text)


RATED_CHOICES = [
    ("", "Rated, unless a seat is a built-in bot's"),
    ("rated", "Rated"),
    ("casual", "Casual"),
]


class MatchCreateForm(forms.Form):
    """A new match of one game: the fields every game has, then that game's own
    options (from its engine Options), then a seat choice per seat it may have.

    The game is chosen before the form is built (`game=`, from ?game= or the posted
    `game`), so only its options are on the form; a posted name that is not a game
    here is the `game` field's error.
    """

    game = forms.CharField(required=False, widget=forms.HiddenInput, max_length=64)
    title = forms.CharField(
        label="Title",
        required=False,
        max_length=TITLE_MAX,
        help_text="Optional: a name for the match, shown in the lobby and in emails.",
    )
    seat_count = forms.TypedChoiceField(
        label="Seats",
        coerce=int,
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
    public = forms.BooleanField(
        label="Public",
        required=False,
        initial=True,
        help_text="Anyone may watch a public match and find it in the archive. A private "
        "match is seen by its players only; others join it by its link.",
    )
    rated = forms.ChoiceField(
        label="Rating",
        required=False,
        choices=RATED_CHOICES,
        help_text="A rated match changes its players' ratings when it ends; a casual one "
        "does not. A guest's matches are casual.",
    )

    def __init__(self, *args: Any, game: str | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        offered = catalog.names()
        self.ruleset = game if game in offered else catalog.default()
        self.ruleset_title = catalog.title(self.ruleset)
        self.fields["game"].initial = self.ruleset
        rules = engine.ruleset(self.ruleset)
        counts = catalog.seat_counts(self.ruleset)
        seats = self.fields["seat_count"]
        seats.choices = [(n, f"{n} players") for n in counts]  # type: ignore[attr-defined]
        seats.initial = rules.default_seats if rules.default_seats in counts else counts[-1]
        seats.error_messages["invalid_choice"] = (
            f"A match of {self.ruleset_title} has {catalog.seats_said(counts)}."
        )
        self.options = {option_field_name(o): o for o in rules.options}
        for field_name, option in self.options.items():
            self.fields[field_name] = _option_field(option)
        self.fields["public"] = self.fields.pop("public")  # after the game's options
        self.fields["rated"] = self.fields.pop("rated")
        for i in range(1, max(counts) + 1):
            open_label = "You" if i == 1 else "Open for a player"
            self.fields[f"seat_{i}"] = SeatChoiceField(
                label=f"{SEAT_NAMES[i - 1]} seat",
                required=False,
                choices=_bot_choices(open_label, self.ruleset),
                ruleset=self.ruleset,
            )
        self.fields["seat_1"].help_text = "Yours, or give it to a bot to watch a match of bots."
        # On the second seat, which every match has: the last may be hidden.
        self.fields[
            "seat_2"
        ].help_text = (
            "An open seat waits for a person to join; the match starts when every seat is taken."
        )

    def rated_choice(self) -> bool | None:
        """Rated (True), casual (False), or as the seats say (None: docs/compete.md)."""
        return {"rated": True, "casual": False}.get(self.cleaned_data.get("rated") or "")

    def clean_game(self) -> str:
        name: str = self.cleaned_data.get("game") or self.ruleset
        if name not in catalog.names():
            known = ", ".join(catalog.title(n) for n in catalog.names())
            raise forms.ValidationError(f"There is no game {name[:40]!r} here; choose {known}.")
        return name

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
        options: dict[str, Any] = {}
        for field_name, option in self.options.items():
            if field_name == "length_minutes":
                if "length_ms" in data:
                    options[option.name] = data["length_ms"]
            elif data.get(field_name) is not None:
                options[option.name] = data[field_name]
        if len(options) == len(self.options):
            try:  # the engine has the last word on its options
                data["options"] = dict(engine.ruleset(self.ruleset).resolve_options(options))
            except engine.OptionError as error:
                self.add_error(None, error.message)
        count = data.get("seat_count")
        if count and "options" in data:
            self._check_with_seats(count, data["options"])
        # A bot in a seat past the count would be dropped without a word: the match
        # would then wait for players the creator meant to be bots.
        for i in range(count + 1, len(self.seat_fields()) + 1) if count else ():
            if data.get(f"seat_{i}"):
                self.add_error(
                    f"seat_{i}",
                    f"The match has {count} seats: leave this one open, or choose "
                    f"{i} seats or more.",
                )
        if data.get("seat_1") and count:
            missing = [i for i in range(2, count + 1) if not data.get(f"seat_{i}")]
            for i in missing:
                self.add_error(
                    f"seat_{i}",
                    "Give this seat a bot too (a match of bots has one in every "
                    "seat), or keep the first seat for yourself.",
                )
        return data

    def _check_with_seats(self, count: int, options: dict[str, Any]) -> None:
        """Options each valid alone may not fit the seats together (a Skyport map drawn
        for four players in a match of two): the engine's new game says so, and the
        error goes beside the first option whose default would make it fit."""
        rules = engine.ruleset(self.ruleset)
        try:
            engine.new_game(seed=0, seats=count, ruleset=self.ruleset, options=options)
        except engine.EngineError as error:
            for field_name, option in self.options.items():
                if options.get(option.name) == option.default:
                    continue
                try:
                    engine.new_game(
                        seed=0,
                        seats=count,
                        ruleset=self.ruleset,
                        options={**options, option.name: option.default},
                    )
                except engine.EngineError:
                    continue
                self.add_error(field_name, error.message)
                return
            self.add_error(None if rules.options else "seat_count", error.message)

    def option_fields(self) -> list[forms.BoundField]:
        """The chosen game's own options, in the engine's order."""
        return [self[name] for name in self.options]

    def seat_fields(self) -> list[forms.BoundField]:
        return [
            self[name] for name in self.fields if name.startswith("seat_") and name[5:].isdigit()
        ]

    def seat_rows(self) -> list[tuple[forms.BoundField, bool]]:
        """Each seat's choice and whether it is hidden: past the seats chosen."""
        shown = self.seats_shown()
        return [(field, n > shown) for n, field in enumerate(self.seat_fields(), start=1)]

    def seats_shown(self) -> int:
        """How many seat choices the page shows: the seat count chosen (posted, else the
        game's usual one); site.js follows the field as it changes."""
        field = self.fields["seat_count"]
        raw = self["seat_count"].value() if self.is_bound else field.initial
        try:
            count = int(raw)
        except (TypeError, ValueError):
            count = int(field.initial)
        # A seat past it that holds a refused bot stays in sight, beside its error.
        refused = [i for i in range(1, len(self.seat_fields()) + 1) if self.has_error(f"seat_{i}")]
        return max([count, *refused])

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
    game = forms.ChoiceField(label="Game", required=False)
    bots = forms.ChoiceField(label="Bots", required=False, choices=BOTS_CHOICES)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        games = [(name, catalog.title(name)) for name in catalog.names()]
        self.fields["game"].choices = [("", "Every game"), *games]  # type: ignore[attr-defined]
