"""The fog of shield: what one seat may know of a state and of a turn's events.

A view is built from the full state by removing what the seat may not see, so it
is a function of what the seat may know: opponents' shields and deflects, and the
seed while the match runs. Templates and API code render views, never filter.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.errors import ShapeError

if TYPE_CHECKING:
    from engine.helium3.state import State

Event = dict[str, Any]


def check_viewer(seat: int | None, seats: list[int]) -> None:
    if seat is not None and (type(seat) is not int or seat not in seats):
        raise ShapeError("bad_shape", f"Seat {seat!r} does not play in this match.")


def seat_view(current: State, seat: int | None) -> dict[str, Any]:
    """Seat `seat`'s view (None: a spectator) of a parsed state, of any variant."""
    check_viewer(seat, current.seats)
    return view_of(current.to_json(), seat)


def view_of(full: dict[str, Any], seat: int | None) -> dict[str, Any]:
    """Seat `seat`'s view (None: a spectator) of a state already in JSON form.

    `full` must be a fresh dict (it is changed in place and returned).
    """
    if not full["over"]:
        del full["seed"]
        for robot in full["robots"]:
            if robot["seat"] != seat:
                del robot["shield"]
                del robot["deflect"]
    full["viewer"] = seat
    return full


def events_view(events: list[Event], seat: int | None, *, over: bool = False) -> list[Event]:
    """Seat `seat`'s copy of one turn's events (None: a spectator's).

    Another seat's `shielded` event is left out (its move stays an ordinary `moved`),
    so no event names a hidden deflect before the hit that spends it; a copy left
    empty shows a `pass`. Once the match is over, everything is public.
    """
    if over:
        return list(events)
    copy = [e for e in events if e["type"] != "shielded" or e.get("seat") == seat]
    if not copy and events:
        mover = next((e.get("seat") for e in events if e["type"] == "shielded"), None)
        copy = [{"type": "pass", "t_ms": 0, "duration_ms": 0, "seat": mover}]
    return copy
