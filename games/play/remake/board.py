"""The remake's board: Helium 3's moon and its SVG (the same 20 x 20 grid, spawns and
pieces), drawn with the remake's words. Its vehicles are all active from the start
(there is no inactive immunity, so none is drawn faded or called immune), and a
deflect shows as an arrow on the shield of the viewer's own vehicles only, because
only the viewer's own view carries it (an opponent's shield and deflect are not in
the view at all; once the match is over every view holds them).
"""

from __future__ import annotations

from typing import Any

from django.utils.safestring import SafeString

from games.play.helium3.board import destroyed_robots, render_board, render_picture

NOUN = "vehicle"

__all__ = ["board", "destroyed_robots", "picture_of"]


def board(view: dict[str, Any], *, caption: str = "") -> SafeString:
    return render_board(view, caption=caption, noun=NOUN, immunity=False)


def picture_of(view: dict[str, Any]) -> SafeString:
    return render_picture(view, label="The remake's moon: helium hotspots, five vehicles a seat")
