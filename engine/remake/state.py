"""The remake's state: Helium 3's state with `rounds` and `round`, and its JSON.

Robots, helium, players and every consistency check are Helium 3's (docs/protocol.md);
the remake adds the round counter, the `awaiting` and `scores` every ruleset's
state carries, and its own ruleset name and terminations.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.errors import StateError
from engine.helium3 import state as h3
from engine.helium3.state import Robot

RULESET = "helium3-remake"
DEFAULT_ROUNDS = 20
MIN_ROUNDS, MAX_ROUNDS = 5, 100
TERMINATIONS = ("rounds", "elimination")
DERIVED_KEYS = ("awaiting", "scores")

__all__ = ["DEFAULT_ROUNDS", "MAX_ROUNDS", "MIN_ROUNDS", "RULESET", "Robot", "State"]


@dataclass(slots=True)
class State(h3.State):
    """A remake position; `round` counts from 1 and the match ends after `rounds`."""

    rounds: int = DEFAULT_ROUNDS
    round: int = 1

    def copy(self, helium: list[int] | None = None) -> State:
        """A copy that shares the (immutable by convention) robots but not the lists;
        `helium`, when given, is the copy's helium list instead of a copy of this one's."""
        return State(
            self.seed, self.width, self.height, self.helium[:] if helium is None else helium,
            dict(self.money),
            self.robots[:], self.turn, self.to_move, self.clock_ms, self.length_ms,
            self.over, self.winners[:], self.termination, self.ruleset, self.index,
            self.rounds, self.round,
        )  # fmt: skip

    @property
    def awaiting(self) -> list[int]:
        """The seats whose orders the next turn needs: the seat to move, none once over."""
        return [] if self.to_move is None or self.over else [self.to_move]

    @property
    def scores(self) -> dict[str, int]:
        """What the remake ranks by: each seat's money."""
        return {str(s): m for s, m in self.money.items()}

    def to_json(self) -> dict[str, Any]:
        out = h3.State.to_json(self)
        out["rounds"] = self.rounds
        out["round"] = self.round
        out["awaiting"] = self.awaiting
        out["scores"] = self.scores
        return out

    @classmethod
    def from_json(cls, data: Any) -> State:
        return _parse(data)


def _parse(data: Any) -> State:
    if not isinstance(data, dict):
        raise StateError("The state must be a JSON object.")
    if data.get("ruleset") != RULESET:
        raise StateError(f"The state's ruleset must be '{RULESET}'.")
    for key in ("rounds", "round"):
        if key not in data:
            raise StateError(f"The state is missing '{key}'.")
    rounds = h3._int(data, "rounds", "", lo=MIN_ROUNDS)
    if rounds > MAX_ROUNDS:
        raise StateError(f"'rounds' must be {MIN_ROUNDS} to {MAX_ROUNDS}.")
    round_no = h3._int(data, "round", "", lo=1)
    if round_no > rounds:
        raise StateError(f"'round' must be 1 to 'rounds' ({rounds}).")
    termination = data.get("termination")
    if termination is not None and termination not in TERMINATIONS:
        raise StateError("'termination' must be 'rounds', 'elimination' or absent.")
    # Helium 3's parser checks every shared field; it knows only its own name and
    # terminations, so it reads the shared part under them.
    shared = {k: v for k, v in data.items() if k not in ("rounds", "round", *DERIVED_KEYS)}
    shared["ruleset"] = h3.RULESET
    shared.pop("termination", None)
    base = h3.State.from_json(shared)
    state = State(
        base.seed, base.width, base.height, base.helium, base.money, base.robots,
        base.turn, base.to_move, base.clock_ms, base.length_ms, base.over, base.winners,
        termination, RULESET, None, rounds, round_no,
    )  # fmt: skip
    for key in DERIVED_KEYS:
        if key in data and data[key] != getattr(state, key):
            raise StateError(f"'{key}' does not agree with the rest of the state.")
    return state
