"""The panel's table of what each Skyport player holds: health, the three resources
and the weapons with their levels, as numbers a phone shows too.

Drawn from the viewer's view only, so it says no more than the view: until every seat
has chosen, the view holds nobody's loadout (the viewer's own choice is in its form),
and the table says the weapons are not known yet."""

from __future__ import annotations

from typing import Any

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from engine.skyport.state import RESOURCES, WEAPONS
from games.play.skyport.board import SEAT_NAMES, SEAT_SHAPES

RESOURCE_SHORT = {"rubidium": "Rb", "explosium": "Ex", "scrap": "Sc"}


def _weapons(player: dict[str, Any]) -> str:
    held = player.get("weapons") or {}
    said = [f"{w} {int(held[w])}" for w in WEAPONS if w in held]
    return ", ".join(said) if said else "—"


def seat_details(view: dict[str, Any]) -> SafeString:
    """The table: a row per player, in seat order."""
    players = sorted(view.get("players") or [], key=lambda p: int(p["seat"]))
    if not players:
        return SafeString("")
    hidden = view.get("phase") == "loadout"
    viewer = view.get("viewer")
    heads = "".join(
        f'<th scope="col"><abbr title="{r}">{RESOURCE_SHORT.get(r, r)}</abbr></th>'
        for r in RESOURCES
    )
    rows = []
    for p in players:
        seat = int(p["seat"])
        who = f"{SEAT_NAMES.get(seat, '')} {SEAT_SHAPES.get(seat, '')}".strip()
        me = ' class="me"' if viewer is not None and seat == viewer else ""
        health = "dead" if p.get("dead") else str(int(p.get("health", 0)))
        held = p.get("resources") or {}
        counts = "".join(f'<td class="num">{int(held.get(r, 0))}</td>' for r in RESOURCES)
        weapons = "not known yet" if hidden else _weapons(p)
        rows.append(
            f'<tr data-seat="{seat}"{me}><th scope="row"><span class="seat-key seat-{seat}" '
            f'aria-hidden="true"></span> {seat}<span class="vh"> ({escape(who)})</span></th>'
            f'<td class="num health">{health}</td>{counts}<td class="weapons">{weapons}</td></tr>'
        )
    note = (
        '<p class="note sp-hidden-note">Every loadout is shown once all seats have chosen.</p>'
        if hidden
        else ""
    )
    return mark_safe(  # noqa: S308 - numbers, the engine's fixed words and escaped text
        '<table class="sp-seats" id="sp-seats"><caption>Robots</caption><thead><tr>'
        '<th scope="col">Seat</th><th scope="col">Health</th>'
        f'{heads}<th scope="col">Weapons</th></tr></thead><tbody>{"".join(rows)}</tbody>'
        f"</table>{note}"
    )
