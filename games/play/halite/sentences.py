"""Halite's events as sentences, for the history, the movie and emails.

A turn of a big map can move a thousand pieces, so the text stays short: events of
one kind are told one by one while a turn has few of them (DETAIL_MAX), and as one
sentence per seat beyond that ("Seat 1 moved 37 pieces"). Eliminations and the end
are always told one by one.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable
from typing import Any

Event = dict[str, Any]

# Events of one kind told one by one up to this many in a turn; past it, per seat.
DETAIL_MAX = 4
DIRECTION_WORDS = {0: "still", 1: "north", 2: "east", 3: "south", 4: "west"}
# The order the sentences of a turn come in: the order the turn happens in.
ORDER = ("move", "merge", "damage", "destroyed", "captured", "eliminated", "over")


def _cell(at: Any) -> str:
    try:
        x, y = at
        return f"({int(x)}, {int(y)})"
    except (TypeError, ValueError):
        return "(?)"


def _plural(n: int, word: str, plural: str | None = None) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {plural or word + 's'}"


def _seats(seats: list[Any]) -> str:
    names = [str(s) for s in seats]
    if not names:
        return "nobody"
    if len(names) == 1:
        return f"seat {names[0]}"
    return "seats " + ", ".join(names[:-1]) + " and " + names[-1]


def _move(e: Event) -> str:
    direction = DIRECTION_WORDS.get(int(e.get("direction") or 0), "somewhere")
    return (
        f"Seat {e.get('seat')} moved {_cell(e.get('from'))} {direction} to "
        f"{_cell(e.get('to'))} with strength {e.get('strength')}."
    )


def _moves(seat: Any, group: list[Event]) -> str:
    total = sum(int(e.get("strength", 0)) for e in group)
    moved = f"Seat {seat} moved {_plural(len(group), 'piece')}"
    return f"{moved} (strength {total} in all)." if total else f"{moved}, all of strength 0."


def _merge(e: Event) -> str:
    text = f"Seat {e.get('seat')}'s pieces merged on {_cell(e.get('at'))} into strength {e.get('strength')}"
    lost = int(e.get("lost", 0))
    return text + (f", {lost} lost over the cap of 255." if lost else ".")


def _merges(seat: Any, group: list[Event]) -> str:
    lost = sum(int(e.get("lost", 0)) for e in group)
    text = f"Seat {seat}'s pieces merged on {_plural(len(group), 'cell')}"
    return text + (f", {lost} strength lost over the cap of 255." if lost else ".")


def _damage(e: Event) -> str:
    return f"Seat {e.get('seat')}'s piece on {_cell(e.get('at'))} took {e.get('damage')} damage."


def _damages(seat: Any, group: list[Event]) -> str:
    total = sum(int(e.get("damage", 0)) for e in group)
    return f"Seat {seat}'s pieces took {total} damage on {_plural(len(group), 'cell')}."


def _destroyed(e: Event) -> str:
    return f"Seat {e.get('seat')}'s piece on {_cell(e.get('at'))} was destroyed."


def _destroyeds(seat: Any, group: list[Event]) -> str:
    return f"Seat {seat} lost {_plural(len(group), 'piece')}."


def _captured(e: Event) -> str:
    owner, previous, at = e.get("owner"), e.get("previous"), _cell(e.get("at"))
    if not owner:
        return f"{at} became neutral again (seat {previous} lost it)."
    if not previous:
        return f"Seat {owner} took {at}."
    return f"Seat {owner} took {at} from seat {previous}."


def _captureds(owner: Any, group: list[Event]) -> str:
    if not owner:
        lost = Counter(e.get("previous") for e in group)
        whose = ", ".join(f"{n} of seat {s}'s" for s, n in sorted(lost.items()))
        return f"{_plural(len(group), 'cell')} became neutral again ({whose})."
    from_whom = Counter(e.get("previous") or 0 for e in group)
    parts = [
        (f"{n} neutral" if s == 0 else f"{n} from seat {s}") for s, n in sorted(from_whom.items())
    ]
    return f"Seat {owner} took {_plural(len(group), 'cell')} ({', '.join(parts)})."


def _eliminated(e: Event) -> str:
    return f"Seat {e.get('seat')} lost its last cell and is out."


def _over(e: Event) -> str:
    winners = list(e.get("winners") or [])
    ranking = list(e.get("ranking") or [])
    text = "The match is over"
    if winners:
        verb = "wins" if len(winners) == 1 else "share the win"
        who = _seats(winners)
        text += f": {who[0].upper()}{who[1:]} {verb}"
    text += "."
    if len(ranking) > 1:
        text += " Ranking: " + ", ".join(str(s) for s in ranking) + "."
    return text


# kind -> (one event, several events of one seat, the field that names the seat)
_TELL: dict[str, tuple[Callable[[Event], str], Callable[[Any, list[Event]], str] | None, str]] = {
    "move": (_move, _moves, "seat"),
    "merge": (_merge, _merges, "seat"),
    "damage": (_damage, _damages, "seat"),
    "destroyed": (_destroyed, _destroyeds, "seat"),
    "captured": (_captured, _captureds, "owner"),
    "eliminated": (_eliminated, None, "seat"),
    "over": (_over, None, "seat"),
}


def _unknown(e: Event) -> str:
    kind = str(e.get("type", "event")).replace("_", " ").capitalize()
    return f"{kind}."


def sentences(events: list[Event]) -> list[str]:
    """One viewer's copy of one turn's events as sentences, in the turn's order."""
    by_kind: dict[str, list[Event]] = defaultdict(list)
    for event in events:
        by_kind[str(event.get("type"))].append(event)
    lines: list[str] = []
    for kind in [*ORDER, *(k for k in by_kind if k not in ORDER)]:
        group = by_kind.get(kind)
        if not group:
            continue
        one, several, key = _TELL.get(kind, (_unknown, None, "seat"))
        if several is None or len(group) <= DETAIL_MAX:
            lines.extend(one(e) for e in group)
            continue
        per_seat: dict[Any, list[Event]] = defaultdict(list)
        for e in group:
            per_seat[e.get(key) or 0].append(e)
        lines.extend(several(seat, per_seat[seat]) for seat in sorted(per_seat))
    return lines
