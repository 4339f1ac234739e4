"""A turn's events as sentences a person reads, from one viewer's copy of them.

The input is always `engine.events_view` output, so a line can only say what the
viewer may know: another seat's shield never appears, and a shield raised in place
reads as the pass the copy shows. Consequences are told with their cause: the
robots a beam destroys are named in the laser's sentence.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from games.play.helium3.board import DIRECTION_WORDS
from games.words import number

# Events that happen *to* a robot because of the weapon event before them.
_CONSEQUENCES = ("destroyed", "absorbed", "deflected")
_AFTER_WALK = ("moved", "mined", "armed", "shielded")
_SKIP_REASONS = {
    "robot_destroyed": "it had been destroyed",
    "occupied": "its destination was taken",
    "blocked": "its way was blocked",
    "out_of_range": "its target was out of range",
    "not_armed": "it was not armed",
}


@dataclass(frozen=True)
class Words:
    """What a game calls its pieces and its skipped actions (the remake's vehicles
    take up to five actions, Helium 3's robots two)."""

    noun: str = "Robot"
    skipped: str = "second action"
    # A `shielded` event with a deflect: Helium 3 raises the shield with it, the
    # remake's `deflect` action points a shield already up.
    deflect: str = "raised its shield, set to deflect {direction}"
    skip_reasons: dict[str, str] = field(default_factory=lambda: dict(_SKIP_REASONS))


HELIUM3 = Words()


def _cell(cell: list[int]) -> str:
    return f"({cell[0]}, {cell[1]})"


def _names(ids: list[str]) -> str:
    if len(ids) <= 1:
        return "".join(ids)
    return ", ".join(ids[:-1]) + " and " + ids[-1]


def _seats(seats: list[int]) -> str:
    return _names([f"seat {s}" for s in seats])


def _sign(v: int) -> int:
    return (v > 0) - (v < 0)


def _laser_direction(event: dict[str, Any], turned_to: str | None) -> str | None:
    segments = event.get("segments") or []
    if segments:
        (x0, y0), (x1, y1) = segments[0]
        key = {
            (0, -1): "N", (1, -1): "NE", (1, 0): "E", (1, 1): "SE",
            (0, 1): "S", (-1, 1): "SW", (-1, 0): "W", (-1, -1): "NW",
        }.get((_sign(x1 - x0), _sign(y1 - y0)))  # fmt: skip
        if key:
            return key
    # A beam fired straight off the board has a zero-length segment; the robot
    # turned to face the way it fired, if it did not face it already.
    return turned_to


def _effects(consequences: list[dict[str, Any]], skip: str | None = None) -> str:
    """What a weapon did, as clauses in the order it happened: destroying ..., a
    shield took it, a shield turned it (a turned beam goes on to what it meets next)."""
    clauses: list[str] = []
    group: list[dict[str, Any]] = []

    def destroyed_clause() -> None:
        if not group:
            return
        dropped = sum(int(e.get("dropped", 0)) for e in group)
        clause = f"destroying {_names([e['robot'] for e in group])}"
        clauses.append(f"{clause} ({number(dropped)} helium dropped)" if dropped else clause)
        group.clear()

    for e in consequences:
        if e["type"] == "destroyed":
            if e["robot"] != skip:
                group.append(e)
            continue
        destroyed_clause()
        if e["type"] == "absorbed":
            clauses.append(f"{e['robot']}'s shield took the hit")
        elif e["type"] == "deflected":
            word = DIRECTION_WORDS.get(e.get("direction", ""), e.get("direction", ""))
            clauses.append(f"{e['robot']}'s shield turned it {word}")
    destroyed_clause()
    return ", ".join(clauses)


def _with(sentence: str, effects: str, nothing: str) -> str:
    return f"{sentence}, {effects}." if effects else f"{sentence}{nothing}."


def _shield_words(deflect: str | None, words: Words) -> str:
    """A shield raised, or given its deflect direction (words.deflect)."""
    if not deflect:
        return "raised its shield"
    return words.deflect.format(direction=DIRECTION_WORDS.get(deflect, deflect))


def describe_events(events: list[dict[str, Any]], words: Words = HELIUM3) -> list[str]:
    """One viewer's copy of one turn's events as a list of sentences, in order."""
    noun = words.noun
    lines: list[str] = []
    moves: dict[str, list[list[int]]] = {}
    turned_to: dict[str, str] = {}
    i = 0
    n = len(events)

    def walked(robot: str) -> str:
        path = moves.pop(robot, None)
        if not path:
            return ""
        steps = len(path)
        return f"moved {steps} cell{'s' if steps != 1 else ''} to {_cell(path[-1])}"

    while i < n:
        e = events[i]
        kind = e["type"]
        robot = e.get("robot", "")
        i += 1
        consequences: list[dict[str, Any]] = []
        if kind in ("missile", "laser", "kamikaze"):
            while i < n and events[i]["type"] in _CONSEQUENCES:
                consequences.append(events[i])
                i += 1
        if kind == "turned":
            turned_to[robot] = e["to"]
            continue
        if kind == "moved":
            moves.setdefault(robot, []).extend(e["path"])
            # The walk is told with what the robot does at its end, if it does more.
            nxt = next((x for x in events[i:] if x["type"] != "turned"), None)
            if nxt is None or nxt.get("robot") != robot or nxt["type"] not in _AFTER_WALK:
                lines.append(f"{noun} {robot} {walked(robot)}.")
            continue
        before = walked(robot)
        lead = f"{noun} {robot} {before} and " if before else f"{noun} {robot} "
        if kind == "mined":
            lines.append(f"{lead}mined {number(e['amount'])} helium.")
        elif kind == "armed":
            lines.append(f"{lead}armed its {e['weapon']}.")
        elif kind == "shielded":
            lines.append(f"{lead}{_shield_words(e.get('deflect'), words)}.")
        elif kind == "missile":
            lines.append(
                _with(
                    f"{lead}fired a missile at {_cell(e['target'])}",
                    _effects(consequences),
                    ", hitting nothing",
                )
            )
        elif kind == "laser":
            direction = _laser_direction(e, turned_to.get(robot))
            where = f" {DIRECTION_WORDS[direction]}" if direction in DIRECTION_WORDS else ""
            lines.append(
                _with(f"{lead}fired a laser{where}", _effects(consequences), ", hitting nothing")
            )
        elif kind == "kamikaze" and any(
            c["type"] == "absorbed" and c["robot"] == robot for c in consequences
        ):
            others = [c for c in consequences if c["robot"] != robot]
            lines.append(
                _with(
                    f"{lead}set off its blast and survived, its shield spent",
                    _effects(others),
                    ", hitting nothing else",
                )
            )
        elif kind == "kamikaze":
            lines.append(
                _with(
                    f"{lead}blew itself up",
                    _effects(consequences, skip=robot),
                    ", hitting no other robot",
                )
            )
        elif kind == "destroyed":
            dropped = int(e.get("dropped", 0))
            tail = f", dropping {number(dropped)} helium" if dropped else ""
            lines.append(f"{noun} {robot} was destroyed{tail}.")
        elif kind == "absorbed":
            lines.append(f"{noun} {robot}'s shield took a hit.")
        elif kind == "deflected":
            word = DIRECTION_WORDS.get(e.get("direction", ""), e.get("direction", ""))
            lines.append(f"{noun} {robot}'s shield turned a beam {word}.")
        elif kind == "skipped":
            code = e.get("reason", "")
            reason = words.skip_reasons.get(code, code.replace("_", " ") or "no reason given")
            lines.append(f"{noun} {robot}'s {words.skipped} was skipped: {reason}.")
        elif kind == "pass":
            seat = e.get("seat")
            lines.append(f"Seat {seat} passed." if seat is not None else "The seat passed.")
        elif kind == "match_over":
            winners = list(e.get("winners") or [])
            reason = {
                "clock": "the battle clock ran out",
                "rounds": "the last round was played",
                "elimination": "one seat was left",
            }.get(e.get("reason", ""), "")
            who = f"{_seats(winners)} won" if winners else "nobody won"
            lines.append(f"The match is over{f' ({reason})' if reason else ''}: {who}.")
        else:
            lines.append(f"{kind.replace('_', ' ').capitalize()}.")
    return lines
