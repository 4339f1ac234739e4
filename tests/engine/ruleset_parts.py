"""What the test rulesets (nim, rps, race, dig) share: their views of a state with
no secret but the seed, events every seat may see, and the bots' randomness.

A top-level module of tests/engine, like the rulesets (see platform_rulesets.py).
"""

from __future__ import annotations

import random
from typing import Any

from engine.core import Event


def seed_hidden_view(state: Any, seat: int | None) -> dict[str, Any]:
    """The whole state but the seed, which shows once the match is over."""
    out = {k: v for k, v in state.items() if k != "seed" or state["over"]}
    out["viewer"] = seat
    return out


def open_events(events: list[Event], seat: int | None, *, over: bool = False) -> list[Event]:
    """Every seat sees every event (as copies)."""
    return [dict(e) for e in events]


def bot_rng(name: str, state: Any, seat: int, *more: Any) -> random.Random:
    """A bot's randomness, fixed by its name, the seed, the turn, `more` and the seat."""
    parts = (name, state["seed"], state["turn"], *more, seat)
    return random.Random(":".join(str(p) for p in parts))
