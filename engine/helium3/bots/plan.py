"""What the planning bots share: the board read as mining yields, travel potential and
danger; options scored as what they gain over leaving the robot idle; the turn loop.

A planning bot sees only `api.masked(state, seat)`: opponents' shields are unknown to
it, so it treats every opponent as unshielded. It plans the second action on the board
as the first leaves it (`resolve.Turn`), so its orders are legal by construction; the
loop still runs `Turn.check` on each action, so an illegal choice would raise here
rather than become a rejected turn.

Scores are in helium: what mining brings, what a hit costs (half of what the robot
mined, which its owner loses, plus `ROBOT_VALUE` for the robot), weighed by a rough
chance that the danger is real. To stay fast, each robot first gets an upper bound on
what it could score; robots are examined best bound first and the search stops when
no bound can beat the best option found.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import compress
from operator import add, ne

from engine.helium3.board import DELTAS, box_sums
from engine.helium3.orders import MAX_ACTIONS, MISSILE_RANGE, MOVE_RANGE, Action, Cell, Orders
from engine.helium3.resolve import MINE_AROUND, MINE_CENTRE, WEAPON_ACTIONS, Turn
from engine.helium3.state import Robot, State

ROBOT_VALUE = 1000
"""What losing a robot costs beyond its drop: the mining it will not do."""
KAMIKAZE_THREAT = 0.15
"""Chance-like weight of standing next to an opponent's robot (it may blow itself up)."""
ARMED_THREAT = 0.35
"""Weight of standing where an opponent's armed missile or laser can reach."""
SHIELD_COVER = 0.7
"""How much of the danger a raised shield takes away (it absorbs one hit)."""
TRAVEL_DECAY = 0.88
"""Travel potential: helium `d` cells away is worth `TRAVEL_DECAY ** d` of it here."""
TRAVEL_WEIGHT = 0.5
"""A move towards helium is worth this share of the potential where it ends."""
STEP_COST = 4
"""A tie-breaker per cell walked: shorter moves, and calmer animations."""
CROWD_COST = 150
"""Ending next to one of our own active robots: one blast or beam could take both."""
REACH = MOVE_RANGE["move"]
MINE_REACH = MOVE_RANGE["mine"]

OPPOSITE = {"N": "S", "NE": "SW", "E": "W", "SE": "NW", "S": "N", "SW": "NE", "W": "E", "NW": "SE"}


@dataclass(slots=True)
class Option:
    """A candidate action and how much better it is than leaving its robot idle."""

    score: float
    action: Action
    index: int


def better(current: Option | None, score: float, make: Callable[[], Action], i: int) -> Option:
    """`current`, or a new option if `score` beats it (the first found wins a tie)."""
    if current is None or score > current.score:
        return Option(score, make(), i)
    return current


def mining_yields(helium: Sequence[int], w: int, h: int) -> list[int]:
    """Helium a `mine` would take standing on each cell: min(500, centre) + min(250, ring)."""
    cap = [v if v < MINE_AROUND else MINE_AROUND for v in helium]
    centre = [(v if v < MINE_CENTRE else MINE_CENTRE) - k for v, k in zip(helium, cap, strict=True)]
    return list(map(add, box_sums(cap, w, h), centre))


def update_yields(yields: list[int], old: list[int], new: list[int], w: int, h: int) -> None:
    """Bring `yields` from helium `old` to helium `new`, recomputing only the cells next
    to a cell whose helium changed."""
    dirty: set[int] = set()
    if len(old) != len(new):
        raise ValueError("the two helium grids differ in size")
    for c in compress(range(len(new)), map(ne, old, new)):  # the changed cells, found in C
        x, y = c % w, c // w
        for ny in range(max(0, y - 1), min(h, y + 2)):
            dirty.update(range(ny * w + max(0, x - 1), ny * w + min(w, x + 2)))
    for c in dirty:
        x, y = c % w, c // w
        total = 0
        for ny in range(max(0, y - 1), min(h, y + 2)):
            for n in range(ny * w + max(0, x - 1), ny * w + min(w, x + 2)):
                v = new[n]
                if n == c:
                    total += v if v < MINE_CENTRE else MINE_CENTRE
                else:
                    total += v if v < MINE_AROUND else MINE_AROUND
        yields[c] = total


