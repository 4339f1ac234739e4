"""Values shared by every ruleset: what a ruleset declares and what it provides."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from engine.errors import ShapeError, StateError

Event = dict[str, Any]
OptionValue = int | str


@dataclass(frozen=True, slots=True)
class Applied:
    """One resolved turn: the new state and the full events, both as protocol JSON."""

    state: dict[str, Any]
    events: list[Event]
    turn_ms: int


class OptionError(ShapeError):
    """An option of a new game that the ruleset does not have, or a value out of its range
    (the command line exits 2 on it, as on any other wrong usage)."""

    def __init__(self, message: str) -> None:
        super().__init__("bad_shape", message)


@dataclass(frozen=True, slots=True)
class Option:
    """One parameter of a new game, named as `--option NAME=VALUE` names it.

    `kind` "int" takes an integer within `minimum` .. `maximum` (either bound may be
    None: no bound); "str" takes one of `choices` (any string when there are none).
    """

    name: str
    kind: Literal["int", "str"]
    default: OptionValue
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[str, ...] = ()
    help: str = ""

    def parse(self, text: str) -> OptionValue:
        """The value written on the command line (`--option name=TEXT`)."""
        if self.kind == "int":
            try:
                number = int(text.strip())
            except ValueError:
                raise OptionError(
                    f"Option {self.name} takes a whole number, not {text[:40]!r}."
                ) from None
            return self.check(number)
        return self.check(text)

    def check(self, value: Any) -> OptionValue:
        """A value from JSON (the site's create body) or from `parse`; raises ShapeError."""
        if self.kind == "int":
            if type(value) is not int:
                raise OptionError(f"Option {self.name} takes a whole number.")
            if self.minimum is not None and value < self.minimum:
                raise OptionError(f"Option {self.name} is at least {self.minimum}.")
            if self.maximum is not None and value > self.maximum:
                raise OptionError(f"Option {self.name} is at most {self.maximum}.")
            return value
        if not isinstance(value, str):
            raise OptionError(f"Option {self.name} takes a string.")
        if self.choices and value not in self.choices:
            raise OptionError(f"Option {self.name} is one of {', '.join(self.choices)}.")
        return value

    def describe(self) -> str:
        """One line for `python -m engine rulesets`: name, type, range and default."""
        if self.kind == "int":
            low = "" if self.minimum is None else str(self.minimum)
            high = "" if self.maximum is None else str(self.maximum)
            kind = f"int {low}..{high}" if low or high else "int"
        else:
            kind = "|".join(self.choices) if self.choices else "str"
        text = f"{self.name}={self.default} ({kind})"
        return f"{text}: {self.help}" if self.help else text

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "default": self.default,
            "minimum": self.minimum,
            "maximum": self.maximum,
            "choices": list(self.choices),
            "help": self.help,
        }


@dataclass(frozen=True, slots=True)
class Shape:
    """How a ruleset's turns are made: its dynamics, as the site needs to know them.

    - `simultaneous`: every seat still in play gives orders for each turn, resolved
      together (`apply` takes a list); otherwise one seat at a time.
    - `setup`: the game opens with a phase where every seat gives orders at once
      (a build, a loadout), whatever its turns are afterwards.
    - `steps`: a turn is several `apply`s of the same seat (the state's `step`
      counts them; `turn` advances when the seat ends its turn), each resolved at
      once; a step's orders may carry `step_no`, checked against the state's `step`.
    """

    simultaneous: bool = False
    setup: bool = False
    steps: bool = False

    def describe(self) -> str:
        text = "all seats at once" if self.simultaneous else "one seat at a time"
        if self.setup:
            text = f"setup at once, then {text}"
        if self.steps:
            text = f"{text}, a turn of several steps"
        return text

    def to_json(self) -> dict[str, Any]:
        return {"simultaneous": self.simultaneous, "setup": self.setup, "steps": self.steps}


def _no_description(name: str) -> str:
    return ""


def awaiting_in_state(state: Any) -> list[int]:
    """The state's own `awaiting` list (the platform's default for `Ruleset.awaiting`)."""
    seats = state.get("awaiting") if isinstance(state, dict) else None
    if not isinstance(seats, list) or any(type(s) is not int for s in seats):
        raise StateError("The state needs 'awaiting', a list of seats.")
    return list(seats)


def scores_in_state(state: Any) -> dict[str, int | float]:
    """The state's own `scores` object (the platform's default for `Ruleset.scores`)."""
    scores = state.get("scores") if isinstance(state, dict) else None
    if not isinstance(scores, dict) or any(
        not isinstance(v, int | float) or isinstance(v, bool) for v in scores.values()
    ):
        raise StateError("The state needs 'scores', a number for each seat.")
    return {str(k): v for k, v in scores.items()}


