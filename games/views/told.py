"""When a movie's caption tells each line of a turn: as the events it tells play,
never before. A turn's sentences may tell several events in one line (a missile
and the robot it destroyed); such a line is told once the last of its events has
started, and the match's end after the turn's last animation."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

# The event types that end a match, in the games hosted: told after the last animation.
ENDINGS = frozenset({"match_over", "over"})


def told(
    sentences: Callable[[list[dict[str, Any]]], list[str]], events: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """[{"t_ms": when, "line": words}] for the turn's lines, in order; `t_ms` is None
    for a line told at the turn's end (the match's end). A line is told at the
    earliest prefix of the events (ordered by t_ms) whose sentences hold it."""
    ordered = sorted(events, key=lambda e: int(e.get("t_ms") or 0))
    lines = sentences(ordered)
    out: list[dict[str, Any]] = []
    left = list(lines)
    for j in range(1, len(ordered) + 1):
        if not left:
            break
        now = sentences(ordered[:j])
        ending = ordered[j - 1].get("type") in ENDINGS
        for line in [x for x in left if x in now]:
            left.remove(line)
            out.append(
                {"t_ms": None if ending else int(ordered[j - 1].get("t_ms") or 0), "line": line}
            )
    out.extend({"t_ms": None, "line": line} for line in left)
    # In the order the turn's sentences tell them.
    rank = {line: i for i, line in enumerate(lines)}
    out.sort(key=lambda x: rank.get(x["line"], len(rank)))
    return out
