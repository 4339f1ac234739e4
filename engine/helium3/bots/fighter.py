"""`fighter`: mines like the miner, and fights.

Besides the miner's options each robot weighs:
- firing an armed missile at an active opponent 1 to 6 cells away, or an armed laser
  along a line with active opponents and none of our own active robots on it;
- arming a missile or a laser (moving up to 2 first) where an active opponent is in
  reach for next turn, at a share of that shot: half for a missile whose target is
  within 3 cells, less farther (it may walk away), a tenth for a laser line;
- a kamikaze when at least two active opponents stand next to it, less what it costs
  us (the robot, its drop, and our own active robots next to it);
- a shield (moving up to 5 first) where an opponent's armed weapon reaches, with a
  deflect back along an armed laser's line.
Inactive robots are immune, so they are never targets. A target is worth what its
owner loses (half of what it mined) plus the robot; in a match of more than two, only
opponents ahead of us or leading count fully, the others half.
"""

from __future__ import annotations

from random import Random

from engine.helium3.board import DELTAS
from engine.helium3.bots import plan
from engine.helium3.bots.plan import (
    ARMED_THREAT,
    CROWD_COST,
    ROBOT_VALUE,
    SHIELD_COVER,
    STEP_COST,
    Option,
    Plan,
    better,
    box_max,
    value,
)
from engine.helium3.orders import MISSILE_RANGE, MOVE_RANGE, Action, Cell, Orders
from engine.helium3.state import Robot, State

MISSILE_SHARE = 0.5
"""An armed missile is worth this share of its best target (the target may leave)..."""
MISSILE_FAR_SHARE = 0.15
"""...or this share when the target is more than MISSILE_NEAR cells away."""
MISSILE_NEAR = 3
LASER_SHARE = 0.1
"""An armed laser is worth this share of its best line: a line is easily broken."""
BEAM_FADE = 0.7
"""Each further robot on a laser line counts less: a hidden shield may stop the beam."""
MIN_BLAST = 2
"""Kamikaze only when at least this many active opponents are next to the robot."""
ARM_REACH = MOVE_RANGE["arm_missile"]
SHIELD_REACH = MOVE_RANGE["shield"]
SIGN = {(0, -1): "N", (1, -1): "NE", (1, 0): "E", (1, 1): "SE",
        (0, 1): "S", (-1, 1): "SW", (-1, 0): "W", (-1, -1): "NW"}  # fmt: skip


class FighterPlan(Plan):
    """The plan, plus what each active opponent robot is worth as a target."""

    def refresh(self, *, threats: bool) -> None:
        super().refresh(threats=threats)
        if threats:
            self.worth = target_worth(self)
            ranked = sorted(self.worth.values(), reverse=True)
            self.beam_bound = sum(v * BEAM_FADE**k for k, v in enumerate(ranked))

    def idle(self, r: Robot) -> float:
        """An idle armed robot keeps its weapon: worth a share of its best shot."""
        score = super().idle(r)
        if r.armed == "missile":
            score += missile_hold(self, r.x, r.y, self.worth)
        elif r.armed == "laser":
            beam = best_laser(self, r.x, r.y, self.worth, self.turn.index[r.id])
            if beam is not None:
                score += LASER_SHARE * beam[0]
        return score


def choose(state: State, seat: int, rng: Random) -> Orders:
    return plan.play(state, seat, bound, search, FighterPlan)


def target_worth(p: Plan) -> dict[int, float]:
    """What destroying each active opponent robot (by index) is worth to us."""
    state = p.turn.state
    living = state.living_seats()
    mine = state.money[p.seat]
    rivals = [m for s, m in state.money.items() if s != p.seat and s in living]
    top = max(rivals, default=0)
    worth: dict[int, float] = {}
    for j, r in enumerate(state.robots):
        if not r.alive or not r.active or r.seat == p.seat:
            continue
        money = state.money[r.seat]
        weight = 1.0 if len(rivals) <= 1 or money >= top or money >= mine else 0.5
        worth[j] = weight * (r.mined / 2 + ROBOT_VALUE) + menace(p, r)
    return worth


def menace(p: Plan, enemy: Robot) -> float:
    """What an opponent's armed weapon puts at risk among our active robots."""
    if enemy.armed is None:
        return 0.0
    total = 0.0
    for r in p.turn.state.robots:
        if r.seat != p.seat or not r.alive or not r.active:
            continue
        dx, dy = r.x - enemy.x, r.y - enemy.y
        if enemy.armed == "missile":
            reached = max(abs(dx), abs(dy)) <= MISSILE_RANGE
        else:
            reached = dx == 0 or dy == 0 or dx == dy or dx == -dy
        if reached:
            total += ARMED_THREAT * value(r) * (1.0 - SHIELD_COVER if r.shield else 1.0)
    return total