@dataclass(frozen=True, slots=True, kw_only=True)
class Ruleset:
    """What a ruleset package provides as its `RULESET`; `engine` dispatches on
    `state["ruleset"]`. Every callable takes and gives protocol JSON.

    - `new_game(seed=, seats=, **options)`: a new state; `engine.new_game` passes every
      option of `options`, defaults filled in and checked.
    - `apply(state, orders)`: one resolution. `orders` is one orders object when one
      seat is awaited; when several are, a list with one orders object per awaited
      seat, in seat order, that the engine has already checked (shape, seats, and
      each with `check`, unless `apply_checks_orders`), so the ruleset only resolves
      them.
    - `check(state, orders)`: raises EngineError unless this one seat's orders would
      be accepted now; never needs another seat's orders.
    - `default_orders(state, seat)`: the orders of an awaited seat that gave none
      (a pass: nothing moves).
    - `awaiting(state)`: the seats whose orders the next resolution needs, in seat
      order; [] once over. `scores(state)`: {"<seat>": number}, what the game ranks
      by. Both read the state's `awaiting` and `scores` unless a ruleset says how.
    - `view(state, seat)`, `events_view(events, seat, over=)`: a seat's knowledge.
    - `seats_bot_orders(asked, state)`, optional: `bot_orders` of each (name, seat) of
      `asked` in turn, the same orders (or the same first error) as one call each, for
      a ruleset whose state is dear to read: one reading serves every seat.
    - `seats`: the seat counts a game may have, `default_seats` the usual one;
      `options`: the game's parameters; `shape`: how its turns are made.
    """

    name: str
    new_game: Callable[..., dict[str, Any]]
    apply: Callable[[Any, Any], Applied]
    check: Callable[[Any, Any], None]
    default_orders: Callable[[Any, int], dict[str, Any]]
    view: Callable[[Any, int | None], dict[str, Any]]
    events_view: Callable[..., list[Event]]
    bot_names: Callable[[], list[str]]
    bot_orders: Callable[[str, Any, int], dict[str, Any]]
    awaiting: Callable[[Any], list[int]] = awaiting_in_state
    scores: Callable[[Any], dict[str, int | float]] = scores_in_state
    # A few words for a person choosing an opponent: how strong the bot is, how it plays.
    bot_description: Callable[[str], str] = _no_description
    seats_bot_orders: Callable[[list[tuple[str, int]], Any], list[dict[str, Any]]] | None = None
    title: str = ""
    seats: tuple[int, ...] = (2, 3, 4)
    default_seats: int = 2
    options: tuple[Option, ...] = ()
    shape: Shape = Shape()
    # True when `apply`, given a list, checks each orders object itself, in order, as
    # `check` would and before anything else of the state: the engine then does not
    # check them first (the errors are the same; each is read once).
    apply_checks_orders: bool = False

    def option(self, name: str) -> Option:
        for option in self.options:
            if option.name == name:
                return option
        known = ", ".join(o.name for o in self.options) or "none"
        raise OptionError(f"The {self.name} ruleset has no option {name[:40]!r}; known: {known}.")

    def resolve_options(self, given: Mapping[str, Any] | None = None) -> dict[str, OptionValue]:
        """Every option's value: `given` checked against the declarations, defaults
        for the rest; raises OptionError on an unknown name or a bad value."""
        given = given or {}
        for name in given:
            self.option(str(name))
        return {
            o.name: o.check(given[o.name]) if o.name in given else o.default for o in self.options
        }

    def parse_options(self, texts: Sequence[str]) -> dict[str, OptionValue]:
        """Options as `--option NAME=VALUE` gives them, each checked (not yet the defaults)."""
        given: dict[str, OptionValue] = {}
        for text in texts:
            name, sep, value = text.partition("=")
            name = name.strip()
            if not sep or not name:
                raise OptionError(f"Write an option as NAME=VALUE, not {text[:40]!r}.")
            if name in given:
                raise OptionError(f"Option {name[:40]} is given twice.")
            given[name] = self.option(name).parse(value)
        return given

    def describe(self) -> dict[str, Any]:
        """The ruleset as `python -m engine rulesets --json` and the site list it."""
        return {
            "name": self.name,
            "title": self.title or self.name,
            "seats": list(self.seats),
            "default_seats": self.default_seats,
            "shape": self.shape.to_json(),
            "options": [o.to_json() for o in self.options],
            "bots": self.bot_names(),
        }
