"""Skyport's events as sentences, for the history, the movie and emails.

A turn is at most three actions of one seat, so every event is told; an attack and
the damage it did are one sentence ("Seat 2 fired the mortar at (3, 4): seat 1 took
35 (35 points)"), in the turn's order.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Event = dict[str, Any]
ATTACKS = ("laser", "mortar", "droid")
PENALTY_REASONS = {
    "no_action": "no action this turn",
    "on_spawn": "it ended its turn on its spawn",
    "death": "it died",
}


def _tile(at: Any) -> str:
    try:
        j, k = at
        return f"({int(j)}, {int(k)})"
    except (TypeError, ValueError):
        return "(?)"


def _and(words: list[str]) -> str:
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def _loadouts(e: Event) -> str:
    said = [
        f"seat {p.get('seat')} {_and([str(w) for w in p.get('weapons') or []]) or 'nothing'}"
        for p in e.get("players") or []
        if isinstance(p, dict)
    ]
    return f"The loadouts are revealed: {'; '.join(said) or 'none'}."


def _move(e: Event) -> str:
    return (
        f"Seat {e.get('seat')} moved {e.get('direction')} from {_tile(e.get('from'))} "
        f"to {_tile(e.get('to'))}."
    )


def _mine(e: Event) -> str:
    left = e.get("left")
    rest = "mined out" if left == 0 else f"{left} left"
    return f"Seat {e.get('seat')} mined {e.get('resource')} at {_tile(e.get('at'))} ({rest})."


def _upgrade(e: Event) -> str:
    return f"Seat {e.get('seat')} upgraded the {e.get('weapon')} to level {e.get('level')}."


def _attack(e: Event) -> str:
    seat, kind = e.get("seat"), e.get("type")
    if kind == "laser":
        tiles = e.get("tiles") or []
        return (
            f"Seat {seat} fired the laser {e.get('direction')} from {_tile(e.get('from'))} "
            f"across {len(tiles)} tile{'s' if len(tiles) != 1 else ''}"
        )
    if kind == "mortar":
        text = f"Seat {seat} fired the mortar at {_tile(e.get('target'))}"
        if e.get("landed") is False:
            text += ", where it could not land and did nothing"
        return text
    path = e.get("path") or []
    steps = len(path)
    return (
        f"Seat {seat} sent the droid {steps} step{'s' if steps != 1 else ''} from "
        f"{_tile(e.get('from'))}; it exploded at {_tile(e.get('at'))}"
    )


def _hit(e: Event) -> str:
    victim, by = e.get("seat"), e.get("by")
    points = int(e.get("points") or 0)
    who = f"seat {victim} itself" if victim == by else f"seat {victim}"
    scored = f"{points} point{'s' if points != 1 else ''}" if points else "no points"
    return f"{who} took {e.get('amount')} ({scored})"


def _damage(e: Event) -> str:
    return f"Seat {e.get('by')}'s shot: {_hit(e)}."


def _death(e: Event) -> str:
    seat, by = e.get("seat"), e.get("by")
    killer = "its own shot" if by == seat or by is None else f"seat {by}"
    return f"Seat {seat} died at {_tile(e.get('at'))}, killed by {killer}."


def _skip(e: Event) -> str:
    return f"Seat {e.get('seat')} is dead: its turn is skipped."


def _respawn(e: Event) -> str:
    return f"Seat {e.get('seat')} is back on its spawn at {_tile(e.get('at'))}, with full health."


def _penalty(e: Event) -> str:
    points = abs(int(e.get("points") or 0))
    reason = PENALTY_REASONS.get(str(e.get("reason")), str(e.get("reason", "")).replace("_", " "))
    return f"Seat {e.get('seat')} lost {points} points: {reason}."


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
    "loadouts": _loadouts,
    "move": _move,
    "mine": _mine,
    "upgrade": _upgrade,
    "damage": _damage,
    "death": _death,
    "skip": _skip,
    "respawn": _respawn,
    "penalty": _penalty,
    "over": _over,
}


def sentences(events: list[Event]) -> list[str]:
    """One viewer's copy of one turn's events as sentences, in the turn's order; an
    attack takes the damage events right after it into its sentence."""
    lines: list[str] = []
    i = 0
    while i < len(events):
        event = events[i]
        kind = str(event.get("type"))
        if kind in ATTACKS:
            hits = []
            i += 1
            while i < len(events) and events[i].get("type") == "damage":
                hits.append(_hit(events[i]))
                i += 1
            lines.append(f"{_attack(event)}: {_and(hits) if hits else 'nobody was hit'}.")
            continue
        lines.append(_TELL.get(kind, _unknown)(event))
        i += 1
    return lines