def travel_potential(yields: Sequence[int], w: int, h: int) -> list[float]:
    """max over cells t of yields[t] * TRAVEL_DECAY ** cheb(c, t), for every cell c.

    The two raster passes of a chamfer transform give the exact Chebyshev distance on
    the eight-connected grid; each pass takes the row before (or after) as a whole,
    then sweeps along the row.
    """
    g = TRAVEL_DECAY
    rows = [[float(v) for v in yields[y * w : y * w + w]] for y in range(h)]
    for order, sweep in ((range(h), range(1, w)), (range(h - 1, -1, -1), range(w - 2, -1, -1))):
        prev: list[float] | None = None
        step = 1 if sweep.step > 0 else -1
        for y in order:
            row = rows[y]
            if prev is not None:
                near = [g * v for v in prev]
                row = list(map(max, row, near, [0.0, *near[:-1]], [*near[1:], 0.0]))
            for x in sweep:
                carried = g * row[x - step]
                if carried > row[x]:
                    row[x] = carried
            rows[y] = prev = row
    return [v for row in rows for v in row]


BLOCK = 4
DECAY_POWERS = [TRAVEL_DECAY**k for k in range(2 * 64)]


def block_maxima(yields: Sequence[int], w: int, h: int) -> list[tuple[int, int, int, int, int]]:
    """The board cut into BLOCK x BLOCK squares: (x0, x1, y0, y1, largest yield) each,
    so that a robot's best travel potential can be bounded without computing it."""
    out = []
    for y0 in range(0, h, BLOCK):
        y1 = min(h, y0 + BLOCK) - 1
        for x0 in range(0, w, BLOCK):
            x1 = min(w, x0 + BLOCK) - 1
            top = max(max(yields[y * w + x0 : y * w + x1 + 1]) for y in range(y0, y1 + 1))
            if top:
                out.append((x0, x1, y0, y1, top))
    return out


@dataclass(slots=True)
class Reading:
    """What the board's helium gives before any action: the mining yields (never
    changed: a plan copies them), their block maxima, and the travel potential once a
    bot has needed it."""

    yields: list[int]
    blocks: list[tuple[int, int, int, int, int]]
    potential: list[float] | None = None
    # Plan.travel_bound by cell: it reads only the blocks.
    bounds: dict[int, float] = field(default_factory=dict)

    def travel(self, w: int, h: int) -> list[float]:
        if self.potential is None:
            self.potential = travel_potential(self.yields, w, h)
        return self.potential


@lru_cache(maxsize=16)
def reading(helium: tuple[int, ...], w: int, h: int) -> Reading:
    """The reading of a board of this helium, kept for the turns that follow: helium
    changes only where a robot mines, so the next seats' turns often find the same
    board, and the yields and the potential are the dearest part of a plan."""
    yields = mining_yields(helium, w, h)
    return Reading(yields, block_maxima(yields, w, h))


_NEIGHBOURS: dict[tuple[int, int], list[tuple[int, ...]]] = {}


def neighbours(w: int, h: int) -> list[tuple[int, ...]]:
    """For each cell index, the indexes of its (up to eight) neighbours on the board."""
    table = _NEIGHBOURS.get((w, h))
    if table is None:
        table = [
            tuple(
                (y + ey) * w + x + ex
                for ex, ey in DELTAS.values()
                if 0 <= x + ex < w and 0 <= y + ey < h
            )
            for y in range(h)
            for x in range(w)
        ]
        _NEIGHBOURS[(w, h)] = table
    return table


def reach_from(start: int, occ: Container[int], w: int, h: int, limit: int) -> dict[int, int]:
    """Every cell (as an index) a robot on `start` can end a walk of up to `limit` king
    steps on, over cells free of robots, with its distance: `moves.reachable` on flat
    indexes, level by level, which is what makes the bots fast enough."""
    table = neighbours(w, h)
    dist = {start: 0}
    frontier = [start]
    for d in range(1, limit + 1):
        found = []
        for c in frontier:
            for n in table[c]:
                if n not in dist and n not in occ:
                    dist[n] = d
                    found.append(n)
        if not found:
            break
        frontier = found
    return dist


def box_max(values: list[int] | list[float], w: int, h: int, x: int, y: int, r: int) -> float:
    """The largest value within Chebyshev distance r of (x, y)."""
    x0, x1 = max(0, x - r), min(w, x + r + 1)
    return max(
        max(values[row * w + x0 : row * w + x1]) for row in range(max(0, y - r), min(h, y + r + 1))
    )


def value(r: Robot, more: int = 0) -> float:
    """What a hit on r costs its owner: half of what it mined, and the robot."""
    return (r.mined + more) / 2 + ROBOT_VALUE


def reserve_index(state: State, seat: int) -> int | None:
    """Our last inactive robot, if only one is left: it never acts, so it cannot be
    destroyed and the seat is never eliminated."""
    idle = [i for i, r in enumerate(state.robots) if r.seat == seat and r.alive and not r.active]
    return idle[0] if len(idle) == 1 else None


