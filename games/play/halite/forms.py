"""Halite's plain order form: one textarea, `moves`, one move a line.

A line is "x y direction": the cell of one of your pieces and where it goes, 0 (or
"still"), 1 or n (north, y - 1), 2 or e (east, x + 1), 3 or s (south, y + 1), 4 or w
(west, x - 1); commas may stand between the three. Blank lines are skipped; a form
with no move is a pass (every piece stays and grows). The board script plans on the
board and writes this textarea before submitting the page's form (id "orders-form"),
so the page plays the same with JavaScript or without.

The form reads what the text can say by itself (a line that is not three parts, a
cell off the map, a direction that is none, a cell named twice, a cell that is not
the viewer's) and says which line; the engine judges the orders again when they are
sent, and its refusal is shown next to the same textarea.
"""

from __future__ import annotations

import json
import re
from typing import Any

from django import forms
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

DIRECTION_WORDS = {
    "0": 0,
    "still": 0,
    "x": 0,
    "1": 1,
    "n": 1,
    "north": 1,
    "2": 2,
    "e": 2,
    "east": 2,
    "3": 3,
    "s": 3,
    "south": 3,
    "4": 4,
    "w": 4,
    "west": 4,
}
DIRECTION_NAMES = {0: "still", 1: "north", 2: "east", 3: "south", 4: "west"}
# A 50 x 50 map has 2,500 cells: a move a line, each line at most "49 49 north".
MAX_MOVES_TEXT = 40_000
MAX_ORDERS_JSON = 80_000
_SEPARATORS = re.compile(r"[\s,;]+")


def parse_moves(
    text: str, *, width: int | None = None, height: int | None = None
) -> tuple[list[list[int]], list[int], list[str]]:
    """The moves of the text, the line number of each, and the errors found (each
    naming its line). Bounds are checked when the map's size is given."""
    moves: list[list[int]] = []
    lines: list[int] = []
    errors: list[str] = []
    seen: dict[tuple[int, int], int] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = [p for p in _SEPARATORS.split(line) if p]
        if len(parts) != 3:
            errors.append(
                f"Line {number}: write a move as three parts, x y direction (such as “4 7 n”), "
                f"not “{line[:40]}”."
            )
            continue
        try:
            x, y = int(parts[0]), int(parts[1])
        except ValueError:
            errors.append(f"Line {number}: x and y are whole numbers, not “{line[:40]}”.")
            continue
        direction = DIRECTION_WORDS.get(parts[2].lower())
        if direction is None:
            errors.append(
                f"Line {number}: the direction is 0 to 4 or n, e, s, w (0 stays), "
                f"not “{parts[2][:12]}”."
            )
            continue
        if (width is not None and not 0 <= x < width) or (
            height is not None and not 0 <= y < height
        ):
            errors.append(
                f"Line {number}: ({x}, {y}) is off the map; x is 0 to {(width or 1) - 1} "
                f"and y 0 to {(height or 1) - 1}."
            )
            continue
        if (x, y) in seen:
            errors.append(
                f"Line {number}: ({x}, {y}) was already given a move on line {seen[x, y]}."
            )
            continue
        seen[x, y] = number
        moves.append([x, y, direction])
        lines.append(number)
    return moves, lines, errors


def moves_text(moves: list[list[int]]) -> str:
    """Moves as the textarea takes them, one "x y direction" a line."""
    return "\n".join(f"{x} {y} {d}" for x, y, d in moves)


