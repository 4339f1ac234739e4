"""When each of a Halite turn's events plays within the turn, in milliseconds (the
board's animation), and the event's shape: a JSON object."""

from __future__ import annotations

from typing import Any

Event = dict[str, Any]

TURN_MS = 800
MOVE_MS, MOVE_DURATION_MS = 0, 300
MERGE_MS, MERGE_DURATION_MS = 300, 100
DAMAGE_MS, DAMAGE_DURATION_MS = 400, 200
DESTROYED_MS, DESTROYED_DURATION_MS = 600, 200
CAPTURED_MS, CAPTURED_DURATION_MS = 600, 200
END_MS = 800