def threat_map(state: State, seat: int) -> tuple[list[float], dict[int, str]]:
    """Danger per cell from opponents' robots as they stand, and for cells on an armed
    laser's line the direction back to it (a deflect that way returns the beam)."""
    w, h = state.width, state.height
    threat = [0.0] * (w * h)
    laser_from: dict[int, str] = {}
    for r in state.robots:
        if not r.alive or r.seat == seat:
            continue
        for ex, ey in DELTAS.values():
            nx, ny = r.x + ex, r.y + ey
            if 0 <= nx < w and 0 <= ny < h:
                threat[ny * w + nx] += KAMIKAZE_THREAT
        if r.armed == "missile":
            reach = MISSILE_RANGE
            x0, x1 = max(0, r.x - reach), min(w, r.x + reach + 1)
            for y in range(max(0, r.y - reach), min(h, r.y + reach + 1)):
                for c in range(y * w + x0, y * w + x1):
                    threat[c] += ARMED_THREAT
        elif r.armed == "laser":
            for name, (ex, ey) in DELTAS.items():
                x, y = r.x + ex, r.y + ey
                while 0 <= x < w and 0 <= y < h:
                    c = y * w + x
                    threat[c] += ARMED_THREAT
                    laser_from.setdefault(c, OPPOSITE[name])
                    x += ex
                    y += ey
    return threat, laser_from


