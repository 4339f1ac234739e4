"""The remake's fog is Helium 3's: opponents' shields and deflects, and the seed while
the match runs, are hidden from a seat's view and its copy of the events.

A `deflect` action's event is a `shielded` event, so another seat's copy leaves it
out exactly as it leaves out a raised shield.
"""

from __future__ import annotations

from typing import Any

from engine.helium3.fog import events_view, seat_view
from engine.remake.state import State

__all__ = ["events_view", "view"]


def view(state: Any, seat: int | None) -> dict[str, Any]:
    return seat_view(State.from_json(state), seat)
