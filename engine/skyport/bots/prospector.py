"""`prospector`: mines toward upgrades and shoots whenever an enemy is in reach.

- Loadout: the two weapons that score best by what they do at level 1 and by how much of
  their resource lies near the seat's spawn.
- A turn: first every way to attack this turn (now, or after up to two moves or
  upgrades) is weighed by the points it brings (damage dealt, 20 more for a kill, the
  bonus of the actions left unused; less what it costs the bot's own health); the best
  one with a hit on an enemy is played.
- Otherwise the bot upgrades what it can pay for, mines the tile it stands on when it
  needs that resource, and walks to the nearest tile of a resource it needs (toward the
  nearest enemy once nothing is needed); it never ends a turn on its spawn, and when hurt
  it prefers a step that keeps it away from healthier enemies.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from random import Random

from engine.skyport.bots.board import (
    AREA,
    DAMAGE,
    RANGE,
    RESOURCE_AT,
    RESOURCE_OF,
    Action,
    Board,
    Me,
    Player,
)
from engine.skyport.hexgrid import DIRECTIONS, Tile, distance, step
from engine.skyport.orders import ACTIONS_PER_TURN
from engine.skyport.resolve import BLOCKING, UPGRADE_COST, damage
from engine.skyport.state import WEAPONS

# What a weapon is worth to the loadout before its resources are counted: the mortar
# aims anywhere in reach over anything, the droid walks around obstacles, the laser
# reaches far but only along six lines.
WEAPON_WORTH = {"mortar": 3.0, "droid": 2.5, "laser": 2.0}
KILL_POINTS = 20
DEATH_POINTS = 40
# Health at or below which the bot keeps away from healthier enemies when a step allows.
HURT = 50
# How near a healthier enemy must be to count as a threat (it may move, then shoot).
THREAT_DISTANCE = 4


def loadout(board: Board, seat: int, rng: Random) -> list[str]:
    spawn = board.players[seat].spawn
    near = dict.fromkeys(RESOURCE_OF.values(), 0.0)
    for at, count in board.resources.items():
        resource = RESOURCE_AT.get(board.tile(at))
        if resource is not None:
            near[resource] += count / (1 + distance(spawn, at))
    total = sum(near.values()) or 1.0
    worth = {w: WEAPON_WORTH[w] + near[RESOURCE_OF[w]] / total for w in WEAPONS}
    return sorted(WEAPONS, key=lambda w: (-worth[w], WEAPONS.index(w)))[:2]


# -- attacks ------------------------------------------------------------------------------


def _enemies(board: Board, seat: int) -> list[Player]:
    """Other players a shot can hurt: alive and off their spawn."""
    return [p for p in board.players.values() if p.seat != seat and not p.dead and p.at != p.spawn]


def _hit_value(me: Me, hits: list[tuple[Player, int]]) -> tuple[float, bool]:
    """Points a shot brings (its cost to the bot's own health counted against it) and
    whether it touches an enemy."""
    value = 0.0
    enemy = False
    for player, amount in hits:
        if player.seat == me.seat:
            value -= amount / 2
            if player.health - amount <= 0:
                value -= DEATH_POINTS + KILL_POINTS
        else:
            enemy = True
            value += amount
            if player.health - amount <= 0:
                value += KILL_POINTS
    return value, enemy


@dataclass(slots=True)
class Shots:
    """What the search for this turn's best shot reads again and again: the enemies a
    shot can hurt, the tiles whose blast touches one, and the droid's walks by start."""

    board: Board
    enemies: list[Player]
    near: set[Tile]
    walks: dict[tuple[Tile, int], dict[Tile, list[str]]] = field(default_factory=dict)

    @classmethod
    def of(cls, board: Board, seat: int) -> Shots:
        enemies = _enemies(board, seat)
        near = {p.at for p in enemies}
        near.update(step(p.at, d) for p in enemies for d in DIRECTIONS)
        return cls(board, enemies, near)

    def within(self, at: Tile, reach: int) -> bool:
        """Whether an enemy stands within `reach` of `at`."""
        return any(distance(at, p.at) <= reach for p in self.enemies)

    def droid_walks(self, start: Tile, reach: int) -> dict[Tile, list[str]]:
        key = (start, reach)
        if key not in self.walks:
            self.walks[key] = _droid_walks(self.board, start, reach)
        return self.walks[key]


def _blast(
    shots: Shots, me: Me, at: Tile, main: int, area: int, unused: int
) -> list[tuple[Player, int]]:
    """Who a blast on `at` hurts, and how much (the shooter, off its spawn, included)."""
    hits = []
    for p in [*shots.enemies, shots.board.players[me.seat]]:
        where = me.at if p.seat == me.seat else p.at
        if where == at:
            hits.append((p, damage(main, 0, unused)))
        elif distance(where, at) == 1:
            hits.append((p, damage(0, area, unused)))
    return hits


def _laser(shots: Shots, me: Me, unused: int) -> list[tuple[float, Action]]:
    level = me.weapons["laser"]
    reach = RANGE["laser"][level]
    if not shots.within(me.at, reach):
        return []
    amount = damage(DAMAGE["laser"][level], 0, unused)
    at_of = {p.at: p for p in shots.enemies}
    board = shots.board
    out = []
    for direction in DIRECTIONS:
        tile = me.at
        hits: list[tuple[Player, int]] = []
        for _ in range(reach):
            tile = step(tile, direction)
            if not board.on_map(tile) or board.tile(tile) == "O":
                break
            if tile in at_of:
                hits.append((at_of[tile], amount))
        value, enemy = _hit_value(me, hits)
        if enemy:
            out.append((value, {"type": "laser", "direction": direction}))
    return out


def _mortar(shots: Shots, me: Me, unused: int) -> list[tuple[float, Action]]:
    level = me.weapons["mortar"]
    reach, main = RANGE["mortar"][level], DAMAGE["mortar"][level]
    if not shots.within(me.at, reach + 1):
        return []
    board = shots.board
    out = []
    for at in shots.near:
        if distance(me.at, at) > reach or not board.on_map(at) or board.tile(at) in BLOCKING:
            continue
        value, enemy = _hit_value(me, _blast(shots, me, at, main, AREA["mortar"], unused))
        if enemy:
            offset = [at[0] - me.at[0], at[1] - me.at[1]]
            out.append((value, {"type": "mortar", "target": offset}))
    return out


def _droid_walks(board: Board, start: Tile, reach: int) -> dict[Tile, list[str]]:
    """The tiles a droid can end its walk on, each with a shortest walk there."""
    walks: dict[Tile, list[str]] = {start: []}
    queue = deque([start])
    size, tiles = board.size, board.tiles
    steps = tuple(DIRECTIONS.items())
    while queue:
        at = queue.popleft()
        walk = walks[at]
        if len(walk) == reach:
            continue
        j, k = at
        for direction, (dj, dk) in steps:
            nj, nk = j + dj, k + dk
            nxt = (nj, nk)
            # board.on_map and board.tile, inline
            if nxt in walks or not (0 <= nj < size and 0 <= nk < size):
                continue
            if tiles[nj][nk] in BLOCKING:
                continue
            walks[nxt] = [*walk, direction]
            queue.append(nxt)
    return walks


def _droid(shots: Shots, me: Me, unused: int) -> list[tuple[float, Action]]:
    level = me.weapons["droid"]
    main, reach = DAMAGE["droid"][level], RANGE["droid"][level]
    if not shots.within(me.at, reach + 1):
        return []
    walks = shots.droid_walks(me.at, reach)
    out = []
    for at in shots.near:
        walk = walks.get(at)
        if walk is None:
            continue
        value, enemy = _hit_value(me, _blast(shots, me, at, main, AREA["droid"], unused))
        if enemy:
            out.append((value, {"type": "droid", "sequence": walk}))
    return out


SHOOTERS = {"laser": _laser, "mortar": _mortar, "droid": _droid}


def _reach(me: Me) -> int:
    """How far from its tile the bot can hurt anyone this turn, moves included."""
    longest = max(RANGE[w][level] for w, level in me.weapons.items())
    return longest + 1 + ACTIONS_PER_TURN - 1


def best_attack(board: Board, me: Me) -> tuple[float, list[Action]] | None:
    """The attack worth the most points this turn, with the moves or upgrades before it;
    None when no attack touches an enemy."""
    shots = Shots.of(board, me.seat)
    if not shots.within(me.at, _reach(me)):
        return None
    best: tuple[float, list[Action]] | None = None

    def search(current: Me, before: list[Action]) -> None:
        nonlocal best
        if current.can_attack():
            unused = ACTIONS_PER_TURN - len(before) - 1
            for weapon in current.weapons:
                for value, action in SHOOTERS[weapon](shots, current, unused):
                    if best is None or value > best[0]:
                        best = (value, [*before, action])
        if len(before) == ACTIONS_PER_TURN - 1:
            return
        options: list[Action] = [{"type": "upgrade", "weapon": w} for w in current.upgradable()]
        options += [{"type": "move", "direction": d} for d in current.legal_moves()]
        for action in options:
            after = current.copy()
            after.do(action)
            search(after, [*before, action])

    search(me, [])
    return best


# -- mining and walking --------------------------------------------------------------------


def _needed(me: Me) -> set[str]:
    """Resources the bot still needs for its next upgrades."""
    need: dict[str, int] = {}
    for weapon, level in me.weapons.items():
        resource = RESOURCE_OF[weapon]
        cost = sum(UPGRADE_COST[n] for n in range(level, 3))
        need[resource] = need.get(resource, 0) + cost
    return {r for r, n in need.items() if n > me.resources.get(r, 0)}


def _distances(board: Board, me: Me, goals: set[Tile]) -> dict[Tile, int]:
    """Steps from each tile the bot can walk on to the nearest goal (multi-source BFS)."""
    dist = {g: 0 for g in goals}
    queue = deque(goals)
    while queue:
        at = queue.popleft()
        for direction in DIRECTIONS:
            nxt = step(at, direction)
            if nxt in dist or not (me.can_enter(nxt) or nxt == me.at):
                continue
            dist[nxt] = dist[at] + 1
            queue.append(nxt)
    return dist


def _goals(board: Board, me: Me) -> set[Tile]:
    need = _needed(me)
    goals = {
        at
        for at, count in board.resources.items()
        if count > 0
        and RESOURCE_AT.get(board.tile(at)) in need
        and (at == me.at or at not in me.others)
    }
    if goals:
        return goals
    # Nothing left to mine: go where the enemies are.
    return {
        step(p.at, d)
        for p in board.players.values()
        if p.seat != me.seat and not p.dead
        for d in DIRECTIONS
    }


def _threatened(board: Board, me: Me, at: Tile, health: int) -> bool:
    return any(
        p.seat != me.seat
        and not p.dead
        and p.health > health
        and distance(p.at, at) <= THREAT_DISTANCE
        for p in board.players.values()
    )


def economy(board: Board, me: Me) -> list[Action]:
    health = board.players[me.seat].health
    hurt = health <= HURT
    actions: list[Action] = []
    dist: dict[Tile, int] | None = None
    while len(actions) < ACTIONS_PER_TURN:
        last = len(actions) == ACTIONS_PER_TURN - 1
        upgrades = me.upgradable()
        if last and me.at == me.spawn:
            upgrades = []  # the last action steps off the spawn, if any step is free
        if upgrades:
            weapon = max(upgrades, key=lambda w: (me.weapons[w], -WEAPONS.index(w)))
            action: Action = {"type": "upgrade", "weapon": weapon}
            dist = None  # what it needs has changed
        elif me.can_mine() and RESOURCE_AT[board.tile(me.at)] in _needed(me):
            action = {"type": "mine"}
            dist = None
        else:
            moves = me.legal_moves()
            if not moves:
                break
            if dist is None:
                dist = _distances(board, me, _goals(board, me))
            action = {"type": "move", "direction": _toward(board, me, moves, dist, hurt)}
        actions.append(action)
        me.do(action)
    if not actions:
        actions = _harmless_shot(me)
    return actions


def _harmless_shot(me: Me) -> list[Action]:
    """A shot that hurts no one, for a bot boxed in with nothing to mine or pay for: a
    turn with no action costs 10 points (an enemy in reach was shot at already)."""
    if not me.can_attack():
        return []
    if "laser" in me.weapons:
        return [{"type": "laser", "direction": next(iter(DIRECTIONS))}]
    if "mortar" in me.weapons:
        # Two tiles away its blast cannot reach the shooter.
        for dj, dk in me.mortar_targets():
            if distance((0, 0), (dj, dk)) == 2:
                return [{"type": "mortar", "target": [dj, dk]}]
    return []


DIRECTIONS_ORDER = {d: n for n, d in enumerate(DIRECTIONS)}


def _toward(board: Board, me: Me, moves: list[str], dist: dict[Tile, int], hurt: bool) -> str:
    """The step nearest the goal; when hurt, a step near a healthier enemy counts as
    three steps more."""
    far = len(dist) + 1
    health = board.players[me.seat].health

    def cost(direction: str) -> tuple[int, int]:
        to = step(me.at, direction)
        danger = hurt and _threatened(board, me, to, health)
        return (dist.get(to, far) + 3 * danger, DIRECTIONS_ORDER[direction])

    return min(moves, key=cost)


def play(board: Board, seat: int, rng: Random) -> list[Action]:
    me = Me.of(board, seat)
    attack = best_attack(board, me)
    if attack is not None:
        return attack[1]
    return economy(board, me)
