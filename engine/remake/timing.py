"""The remake's animation timeline uses Helium 3's constants unchanged (docs/games/remake.md:
"the animation timeline" as in docs/games/helium3.md); a `deflect`, like a shield,
costs no time and turns nothing."""

from engine.helium3.timing import (
    ABSORBED_MS,
    ARM_MS,
    BLAST_MS,
    DEFLECTED_MS,
    DESTROYED_MS,
    KAMIKAZE_MS,
    LASER_CELL_MS,
    MIN_TURN_MS,
    MINE_MS,
    MISSILE_CELL_MS,
    SHIELD_MS,
    STEP_MS,
    TURN_STEP_MS,
)

DEFLECT_MS = SHIELD_MS

__all__ = [
    "ABSORBED_MS", "ARM_MS", "BLAST_MS", "DEFLECTED_MS", "DEFLECT_MS", "DESTROYED_MS",
    "KAMIKAZE_MS", "LASER_CELL_MS", "MINE_MS", "MIN_TURN_MS", "MISSILE_CELL_MS",
    "SHIELD_MS", "STEP_MS", "TURN_STEP_MS",
]  # fmt: skip