class Plan:
    """One seat's reading of the board during its turn; `refresh` after each action."""

    def __init__(self, turn: Turn, seat: int) -> None:
        self.turn = turn
        self.seat = seat
        self.w = turn.width
        self.h = turn.height
        self._reading = reading(tuple(turn.state.helium), self.w, self.h)
        self._helium: list[int] | None = None
        self._occ: dict[int, int] = dict(turn.occ)
        self._cells: dict[int, dict[int, int]] = {}
        self._limit: dict[int, int] = {}
        self.threat: list[float] = []
        self.laser_from: dict[int, str] = {}
        self.refresh(threats=True)
        # Travel looks at the board as the turn began: the potential is dear to compute.
        self.start_yields = self._reading.yields
        self.blocks = self._reading.blocks

    def refresh(self, *, threats: bool) -> None:
        """Re-read the board; `threats` when opponents' robots may have changed."""
        state = self.turn.state
        w, h = self.w, self.h
        self.reserve = reserve_index(state, self.seat)
        if self._helium is None:
            self.yields = self._reading.yields[:]
        else:
            update_yields(self.yields, self._helium, state.helium, w, h)
        self._helium = state.helium[:]
        if threats:
            self.threat, self.laser_from = threat_map(state, self.seat)
            self.p_open = [t if t < 1.0 else 1.0 for t in self.threat]
            self.p_shielded = [
                0.0 if t <= SHIELD_COVER else min(1.0, t - SHIELD_COVER) for t in self.threat
            ]
        crowd = [0.0] * (w * h)
        for r in state.robots:
            if r.alive and r.active and r.seat == self.seat:
                for ex, ey in DELTAS.values():
                    nx, ny = r.x + ex, r.y + ey
                    if 0 <= nx < w and 0 <= ny < h:
                        crowd[ny * w + nx] += CROWD_COST
        self.crowd = crowd
        # A robot's reachable cells depend only on who stands within its reach: keep
        # those that no cell whose occupant changed can affect.
        occ = self.turn.occ
        changed = list(self._occ.keys() ^ occ.keys())
        changed += [c for c, j in occ.items() if self._occ.get(c, j) != j]
        self._occ = dict(occ)
        robots = state.robots
        for i in list(self._cells):
            r = robots[i]
            reach = self._limit[i]
            if any(abs(c % w - r.x) <= reach and abs(c // w - r.y) <= reach for c in changed):
                del self._cells[i]

    @property
    def potential(self) -> list[float]:
        """Travel potential, computed once a turn and only if a move is worth weighing."""
        return self._reading.travel(self.w, self.h)

    def robots(self, used: set[int]) -> list[tuple[int, Robot]]:
        """Our living robots that may still act this turn (never the reserve)."""
        return [
            (i, r)
            for i, r in enumerate(self.turn.state.robots)
            if r.seat == self.seat and r.alive and i not in used and i != self.reserve
        ]

    def cells(self, i: int, r: Robot, limit: int) -> dict[int, int]:
        """Where (cell index) robot i can end a walk of up to `limit` steps, and how far;
        cells farther than `limit` may be included."""
        found = self._cells.get(i)
        if found is None or self._limit[i] < limit:
            w = self.w
            found = reach_from(r.y * w + r.x, self.turn.occ, w, self.h, limit)
            self._cells[i] = found
            self._limit[i] = limit
        return found

    def cell(self, r: Robot, c: int) -> Cell | None:
        """An action's `to` for cell index c: None when r stays where it is."""
        x, y = c % self.w, c // self.w
        return None if (x, y) == (r.x, r.y) else (x, y)

    def risk(self, cell: int, worth: float, shielded: bool = False) -> float:
        return (self.p_shielded if shielded else self.p_open)[cell] * worth

    def idle(self, r: Robot) -> float:
        """The score of leaving r where it is: an inactive robot is immune."""
        if not r.active:
            return 0.0
        return -self.risk(r.y * self.w + r.x, value(r), r.shield)

    def crowd_at(self, r: Robot, c: int, d: int) -> float:
        """CROWD_COST per other active robot of ours next to cell c (r itself excluded)."""
        cost = self.crowd[c]
        if d == 1 and r.active:
            cost -= CROWD_COST
        return cost

    def economy_bound(self, r: Robot, base: float) -> float:
        """No mine or move of r scores more than this."""
        w, h = self.w, self.h
        mine = box_max(self.yields, w, h, r.x, r.y, MINE_REACH)
        return max(mine, self.travel_bound(r)) - base

    def travel_bound(self, r: Robot) -> float:
        """No move of r scores more than this (before its idle score)."""
        bounds = self._reading.bounds
        at = r.y * self.w + r.x
        bound = bounds.get(at)
        if bound is None:
            x0, x1, y0, y1 = r.x - REACH, r.x + REACH, r.y - REACH, r.y + REACH
            best = 0.0
            for bx0, bx1, by0, by1, top in self.blocks:
                gap = max(bx0 - x1, x0 - bx1, by0 - y1, y0 - by1, 0)
                near = top * DECAY_POWERS[gap]
                if near > best:
                    best = near
            bound = bounds[at] = TRAVEL_WEIGHT * best
        return bound

    def economy(self, i: int, r: Robot, base: float, choice: Option | None) -> Option | None:
        """The best of mining within reach and moving towards richer helium."""
        yields, p_open, crowd = self.yields, self.p_open, self.crowd
        half = r.mined / 2 + ROBOT_VALUE
        near = CROWD_COST if r.active else 0.0  # r is next to its neighbours, not to itself
        cells = self.cells(i, r, MINE_REACH)
        best_mine = -1e18
        mine_at = -1
        for c, d in cells.items():
            gain = yields[c]
            if gain and d <= MINE_REACH:
                score = gain - p_open[c] * (half + gain / 2) - crowd[c] - STEP_COST * d
                if d == 1:
                    score += near
                if score > best_mine:
                    best_mine, mine_at = score, c
        if mine_at >= 0:
            to = self.cell(r, mine_at)
            choice = better(choice, best_mine - base, lambda: Action(r.id, "mine", to=to), i)
        if choice is not None and self.travel_bound(r) - base <= choice.score:
            return choice
        potential = self.potential
        cells = self.cells(i, r, REACH)
        best_move = -1e18
        move_to = -1
        for c, d in cells.items():
            if d:
                score = TRAVEL_WEIGHT * potential[c] - p_open[c] * half - crowd[c] - STEP_COST * d
                if d == 1:
                    score += near
                if score > best_move:
                    best_move, move_to = score, c
        if move_to >= 0:
            dest = self.cell(r, move_to)
            choice = better(choice, best_move - base, lambda: Action(r.id, "move", to=dest), i)
        return choice


Bound = Callable[[Plan, int, Robot, float], float]
Search = Callable[[Plan, int, Robot, float, Option | None], Option | None]


def pick(plan: Plan, used: set[int], bound: Bound, search: Search) -> Option | None:
    """The best option over our robots, examining the most promising robots first."""
    ranked = []
    for i, r in plan.robots(used):
        base = plan.idle(r)
        ranked.append((bound(plan, i, r, base), i, r, base))
    ranked.sort(key=lambda item: (-item[0], item[1]))
    choice: Option | None = None
    for ub, i, r, base in ranked:
        if ub <= 0 or (choice is not None and ub <= choice.score):
            break  # only an option that beats idling (a score above 0) is ever played
        choice = search(plan, i, r, base, choice)
    return choice


def play(state: State, seat: int, bound: Bound, search: Search, kind: type[Plan] = Plan) -> Orders:
    """Up to two actions, each the best found on the board as the one before left it."""
    turn = Turn(state)
    plan = kind(turn, seat)
    actions: list[Action] = []
    used: set[int] = set()
    for n in range(MAX_ACTIONS):
        option = pick(plan, used, bound, search)
        if option is None or option.score <= 0:
            break
        path = turn.check(option.action, option.index, n)
        turn.perform(option.action, option.index, path)
        actions.append(option.action)
        used.add(option.index)
        if n + 1 < MAX_ACTIONS:
            plan.refresh(threats=option.action.type in WEAPON_ACTIONS)
    return Orders(seat, state.turn, tuple(actions))
