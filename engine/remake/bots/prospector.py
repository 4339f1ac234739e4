"""`prospector`: mines where the helium is richest and keeps clear of trouble.

Each of its vehicles in turn, on the board the previous ones leave:
- with a missile armed and an enemy vehicle in range, it fires at the richest one;
- otherwise it mines the best 3x3 within a mine's reach of 2, if any pays;
- otherwise it drives (up to 5) toward the cell where mining pays best for the
  distance, away from enemies' blast range, and claims that cell so that its other
  vehicles go elsewhere;
- with nothing left to mine, it arms a missile and hunts.
It sees only its seat's view (no opponents' shields).
"""

from __future__ import annotations

from random import Random

from engine.helium3.board import box_sums, cheb
from engine.helium3.state import Robot
from engine.remake.moves import reachable
from engine.remake.orders import MISSILE_RANGE, MOVE_RANGE, Action, Cell, Orders
from engine.remake.resolve import MINE_PER_CELL, Turn
from engine.remake.state import State


def mine_yields(turn: Turn) -> list[int]:
    """What one `mine` takes now on each cell (row-major): MINE_PER_CELL for each cell
    of the 3 x 3 around it that holds at least that much."""
    full = [MINE_PER_CELL if v >= MINE_PER_CELL else 0 for v in turn.state.helium]
    return box_sums(full, turn.width, turn.height)


# A kamikaze reaches distance 1; one cell more keeps a vehicle clear of an enemy that
# steps next to it first.
BLAST_MARGIN = 2


def _danger(cell: Cell, enemies: list[Robot]) -> int:
    """How many enemy vehicles stand close enough to blast this cell soon."""
    x, y = cell
    return sum(1 for e in enemies if cheb(e.x, e.y, x, y) <= BLAST_MARGIN)


def choose(state: State, seat: int, rng: Random) -> Orders:
    turn = Turn(state)
    robots = turn.state.robots
    mine = [i for i, r in enumerate(robots) if r.seat == seat and r.alive]
    actions: list[Action] = []
    claimed: set[Cell] = set()
    for i in mine:
        robot = robots[i]
        if not robot.alive:
            continue
        action = _plan(turn, robot, claimed, rng)
        if action is None:
            continue
        turn.perform(action, i, turn.check(action, i, len(actions)))
        actions.append(action)
    return Orders(seat, state.turn, tuple(actions))


def _plan(turn: Turn, robot: Robot, claimed: set[Cell], rng: Random) -> Action | None:
    enemies = [r for r in turn.state.robots if r.alive and r.seat != robot.seat]
    if robot.armed == "missile":
        targets = [e for e in enemies if 1 <= cheb(e.x, e.y, robot.x, robot.y) <= MISSILE_RANGE]
        if targets:
            best = max(targets, key=lambda e: (e.mined, -cheb(e.x, e.y, robot.x, robot.y)))
            return Action(robot.id, "fire_missile", target=(best.x, best.y))
    near = reachable(turn, robot, MOVE_RANGE["mine"])
    yields = mine_yields(turn)
    w = turn.width
    best_cell: Cell | None = None
    best_key: tuple[int, int, int] = (0, 0, 0)
    for cell, d in near.items():
        if cell in claimed:
            continue
        gain = yields[cell[1] * w + cell[0]]
        key = (gain, -_danger(cell, enemies), -d)
        if gain and key > best_key:
            best_cell, best_key = cell, key
    if best_cell is not None:
        claimed.add(best_cell)
        here = (robot.x, robot.y)
        return Action(robot.id, "mine", to=None if best_cell == here else best_cell)
    goal = _goal(turn, robot, claimed, yields)
    if goal is None:
        if robot.armed is None:
            return Action(robot.id, "arm_missile")
        return _hunt(turn, robot, enemies)
    claimed.add(goal)
    far = reachable(turn, robot, MOVE_RANGE["move"])
    step = min(
        far,
        key=lambda c: (cheb(c[0], c[1], *goal), _danger(c, enemies), far[c]),
    )
    if step == (robot.x, robot.y):
        return None
    return Action(robot.id, "move", to=step)


def _goal(turn: Turn, robot: Robot, claimed: set[Cell], yields: list[int]) -> Cell | None:
    """The cell where mining pays best for the turns it takes to get there (`yields`:
    `mine_yields` of the board now)."""
    best: Cell | None = None
    best_score = 0.0
    w = turn.width
    occ = turn.occ
    for y in range(turn.height):
        for x in range(w):
            if (x, y) in claimed or (y * w + x in occ and (x, y) != (robot.x, robot.y)):
                continue
            gain = yields[y * w + x]
            if not gain:
                continue
            # Drive (5 a turn) until a mine's own move of 2 reaches the cell, then mine.
            drive = max(0, cheb(robot.x, robot.y, x, y) - MOVE_RANGE["mine"])
            turns = 1 + -(-drive // MOVE_RANGE["move"])
            score = gain / turns
            if score > best_score:
                best, best_score = (x, y), score
    return best


def _hunt(turn: Turn, robot: Robot, enemies: list[Robot]) -> Action | None:
    if not enemies:
        return None
    prey = min(enemies, key=lambda e: cheb(e.x, e.y, robot.x, robot.y))
    far = reachable(turn, robot, MOVE_RANGE["arm_missile"])
    step = min(far, key=lambda c: (abs(cheb(c[0], c[1], prey.x, prey.y) - MISSILE_RANGE), far[c]))
    return Action(robot.id, "arm_missile", to=None if step == (robot.x, robot.y) else step)