def bound(p: Plan, i: int, r: Robot, base: float) -> float:
    assert isinstance(p, FighterPlan)
    ub = p.economy_bound(r, base)
    if p.worth:
        ub = max(ub, arm_bound(p, r) - base)
        if r.armed == "missile":
            ub = max(ub, nearest_worth(p, r, MISSILE_RANGE) - base)
        elif r.armed == "laser":
            ub = max(ub, p.beam_bound - base)
        blast = kamikaze_gain(p, r, p.worth)
        if blast is not None:
            ub = max(ub, blast - base)
    if r.mined and box_max(p.threat, p.w, p.h, r.x, r.y, SHIELD_REACH) > 0:
        ub = max(ub, -base)
    return ub


def nearest_worth(p: FighterPlan, r: Robot, radius: int) -> float:
    """The most a target within `radius` of r is worth (0 if none)."""
    best = 0.0
    robots = p.turn.state.robots
    for j, gain in p.worth.items():
        t = robots[j]
        if gain > best and abs(t.x - r.x) <= radius and abs(t.y - r.y) <= radius:
            best = gain
    return best


def arm_bound(p: FighterPlan, r: Robot) -> float:
    """No arming of r is worth more than this (before its idle score)."""
    near = nearest_worth(p, r, MISSILE_RANGE + ARM_REACH)
    return max(MISSILE_SHARE * near, LASER_SHARE * p.beam_bound)


def search(p: Plan, i: int, r: Robot, base: float, choice: Option | None) -> Option | None:
    assert isinstance(p, FighterPlan)
    choice = p.economy(i, r, base, choice)
    worth = p.worth
    w = p.w
    here = r.y * w + r.x
    stay = p.risk(here, value(r))
    if worth and r.armed == "missile":
        shot = best_missile(p, r.x, r.y, worth)
        if shot is not None:
            gain, target = shot
            choice = better(
                choice, gain - stay - base, lambda: Action(r.id, "fire_missile", target=target), i
            )
    if worth and r.armed == "laser":
        beam = best_laser(p, r.x, r.y, worth, i)
        if beam is not None:
            gain, direction = beam
            choice = better(
                choice,
                gain - stay - base,
                lambda: Action(r.id, "fire_laser", direction=direction),
                i,
            )
    blast = kamikaze_gain(p, r, worth)
    if blast is not None:
        choice = better(choice, blast - base, lambda: Action(r.id, "kamikaze"), i)
    threatened = r.mined > 0 and box_max(p.threat, p.w, p.h, r.x, r.y, SHIELD_REACH) > 0
    arming = bool(worth) and arm_bound(p, r) - base > _score(choice)
    if not threatened and not arming:
        return choice
    cells = p.cells(i, r, SHIELD_REACH if threatened else ARM_REACH)
    if threatened:
        choice = shield_search(p, i, r, base, choice, cells)
    if arming:
        choice = arm_search(p, i, r, base, choice, cells)
    return choice


def shield_search(
    p: Plan, i: int, r: Robot, base: float, choice: Option | None, cells: dict[int, int]
) -> Option | None:
    """The best cell within reach to raise a shield on, if any beats `choice`."""
    worth_r = value(r)
    threat, p_shielded, crowd = p.threat, p.p_shielded, p.crowd
    near = CROWD_COST if r.active else 0.0
    best, at = _score(choice), -1
    for c, d in cells.items():
        if d <= SHIELD_REACH and threat[c] > 0:
            score = -p_shielded[c] * worth_r - crowd[c] - STEP_COST * d - base
            if d == 1:
                score += near
            if score > best:
                best, at = score, c
    if at < 0:
        return choice
    to = p.cell(r, at)
    return Option(best, Action(r.id, "shield", to=to, deflect=p.laser_from.get(at)), i)


