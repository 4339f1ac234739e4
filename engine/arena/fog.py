"""What a seat may know: `view` strips the state to the seat's own robot, score and
radar knowledge while the match runs (a spectator's to the public facts);
`events_view` keeps the events the seat perceives. Templates and API code render
these views, never filter."""

from __future__ import annotations

from typing import Any

from engine.arena.resolve import make_event
from engine.arena.state import PARTS, checked, copy_cells, copy_state, copy_value, is_int, robot_of
from engine.core import Event
from engine.errors import OrdersError

PUBLIC = (
    "ruleset",
    "width",
    "height",
    "phase",
    "players",
    "round",
    "rounds",
    "turn",
    "step",
    "awaiting",
)


def view(state: Any, seat: int | None) -> dict[str, Any]:
    """The state for `seat`: its own robot, score and knowledge while the match runs;
    for a spectator (None) the public facts only (the size, the round, whose turn, the
    seats and which are still in); the full state for everyone once it is over.

    Which seats are still in is public (every seat perceives a destruction), so
    `players` says it; how many steps another seat's turn has taken is not."""
    current = checked(state)  # read only: what the view keeps is copied
    if current["over"]:
        return {**copy_state(current), "viewer": seat}
    if seat is not None and (not is_int(seat) or not 1 <= seat <= len(current["robots"])):
        raise OrdersError("not_your_turn", f"There is no seat {seat!r} in this match.")
    # `players` keeps its place among the keys; it is filled in just below.
    out = {k: None if k == "players" else copy_value(current[k]) for k in PUBLIC}
    out["players"] = [{"seat": r["seat"], "alive": r["alive"]} for r in current["robots"]]
    if seat is None or seat not in current["awaiting"]:
        out["step"] = 0
    if seat is None:
        out.update(robots=[], knowledge={}, scores={}, over=False, winners=[], viewer=None)
        return out
    out.update(
        robots=[copy_value(robot_of(current, seat))],
        knowledge={str(seat): copy_cells(current["knowledge"][str(seat)])},
        scores={str(seat): current["scores"][str(seat)]},
        over=False,
        winners=[],
        viewer=seat,
    )
    return out


def events_view(events: list[Event], seat: int | None, *, over: bool = False) -> list[Event]:
    """The events `seat` perceives: its own scans, moves and shots; being hit (damage and
    shooter, no position); every destruction, turn end and the end. A spectator (None)
    perceives only these public ones, and a build without its parts. Once the match is
    over, everyone gets them all."""
    if over:
        return [dict(e) for e in events]
    out: list[Event] = []
    for event in events:
        kind = event["type"]
        if kind in ("turn_end", "destroyed", "over"):
            out.append(dict(event))
        elif kind == "built":
            parts = event.get("parts", {})
            own = {str(seat): parts[str(seat)]} if str(seat) in parts else {}
            out.append({**event, "parts": own})
        elif seat is None:
            continue
        elif kind in ("scan", "move") and event["seat"] == seat:
            out.append(dict(event))
        elif kind == "shot":
            if event["seat"] == seat:
                out.append(dict(event))
            elif event["hit"] == seat:
                damage = PARTS[event["weapon"]][2]
                out.append(
                    make_event(
                        "hit", event["t_ms"], event["duration_ms"], seat=seat, by=event["seat"],
                        damage=damage,
                    )
                )  # fmt: skip
        elif kind == "damage" and event["seat"] == seat:
            out.append(dict(event))
    return out
