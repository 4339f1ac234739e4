"""The remake's fog is Helium 3's: opponents' shields and deflects, and the seed while
the match runs, are hidden from a seat's view and its copy of the events.

A `deflect` action's event is a `shielded` event, so another seat's copy leaves it
out exactly as it leaves out a raised shield.
"""

from __future__ import annotations

from typing import Any

from engine.helium3 import fog
from engine.remake.state import State

Event = dict[str, Any]


def view(state: Any, seat: int | None) -> dict[str, Any]:
    current = State.from_json(state)
    fog.check_viewer(seat, current.seats)
    return fog.view_of(current.to_json(), seat)


def events_view(events: list[Event], seat: int | None, *, over: bool = False) -> list[Event]:
    return fog.events_view(events, seat, over=over)
