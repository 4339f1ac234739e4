"""The rows of the match page's two panel tables, the players and the viewer's
robots, and the history's turns, joined here instead of in the template's loops.

The panel is in every first view, every poll that brings a change and the look
after Send; its two loops ran Django's template engine node by node for every
seat and robot (about half of the panel's rendering). The text is the template's
own, byte for byte (tests/games/test_panel_rows.py renders both): each value
written as `{{ value }}` writes it, escaped unless it is safe HTML, a key the dict
lacks writes nothing.
"""

from __future__ import annotations

from typing import Any

from django.utils.safestring import SafeString, mark_safe

from games.html_text import escape
from games.words import number


def _text(value: object) -> str:
    """`{{ value }}` as the template writes it (autoescape on)."""
    html = getattr(value, "__html__", None)
    return str(html()) if html is not None else escape(value)


def _key(row: dict[str, Any], name: str) -> object:
    """`row.name` as the template reads it: a missing key is the empty string."""
    return row.get(name, "")


def seat_rows(
    money: list[dict[str, Any]], view: dict[str, Any] | None, my_number: int | None
) -> SafeString:
    """The players table's rows (`page.money`), as the template's loop wrote them.
    `my_number`: the viewer's seat number (None: a spectator)."""
    view = view or {}
    to_move = view.get("to_move")
    over = view.get("over")
    robots = "robots" in view
    out = []
    for p in money:
        seat = p["seat"]
        mine = my_number is not None and seat == my_number
        n = _text(seat)
        out.append(
            '\n      <tr class="'
            + ("to-move" if seat == to_move and not over else "")
            + (" me" if mine else "")
            + f'" data-seat="{n}">\n'
            f'        <td><svg viewBox="-14 -14 28 28" class="key s{n}" aria-hidden="true">'
            f'<use href="#g-s{n}"/></svg> {n}<span class="to-move-mark"><span class="vh">'
            " (to move)</span> ◀</span></td>\n"
            f"        <td>{_text(p['who'])}"
            + (" (you)" if mine else "")
            + (' <strong class="winner-mark">winner</strong>' if p["winner"] else "")
            + "</td>\n"
            f'        <td class="num money">{_text(number(p["money"]))}</td>\n        '
            + (f'<td class="num robots">{_text(p["robots"])}</td>' if robots else "")
            + "\n      </tr>\n    "
        )
    return mark_safe("".join(out))  # noqa: S308 - every value above is escaped


def robot_rows(robots: list[dict[str, Any]]) -> SafeString:
    """The viewer's robots table's rows (`page.my_robots`), as the template's loop
    wrote them."""
    out = []
    for r in robots:
        state = "active" if r.get("active") else "inactive"
        if r.get("armed"):
            state += f", {_text(r['armed'])} armed"
        if r.get("shield"):
            state += ", shield"
            if r.get("deflect"):
                state += f" {_text(r['deflect'])}"
        robot = _text(_key(r, "id"))
        out.append(
            f'\n        <tr data-robot="{robot}"><td>{robot}</td>'
            f"<td>({_text(_key(r, 'x'))}, {_text(_key(r, 'y'))})</td>\n"
            f"          <td>{state}</td>\n"
            f'          <td class="num">{_text(number(_key(r, "mined")))}</td></tr>\n      '
        )
    return mark_safe("".join(out))  # noqa: S308 - every value above is escaped


def turn_rows(turns: list[dict[str, Any]]) -> SafeString:
    """The history's list items (`page.recent_turns`), as the template's loop wrote
    them; a line for none."""
    if not turns:
        return mark_safe("\n    <li>No turn resolved yet.</li>\n  ")
    out = []
    for t in turns:
        turn = _text(_key(t, "number"))
        seat = f" · seat {_text(t['seat'])}" if t.get("seat") else ""
        out.append(
            f'\n    <li class="turn" data-turn="{turn}">\n'
            f"      <h3>Turn {turn}{seat}\n"
            f'        <button type="button" class="replay-turn" data-turn="{turn}" hidden>'
            f'Replay<span class="vh"> turn {turn}</span></button></h3>\n'
            f"      <ul>{_text(_key(t, 'lines_html'))}</ul>\n    </li>\n  "
        )
    return mark_safe("".join(out))  # noqa: S308 - every value above is escaped