def arm_search(
    p: FighterPlan, i: int, r: Robot, base: float, choice: Option | None, cells: dict[int, int]
) -> Option | None:
    """The best cell within reach to arm a missile or a laser on, if any beats `choice`."""
    robots = p.turn.state.robots
    reach = MISSILE_RANGE + ARM_REACH
    near: list[tuple[int, int, float]] = []
    spots: list[tuple[int, int]] = []
    for j, gain in p.worth.items():
        t = robots[j]
        spots.append((t.x, t.y))
        if abs(t.x - r.x) <= reach and abs(t.y - r.y) <= reach:
            near.append((t.x, t.y, gain))
    best = _score(choice)
    missiles = bool(near) and MISSILE_SHARE * max(g for _, _, g in near) - base > best
    lasers = LASER_SHARE * p.beam_bound - base > best
    # A laser armed on (x, y) can only reach targets on its row, column or diagonals.
    rows = {ty for _, ty in spots}
    cols = {tx for tx, _ in spots}
    diagonals = {tx - ty for tx, ty in spots}
    antidiagonals = {tx + ty for tx, ty in spots}
    w = p.w
    worth_r = value(r)
    p_open, crowd = p.p_open, p.crowd
    crowd_near = CROWD_COST if r.active else 0.0
    found: tuple[str, int] | None = None
    for c, d in cells.items():
        if d > ARM_REACH:
            continue
        x, y = c % w, c // w
        danger = p_open[c] * worth_r + crowd[c] + STEP_COST * d + base
        if d == 1:
            danger -= crowd_near
        if missiles:
            hold = 0.0
            for tx, ty, gain in near:
                dd = max(abs(tx - x), abs(ty - y))
                if 1 <= dd <= MISSILE_RANGE:
                    held = gain * (MISSILE_SHARE if dd <= MISSILE_NEAR else MISSILE_FAR_SHARE)
                    if held > hold:
                        hold = held
            if hold and hold - danger > best:
                best, found = hold - danger, ("arm_missile", c)
        if lasers and (y in rows or x in cols or x - y in diagonals or x + y in antidiagonals):
            beam = best_laser(p, x, y, p.worth, i, spots)
            if beam is not None and LASER_SHARE * beam[0] - danger > best:
                best, found = LASER_SHARE * beam[0] - danger, ("arm_laser", c)
    if found is None:
        return choice
    return Option(best, Action(r.id, found[0], to=p.cell(r, found[1])), i)


def _score(choice: Option | None) -> float:
    return -1e18 if choice is None else choice.score


def best_missile(p: Plan, x: int, y: int, worth: dict[int, float]) -> tuple[float, Cell] | None:
    """The most valuable active opponent a missile from (x, y) can hit."""
    found: tuple[float, Cell] | None = None
    robots = p.turn.state.robots
    for j, gain in worth.items():
        t = robots[j]
        d = max(abs(t.x - x), abs(t.y - y))
        if 1 <= d <= MISSILE_RANGE and (found is None or gain > found[0]):
            found = (gain, (t.x, t.y))
    return found


def missile_hold(p: Plan, x: int, y: int, worth: dict[int, float]) -> float:
    """What a missile armed at (x, y) is worth now: a share of its best target next turn."""
    best = 0.0
    robots = p.turn.state.robots
    for j, gain in worth.items():
        t = robots[j]
        d = max(abs(t.x - x), abs(t.y - y))
        if 1 <= d <= MISSILE_RANGE:
            held = gain * (MISSILE_SHARE if d <= MISSILE_NEAR else MISSILE_FAR_SHARE)
            if held > best:
                best = held
    return best


def best_laser(
    p: Plan,
    x: int,
    y: int,
    worth: dict[int, float],
    firer: int,
    spots: list[tuple[int, int]] | None = None,
) -> tuple[float, str] | None:
    """The best direction for a beam from (x, y): active opponents on the line and none
    of ours (friendly fire). `firer` is skipped: it may not stand at (x, y) yet.
    `spots` are the targets' cells, when the caller has them at hand."""
    robots = p.turn.state.robots
    if spots is None:
        spots = [(robots[j].x, robots[j].y) for j in worth]
    directions: set[tuple[int, int]] = set()
    for tx, ty in spots:
        dx, dy = tx - x, ty - y
        if (dx or dy) and (dx == 0 or dy == 0 or dx == dy or dx == -dy):
            directions.add(((dx > 0) - (dx < 0), (dy > 0) - (dy < 0)))
    if not directions:
        return None
    w, h = p.w, p.h
    occ = p.turn.occ
    found: tuple[float, str] | None = None
    for ex, ey in sorted(directions):
        cx, cy = x + ex, y + ey
        gain = 0.0
        fade = 1.0
        while 0 <= cx < w and 0 <= cy < h:
            k = occ.get(cy * w + cx)
            if k is not None and k != firer and robots[k].active:
                if robots[k].seat == p.seat:
                    gain = 0.0
                    break
                gain += fade * worth[k]
                fade *= BEAM_FADE
            cx += ex
            cy += ey
        if gain > 0 and (found is None or gain > found[0]):
            found = (gain, SIGN[(ex, ey)])
    return found


def kamikaze_gain(p: Plan, r: Robot, worth: dict[int, float]) -> float | None:
    """What blowing r up gains, when at least MIN_BLAST active opponents are next to it."""
    w, h = p.w, p.h
    occ = p.turn.occ
    robots = p.turn.state.robots
    enemies = 0
    gain = -value(r)
    for ex, ey in DELTAS.values():
        nx, ny = r.x + ex, r.y + ey
        if not (0 <= nx < w and 0 <= ny < h):
            continue
        j = occ.get(ny * w + nx)
        if j is None:
            continue
        if j in worth:
            enemies += 1
            gain += worth[j]
        elif robots[j].seat == p.seat and robots[j].active and not robots[j].shield:
            gain -= value(robots[j])
    return gain if enemies >= MIN_BLAST else None
