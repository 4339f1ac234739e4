"""`random`: two different weapons drawn at random; each turn one to three actions, each
drawn among those the rules allow in the position the previous ones leave: first a
kind (move, mine, upgrade, laser, mortar, droid), then its direction, weapon, target or
walk. An attack ends the turn, as the rules say."""

from __future__ import annotations

from random import Random

from engine.skyport.bots.board import RANGE, Action, Board, Me
from engine.skyport.hexgrid import DIRECTIONS
from engine.skyport.orders import ACTIONS_PER_TURN
from engine.skyport.state import WEAPONS


def loadout(board: Board, seat: int, rng: Random) -> list[str]:
    return rng.sample(WEAPONS, 2)


def _draw(me: Me, rng: Random) -> Action | None:
    """One action the rules allow now, or None when there is none."""
    kinds: list[str] = []
    moves = me.legal_moves()
    if moves:
        kinds.append("move")
    if me.can_mine():
        kinds.append("mine")
    upgrades = me.upgradable()
    if upgrades:
        kinds.append("upgrade")
    if me.can_attack():
        kinds.extend(w for w in WEAPONS if w in me.weapons)
    if not kinds:
        return None
    kind = rng.choice(kinds)
    if kind == "move":
        return {"type": "move", "direction": rng.choice(moves)}
    if kind == "mine":
        return {"type": "mine"}
    if kind == "upgrade":
        return {"type": "upgrade", "weapon": rng.choice(upgrades)}
    if kind == "laser":
        return {"type": "laser", "direction": rng.choice(list(DIRECTIONS))}
    if kind == "mortar":
        dj, dk = rng.choice(me.mortar_targets())
        return {"type": "mortar", "target": [dj, dk]}
    steps = rng.randint(1, RANGE["droid"][me.weapons["droid"]])
    return {"type": "droid", "sequence": [rng.choice(list(DIRECTIONS)) for _ in range(steps)]}


def play(board: Board, seat: int, rng: Random) -> list[Action]:
    me = Me.of(board, seat)
    actions: list[Action] = []
    for _ in range(rng.randint(1, ACTIONS_PER_TURN)):
        action = _draw(me, rng)
        if action is None:
            break
        actions.append(action)
        if action["type"] in WEAPONS:
            break
        me.do(action)
    return actions
