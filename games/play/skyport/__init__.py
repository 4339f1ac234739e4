"""Skyport on the site: the hex map drawn server-side, its players by colour and
shape, the plain form (a loadout, then up to three actions a turn) that the board
script writes too, the events as sentences and the rules page. Every seat chooses
its loadout at once and nobody sees another's choice until all have chosen (the
engine's view hides it); then seats play one at a time, and nothing is hidden.
The board script plans alone; the page's hints only tell it what the board does not
show: every player's weapons, levels and resources, and the phase."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from django.utils.safestring import SafeString

import engine
from engine.skyport.resolve import LOADOUT_MS, SLOT_MS
from engine.skyport.state import WEAPONS
from games import records
from games.play.skyport import board, panel, record, rules, sentences
from games.play.skyport.forms import ACTION_TYPES, MAX_ACTIONS, OrdersForm
from games.presentation import Presentation

NAME = "skyport"


@cache
def picture() -> SafeString:
    """The map of a sample match (seed 1, four seats) at its start."""
    start = engine.new_game(seed=1, seats=4, ruleset=NAME)
    return board.picture_of(
        engine.view(start, None), label="Skyport: four players on their spawns on a hex map"
    )


def orders_initial(orders: dict[str, Any]) -> dict[str, Any]:
    """The orders already sent, as the plain form's fields and its JSON textarea show
    them (the loadout, chosen at once, may be changed until every seat has chosen)."""
    initial: dict[str, Any] = {}
    loadout = orders.get("loadout")
    if isinstance(loadout, list):
        for n, weapon in enumerate(loadout[:2], start=1):
            initial[f"loadout_{n}"] = weapon
    actions = orders.get("actions")
    if isinstance(actions, list):
        for i, action in enumerate(actions[:MAX_ACTIONS]):
            if not isinstance(action, dict):
                continue
            initial[f"type_{i}"] = action.get("type")
            for key in ("direction", "weapon"):
                if key in action:
                    initial[f"{key}_{i}"] = action[key]
            target = action.get("target")
            if isinstance(target, list) and len(target) == 2:
                initial[f"dj_{i}"], initial[f"dk_{i}"] = target
            sequence = action.get("sequence")
            if isinstance(sequence, list):
                initial[f"sequence_{i}"] = ", ".join(str(s) for s in sequence)
    if initial:
        # The board script starts from the textarea; `sent_json` tells the form that a
        # textarea still showing it was not changed (then the fields win).
        shown = {k: v for k, v in orders.items() if k in ("loadout", "actions")}
        initial["actions_json"] = initial["sent_json"] = json.dumps(shown)
    return initial


def planner_hints(view: dict[str, Any]) -> dict[str, Any] | None:
    """What the board script plans from on the viewer's move, beside the drawn board:
    the phase, the resources left on the tiles and the players (weapons, levels,
    resources, spawns), all of them in the viewer's view. A spectator plans nothing."""
    if view.get("viewer") is None:
        return None
    return {
        "seat": view["viewer"],
        "phase": view.get("phase"),
        "resources": view.get("resources") or {},
        "players": view.get("players") or [],
    }


def progress(view: dict[str, Any]) -> str:
    """Skyport is counted in rounds: "Round 3 of 30" (the loadouts come first)."""
    if view.get("phase") == "loadout":
        return f"Choosing loadouts, then {view.get('rounds')} rounds"
    return f"Round {view.get('round')} of {view.get('rounds')}"


def decided(final: dict[str, Any], names: dict[int, str]) -> str:
    """What decided a Skyport match: the points after the last round."""
    scores = records.final_scores(final)
    winners = [int(s) for s in final.get("winners", [])]
    if not winners:
        return "Nobody won."
    who = records.seat_names(winners, names)
    best = scores.get(winners[0], 0)
    verb = "won" if len(winners) == 1 else "shared the win"
    sentence = f"{who} {verb} with {best} points after the last round ({final.get('rounds')})"
    behind = sorted(
        ((score, seat) for seat, score in scores.items() if seat not in winners), reverse=True
    )
    if behind:
        sentence += f", to seat {behind[0][1]}'s {behind[0][0]}"
    return sentence + "."


def length() -> str:
    rounds = engine.ruleset(NAME).option("rounds").default
    return f"{rounds} rounds, one seat at a time after a loadout chosen at once"


PRESENTATION = Presentation(
    name=NAME,
    title=engine.ruleset(NAME).title,
    blurb="Robots on a map of hexagons choose two of three weapons, then take turns of up "
    "to three actions: move, mine, upgrade and fire. Damage scores points, dying costs "
    "them: the most points after the last round wins.",
    board=board.board,
    sentences=sentences.sentences,
    orders_form=OrdersForm,
    orders_initial=orders_initial,
    rules_template="play/skyport/rules.html",
    rules_context=rules.rules_context,
    picture=picture,
    legend_template="play/skyport/_legend.html",
    planner_script="play/skyport/planner.js",
    stylesheet="play/skyport/board.css",
    decided=decided,
    seat_records=record.seat_records,
    record_fields=record.FIELDS,
    progress=progress,
    seat_details=panel.seat_details,
    hints=planner_hints,
    max_actions=MAX_ACTIONS,
    timing={"SLOT_MS": SLOT_MS, "LOADOUT_MS": LOADOUT_MS},
    orders_schema={
        "loadout": {
            "type": "array",
            "description": "The loadout phase only (turn 0): two different weapons.",
            "items": {"type": "string", "enum": list(WEAPONS)},
            "minItems": 2,
            "maxItems": 2,
        },
        "actions": {
            "type": "array",
            "description": "After the loadout: up to three actions, resolved in order; an "
            "attack (laser, mortar, droid) must be the last.",
            "maxItems": MAX_ACTIONS,
            "items": {
                "type": "object",
                "properties": {
                    "type": {"type": "string", "enum": list(ACTION_TYPES)},
                    "direction": {"type": "string"},
                    "weapon": {"type": "string", "enum": list(WEAPONS)},
                    "target": {
                        "type": "array",
                        "items": {"type": "integer"},
                        "minItems": 2,
                        "maxItems": 2,
                    },
                    "sequence": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["type"],
            },
        },
    },
    place="The map",
    length=length(),
)