class OrdersForm(forms.Form):
    """A turn's moves as text (or the orders object as JSON); `orders()` gives
    {"moves": [[x, y, direction], ...]} without seat and turn."""

    turn = forms.IntegerField(widget=forms.HiddenInput, min_value=0, max_value=10**6)
    moves = forms.CharField(
        label="Your moves",
        required=False,
        max_length=MAX_MOVES_TEXT,
        strip=False,
        widget=forms.Textarea(attrs={"rows": 6, "cols": 24}),
        help_text="One move a line: x y direction, the direction 0 (still), 1 or n (north), "
        "2 or e (east), 3 or s (south), 4 or w (west). Pieces not named stay and grow. "
        "Empty: a pass.",
    )
    # Named as the other games' JSON field, so the match page's JSON box is this form's.
    actions_json = forms.CharField(
        label="Or the orders as JSON",
        required=False,
        max_length=MAX_ORDERS_JSON,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        help_text='For example {"moves": [[4, 7, 1], [5, 7, 2]]}. When given, the moves '
        "above are ignored.",
    )

    def __init__(self, *args: Any, view: dict[str, Any] | None = None, **kwargs: Any) -> None:
        self.view = view
        if view is not None:
            kwargs.setdefault("initial", {"turn": view.get("turn")})
        super().__init__(*args, **kwargs)
        self.lines: list[int] = []

    def _size(self) -> tuple[int | None, int | None]:
        if self.view is None:
            return None, None
        return int(self.view["width"]), int(self.view["height"])

    def _not_yours(self, moves: list[list[int]], lines: list[int]) -> list[str]:
        """Lines naming a cell that holds no piece of the viewer's (the engine's
        not_your_piece, said before sending)."""
        view = self.view
        if view is None or view.get("viewer") is None:
            return []
        seat = int(view["viewer"])
        owner = view["owner"]
        return [
            f"Line {line}: ({x}, {y}) holds no piece of yours."
            for (x, y, _d), line in zip(moves, lines, strict=True)
            if owner[y][x] != seat
        ]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        raw_json = (data.get("actions_json") or "").strip()
        width, height = self._size()
        if raw_json:
            try:
                given = json.loads(raw_json)
            except ValueError as error:
                self.add_error("actions_json", f"The orders are not valid JSON: {error}.")
                return data
            except RecursionError:
                self.add_error("actions_json", "The orders are nested too deeply.")
                return data
            if not isinstance(given, dict) or not isinstance(given.get("moves", []), list):
                self.add_error("actions_json", 'Give an object such as {"moves": [[4, 7, 1]]}.')
                return data
            moves = given.get("moves", [])
            if not all(
                isinstance(m, list) and len(m) == 3 and all(type(v) is int for v in m)
                for m in moves
            ):
                self.add_error(
                    "actions_json", "Each move is three whole numbers: [x, y, direction]."
                )
                return data
            text = moves_text(moves)
            field = "actions_json"
        else:
            text = data.get("moves") or ""
            field = "moves"
        parsed, lines, errors = parse_moves(text, width=width, height=height)
        errors += self._not_yours(parsed, lines) if not errors else []
        for message in errors[:10]:
            self.add_error(field, message)
        if len(errors) > 10:
            self.add_error(field, f"And {len(errors) - 10} more lines like these.")
        self.lines = lines
        data["orders"] = {"moves": parsed}
        return data

    def orders(self) -> dict[str, Any]:
        return {"moves": [list(m) for m in self.cleaned_data["orders"]["moves"]]}

    def add_engine_error(self, message: str, action: int | None) -> None:
        """The engine's refusal, next to the moves (naming the line when it names a move)."""
        field = "actions_json" if (self.data.get("actions_json") or "").strip() else "moves"
        if action is not None and 0 <= action < len(self.lines) and field == "moves":
            message = f"Line {self.lines[action]}: {message}"
        self.add_error(field, message)

    def rows(self) -> SafeString:
        """The moves textarea with its label, help and errors, drawn in Python."""
        field = self["moves"]
        value = field.value()
        errors = "".join(f"<li>{escape(e)}</li>" for e in field.errors)
        error_html = (
            f'<div class="field-errors" role="alert" id="id_moves_errors">'
            f'<ul class="errorlist">{errors}</ul></div>'
            if errors
            else ""
        )
        described = "id_moves_helptext" + (" id_moves_errors" if errors else "")
        return mark_safe(  # noqa: S308 - the value, label and errors are escaped
            f'<div class="form-field hl-moves{" invalid" if errors else ""}">'
            f'<label for="id_moves">{escape(field.label)}:</label>'
            f'<span class="control"><textarea name="moves" id="id_moves" rows="6" cols="24" '
            f'maxlength="{MAX_MOVES_TEXT}" spellcheck="false" autocomplete="off" '
            f'aria-describedby="{described}">\n{escape(value or "")}</textarea></span>'
            f'<small class="help" id="id_moves_helptext">{escape(field.help_text)}</small>'
            f"{error_html}</div>"
        )
