"""The arena's events as sentences, for the history, the movie and emails.

Each sentence comes from one viewer's copy of the events (engine.events_view), so
it says no more than the copy: a scan is only in its own seat's copy, a hit tells
its victim who shot and how hard but not from where, a miss tells the target
nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Event = dict[str, Any]


def _cell(at: Any) -> str:
    try:
        x, y = at
        return f"({int(x)}, {int(y)})"
    except (TypeError, ValueError):
        return "(?)"


def _key_cell(key: Any) -> str:
    try:
        x, y = str(key).split(",")
        return f"({int(x)}, {int(y)})"
    except ValueError:
        return "(?)"


def _and(words: list[str]) -> str:
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def _built(e: Event) -> str:
    """The builds are hidden: a seat's copy holds its own parts only (a spectator's
    and everyone's once over, all of them)."""
    given = e.get("parts")
    parts: dict[str, Any] = given if isinstance(given, dict) else {}
    said = [
        f"seat {seat} {_and([str(p) for p in built]) or 'no parts'}"
        for seat, built in sorted(parts.items())
        if isinstance(built, list)
    ]
    if not said:
        return "The robots are built."
    return f"The robots are built: {'; '.join(said)}."


def _scan(e: Event) -> str:
    given = e.get("cells")
    cells: dict[str, Any] = given if isinstance(given, dict) else {}
    seat = e.get("seat")
    robots = []
    obstacles = 0
    for key, seen in sorted(cells.items()):
        if not isinstance(seen, list) or not seen:
            continue
        if seen[0] == "obstacle":
            obstacles += 1
        elif seen[0] == "robot" and len(seen) > 1 and seen[1] != seat:
            robots.append(f"seat {seen[1]}'s robot at {_key_cell(key)}")
    count = len(cells)
    found = _and(robots) if robots else "no robot"
    if obstacles:
        found += f", {obstacles} obstacle{'s' if obstacles != 1 else ''}"
    return (
        f"Seat {seat} scanned {count} cell{'s' if count != 1 else ''} around "
        f"{_cell(e.get('at'))}: {found}."
    )


def _move(e: Event) -> str:
    given = e.get("path")
    path: list[Any] = given if isinstance(given, list) else []
    steps = len(path)
    return (
        f"Seat {e.get('seat')} moved {steps} cell{'s' if steps != 1 else ''} from "
        f"{_cell(e.get('from'))} to {_cell(e.get('to'))}."
    )


def _shot(e: Event) -> str:
    hit = e.get("hit")
    outcome = f"it hit seat {hit}" if hit is not None else "it hit nothing"
    return (
        f"Seat {e.get('seat')} fired the {e.get('weapon')} from {_cell(e.get('from'))} "
        f"at {_cell(e.get('target'))}: {outcome}."
    )


def _hit(e: Event) -> str:
    return f"Seat {e.get('by')} hit you for {e.get('damage')}."


def _damage(e: Event) -> str:
    return (
        f"Seat {e.get('seat')} took {e.get('damage')} from seat {e.get('by')} "
        f"({e.get('health')} health left)."
    )


def _destroyed(e: Event) -> str:
    by = e.get("by")
    killer = f" by seat {by}" if by is not None else ""
    return f"Seat {e.get('seat')}'s robot was destroyed{killer}."


def _turn_end(e: Event) -> str:
    return f"Seat {e.get('seat')} ended its turn."


def _over(e: Event) -> str:
    winners = [str(s) for s in e.get("winners") or []]
    if not winners:
        return "The match is over."
    if len(winners) == 1:
        return f"The match is over: seat {winners[0]} wins."
    return f"The match is over: seats {_and(winners)} share the win."


def _unknown(e: Event) -> str:
    return f"{str(e.get('type', 'event')).replace('_', ' ').capitalize()}."


_TELL: dict[str, Callable[[Event], str]] = {
    "built": _built,
    "scan": _scan,
    "move": _move,
    "shot": _shot,
    "hit": _hit,
    "damage": _damage,
    "destroyed": _destroyed,
    "turn_end": _turn_end,
    "over": _over,
}


def sentences(events: list[Event]) -> list[str]:
    """One viewer's copy of one step's events as sentences, in order."""
    return [_TELL.get(str(e.get("type")), _unknown)(e) for e in events]
