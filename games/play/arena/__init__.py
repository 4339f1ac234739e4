"""The robot arena on the site: the 10 x 10 grid drawn server-side as the viewer
knows it (unknown cells grey, remembered cells fading with their age, robots seen
in scans where they were seen), the plain form (a build of parts, then one step at
a time, each resolved in the request), the events as sentences and the rules page.
Everything comes from the viewer's view and copy of the events: a seat sees only
what its scans showed; a spectator, while the match runs, only which seats are
still in. The board script plans from the page's hints: the viewer's own robot
(where it stands, its steps left, whether it shot, the cannon's reload, its parts'
ranges) and the parts table."""

from __future__ import annotations

from functools import cache
from typing import Any

from django.utils.safestring import SafeString

import engine
from engine.arena.orders import CAPACITY, STEP_TYPES, WEAPON_RANGE
from engine.arena.resolve import BUILD_MS, MOVE_CELL_MS, STEP_MS
from engine.arena.state import DIRECTIONS, PARTS, radar_radius
from games import records
from games.play.arena import board, record, rules, sentences
from games.play.arena.forms import OrdersForm
from games.presentation import Presentation

NAME = "arena"


@cache
def picture() -> SafeString:
    """A sample arena (seed 1, four seats) at its start, drawn whole: it is no match
    anyone plays (a spectator of a running match sees no cell of it)."""
    start = engine.new_game(seed=1, seats=4, ruleset=NAME)
    return board.picture_of(
        {**start, "viewer": None}, label="Robot arena: four robots in the corners among obstacles"
    )


def orders_initial(orders: dict[str, Any]) -> dict[str, Any]:
    """A build already sent (it may be changed until every seat has built): its parts
    ticked. A step is resolved at once, so no step is ever shown as sent."""
    build = orders.get("build")
    if isinstance(build, list):
        return {"parts": [str(p) for p in build]}
    return {}


def planner_hints(view: dict[str, Any]) -> dict[str, Any] | None:
    """What the board script plans from on the viewer's turn: the phase, the parts
    table and capacity (the build), and the viewer's own robot (play). None for a
    spectator."""
    seat = view.get("viewer")
    if seat is None:
        return None
    hints: dict[str, Any] = {
        "seat": seat,
        "phase": view.get("phase"),
        "turn": view.get("turn"),
        "step": view.get("step"),
        "capacity": CAPACITY,
        "parts": {
            name: {"kind": kind, "capacity": cost, "strength": strength}
            for name, (kind, cost, strength) in PARTS.items()
        },
        "directions": list(DIRECTIONS),
        "ranges": dict(WEAPON_RANGE),
    }
    own = next((r for r in view.get("robots") or [] if r.get("seat") == seat), None)
    if own is not None and view.get("phase") != "build":
        parts = list(own.get("parts") or [])
        hints["robot"] = {
            "x": own.get("x"),
            "y": own.get("y"),
            "health": own.get("health"),
            "max_health": own.get("max_health"),
            "steps_left": own.get("steps_left"),
            "shot": own.get("shot"),
            "reload": own.get("reload"),
            "parts": parts,
            "radar": radar_radius(parts),
            "weapons": {w: WEAPON_RANGE[w] for w in parts if w in WEAPON_RANGE},
        }
    return hints


def progress(view: dict[str, Any]) -> str:
    """The arena is counted in rounds: "Round 3 of 40" (the builds come first)."""
    if view.get("phase") == "build":
        return f"Building the robots, then {view.get('rounds')} rounds"
    return f"Round {view.get('round')} of {view.get('rounds')}"


def final_scores(final: dict[str, Any]) -> dict[int, int | float]:
    """The places rank by the health left."""
    return {int(r["seat"]): int(r.get("health", 0)) for r in final.get("robots") or []}


def decided(final: dict[str, Any], names: dict[int, str]) -> str:
    """What decided an arena match (the last robot standing, or the most health left),
    then each seat's build, hidden until the end."""
    return f"{_decider(final, names)} {builds(final)}".strip()


def _decider(final: dict[str, Any], names: dict[int, str]) -> str:
    winners = [int(s) for s in final.get("winners", [])]
    if not winners:
        return "Nobody won."
    who = records.seat_names(winners, names)
    alive = [r for r in final.get("robots") or [] if r.get("alive")]
    if len(alive) == 1:
        return f"{who} won: the last robot standing."
    health = final_scores(final).get(winners[0], 0)
    verb = "won" if len(winners) == 1 else "shared the win"
    return f"{who} {verb} with {health} health left after the last round ({final.get('rounds')})."


def builds(final: dict[str, Any]) -> str:
    """ "Builds: seat 1 engine2, radar1 and gun; seat 2 radar3." from a final state
    (a view without the robots' parts, a running match's, says nothing)."""
    said = []
    for robot in final.get("robots") or []:
        parts = [str(p) for p in robot.get("parts") or []]
        listed = ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else "".join(parts)
        said.append(f"seat {robot.get('seat')} {listed or 'no parts'}")
    return f"Builds: {'; '.join(said)}." if said and final.get("over") else ""


def length() -> str:
    rounds = engine.ruleset(NAME).option("rounds").default
    return f"{rounds} rounds, one seat at a time after a build at once"


PRESENTATION = Presentation(
    name=NAME,
    title=engine.ruleset(NAME).title,
    blurb="Build a robot from engines, radars, shields and weapons, then hunt the others on "
    "a grid you see only through your radar. Scan, move and shoot one step at a time: the "
    "last robot standing wins.",
    board=board.board,
    sentences=sentences.sentences,
    orders_form=OrdersForm,
    orders_note="First build your robot (every seat at once; you may change it until all "
    "have built). Then, on your turn, one step at a time: scan, move, shoot, and end the "
    "turn; each step is resolved at once.",
    orders_initial=orders_initial,
    rules_template="play/arena/rules.html",
    rules_context=rules.rules_context,
    picture=picture,
    legend_template="play/arena/_legend.html",
    planner_script="play/arena/planner.js",
    stylesheet="play/arena/board.css",
    decided=decided,
    seat_records=record.seat_records,
    record_fields=record.FIELDS,
    final_scores=final_scores,
    progress=progress,
    hints=planner_hints,
    timing={"STEP_MS": STEP_MS, "MOVE_CELL_MS": MOVE_CELL_MS, "BUILD_MS": BUILD_MS},
    orders_schema={
        "build": {
            "type": "array",
            "description": "The build phase only (turn 0): the robot's parts, at most one "
            f"of each kind, within a capacity of {CAPACITY}.",
            "items": {"type": "string", "enum": list(PARTS)},
        },
        "step": {
            "type": "object",
            "description": "In play: one step, resolved at once (with step_no).",
            "properties": {
                "type": {"type": "string", "enum": list(STEP_TYPES)},
                "path": {"type": "array", "items": {"type": "string", "enum": list(DIRECTIONS)}},
                "target": {
                    "type": "array",
                    "items": {"type": "integer"},
                    "minItems": 2,
                    "maxItems": 2,
                },
            },
            "required": ["type"],
        },
    },
    place="The arena",
    length=length(),
)
