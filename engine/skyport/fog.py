"""What a seat may know of Skyport (skyport.md "Views"): everything, once every loadout
is chosen. The loadouts stay hidden until then because the setup phase resolves every
seat's loadout in one `apply`: the state holds none before it, and the `loadouts` event
comes with it. So a view is the state plus "viewer", and every event is public.
"""

from __future__ import annotations

from typing import Any

from engine.errors import ShapeError
from engine.skyport.resolve import Event
from engine.skyport.state import parse


def view(state: Any, seat: int | None) -> dict[str, Any]:
    """The state plus "viewer". A loadout is in the state only once every seat has
    chosen (the setup resolves all of them at once), so nothing else is hidden."""
    current = parse(state)
    seats = len(current["players"])
    if seat is not None and (type(seat) is not int or not 1 <= seat <= seats):
        raise ShapeError("bad_shape", f"Seat {seat!r} does not play in this match.")
    return {**current, "viewer": seat}


def events_view(events: list[Event], seat: int | None, *, over: bool = False) -> list[Event]:
    """Every event is public: the loadouts event comes only when all have chosen."""
    return list(events)
