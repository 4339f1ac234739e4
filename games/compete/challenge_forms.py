"""The challenge form: the new match form of one game (games/forms.py), with the
challenged player in the second seat instead of a choice, and no title."""

from __future__ import annotations

from typing import Any

from django import forms

from games import catalog
from games.compete.models import ChallengePolicy
from games.forms import MatchCreateForm

FIRST_OTHER_SEAT = 3  # the challenger sits first, the challenged second


class ChallengeForm(MatchCreateForm):
    to = forms.CharField(
        label="Player",
        max_length=150,
        help_text="The person or API bot you challenge, by username.",
    )

    def __init__(self, *args: Any, game: str | None = None, **kwargs: Any) -> None:
        super().__init__(*args, game=game, **kwargs)
        del self.fields["title"]
        del self.fields["seat_1"]
        del self.fields["seat_2"]
        # A challenge is between two unless the challenger asks for more seats.
        self.fields["seat_count"].initial = min(catalog.seat_counts(self.ruleset))
        self.fields[
            "seat_count"
        ].help_text = (
            "You, the player you challenge, and any seats after: open for anyone, or a bot."
        )
        self.fields["public"].help_text = "Anyone may watch a public match; a private one is "
        self.fields["public"].help_text += "seen by its players only."
        self.fields = {"to": self.fields.pop("to"), **self.fields}
        for field in self.other_seats():
            field.field.help_text = ""
        others = self.other_seats()
        if others:
            others[0].field.help_text = "A seat left open waits for anyone to join; the match "
            others[0].field.help_text += "starts when every seat is taken."

    def other_seats(self) -> list[forms.BoundField]:
        return self.seat_fields()

    def seat_rows(self) -> list[tuple[forms.BoundField, bool]]:
        """Each seat after the two players' and whether it is hidden (past the count)."""
        shown = self.seats_shown()
        return [
            (field, n > shown) for n, field in enumerate(self.seat_fields(), start=FIRST_OTHER_SEAT)
        ]

    def seats_numbered(self) -> list[tuple[int, forms.BoundField, bool]]:
        return [
            (n, field, hidden)
            for n, (field, hidden) in enumerate(self.seat_rows(), start=FIRST_OTHER_SEAT)
        ]

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        count = data.get("seat_count")
        # The new match form checks the seats up to its count of seat fields; the
        # last two (numbered past it here) are checked here.
        last = FIRST_OTHER_SEAT + len(self.seat_fields())
        for i in range(len(self.seat_fields()) + 1, last):
            if count and i > count and data.get(f"seat_{i}"):
                self.add_error(
                    f"seat_{i}",
                    f"The match has {count} seats: leave this one open, or choose more seats.",
                )
        return data

    def bots(self) -> list[str]:
        """The seats after the two players', in order ("" open)."""
        count = self.cleaned_data["seat_count"]
        return [
            self.cleaned_data.get(f"seat_{i}") or "" for i in range(FIRST_OTHER_SEAT, count + 1)
        ]


class ChallengePolicyForm(forms.Form):
    accept_from = forms.ChoiceField(
        label="Who may challenge me",
        choices=ChallengePolicy.From.choices,
        widget=forms.RadioSelect,
    )
    email = forms.BooleanField(
        label="Email me a challenge when I am away",
        required=False,
        help_text="Sent a few minutes after it came, if you have not seen it by then.",
    )
