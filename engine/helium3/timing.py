"""Animation timing: the only source of `t_ms` / `duration_ms` and of the battle clock.

Calibrated (see docs/games/helium3.md) so that a 10-minute battle gives each of four players
about 20 turns, as the public implementation plays: an average turn of about 7.5 s.
"""

TURN_STEP_MS = 300
"""Turning 45 degrees; a robot turns before it moves or fires, skipped if it already faces."""
STEP_MS = 1000
"""One king step along a path."""
MINE_MS = 2000
ARM_MS = 1500
SHIELD_MS = 0
"""Raising a shield costs nothing visible: the timeline cannot tell it from a move."""
MISSILE_CELL_MS = 150
"""Missile flight per cell of Chebyshev distance."""
BLAST_MS = 1000
LASER_CELL_MS = 50
"""The beam's front per cell travelled (deflections included)."""
KAMIKAZE_MS = 1500
DESTROYED_MS = 1000
ABSORBED_MS = 500
DEFLECTED_MS = 300
MIN_TURN_MS = 5000
"""A turn costs at least this much battle time, a pass included."""
