"""Turn resolution: orders in, new state and the animation timeline out.

`resolve` never changes its input: it works on a copy whose robots are copied on
first write, and raises an `EngineError` before anything is returned if the turn
is illegal, so a rejected turn changes nothing.
"""

from __future__ import annotations

from typing import Any, ClassVar, TypeVar

from engine.errors import EngineError, OrdersError, ShapeError
from engine.helium3 import timing
from engine.helium3.board import (
    _FREE_PATHS,
    DELTAS,
    DIRECTION_OF,
    DIRECTIONS,
    cheb,
    closest_direction,
    free_path,
    grid,
    rotation_steps,
    shortest_path,
)
from engine.helium3.orders import MISSILE_RANGE, MOVE_RANGE, Action, Cell, Orders
from engine.helium3.state import Derived, State

Event = dict[str, Any]

MINE_CENTRE = 500
MINE_AROUND = 250
DROP_CENTRE_PARTS = 750
DROP_PARTS = 3550  # 8 * 350 + 750
WEAPON_OF = {"arm_missile": "missile", "arm_laser": "laser"}
WEAPON_ACTIONS = frozenset({"fire_missile", "fire_laser", "kamikaze"})
STEP_MS = timing.STEP_MS
STEP_NAMES = tuple(DIRECTION_OF.get((k // 3 - 1, k % 3 - 1), "") for k in range(9))
"""The direction of a king step (ex, ey), at `ex * 3 + ey + 4`."""
ARM_MS = timing.ARM_MS
TURN_MS: dict[tuple[str, str], int] = {
    (a, b): rotation_steps(a, b) * timing.TURN_STEP_MS for a in DIRECTIONS for b in DIRECTIONS
}
"""How long a robot facing one way takes to turn to face another."""


class Turn:
    """The working copy of one turn: the state, who stands where, and the timeline.

    A variant's turn is a subclass: its ranges and the name its pieces go by in
    error messages are class attributes, its rules overridden methods.
    """

    __slots__ = (
        "state", "helium_shared", "width", "height", "index", "occ", "living", "original",
        "events", "start", "end", "shield_met",
    )  # fmt: skip

    noun: ClassVar[str] = "Robot"
    move_range: ClassVar[dict[str, int]] = MOVE_RANGE
    missile_range: ClassVar[int] = MISSILE_RANGE
    inactive_immune: ClassVar[bool] = True
    beam_stops_on_its_track: ClassVar[bool] = False

    def __init__(self, state: State) -> None:
        # The helium grid is copied only when the turn first changes it (`helium`).
        self.state = new = state.copy(helium=state.helium)
        self.helium_shared = True
        self.width = state.width
        self.height = state.height
        self.index = new._index or new.index
        # A robot is copied before its first change in this turn (`mut`): until then
        # it is the very object of the state the turn started from.
        self.original = state.robots
        known = state._derived
        if known is not None and known.robots == state.robots:  # `State.derived`
            self.occ = known.occupancy.copy()  # (`dict.copy` clones the table: faster)
            self.living = known.living
        else:
            self.occ = state.occupancy()
            self.living = None
        self.events: list[Event] = []
        self.start = 0  # when the next action begins
        self.end = 0  # when the last event so far ends
        # Whether a weapon has met a raised shield (`hit`, `fire_laser`; a rule that
        # reads another robot's shield elsewhere must set it too): from there, a board
        # without the opponents' shields may go another way (`_on_belief`).
        self.shield_met = False

    def helium(self) -> list[int]:
        """The state's helium grid to change, copied before its first change in this turn."""
        if self.helium_shared:
            self.state.helium = self.state.helium.copy()
            self.helium_shared = False
        return self.state.helium

    def mut(self, i: int) -> Any:
        """The robot at index i, copied before its first change in this turn."""
        robots = self.state.robots
        robot = robots[i]
        if robot is self.original[i]:
            robots[i] = robot = robot.copy()
        return robot

    def emit(self, event: Event) -> None:
        self.events.append(event)
        end = event["t_ms"] + event["duration_ms"]
        if end > self.end:
            self.end = end

    # -- checking ---------------------------------------------------------------------

    def on_board(self, cell: Cell) -> bool:
        return 0 <= cell[0] < self.width and 0 <= cell[1] < self.height

    def check(self, action: Action, i: int, n: int) -> list[Cell]:
        """Raise unless the action is legal now; returns the path it will walk."""
        robot = self.state.robots[i]
        kind = action.type
        if kind not in WEAPON_ACTIONS:
            return self.check_path(action, robot.x, robot.y, robot.facing, i, n)
        if kind == "fire_missile":
            if robot.armed != "missile":
                raise OrdersError("not_armed", f"{self.noun} {robot.id} has no missile armed.", n)
            target = action.target
            assert target is not None
            if not self.on_board(target):
                raise OrdersError("off_board", f"Target {list(target)} is off the board.", n)
            d = cheb(robot.x, robot.y, target[0], target[1])
            reach = self.missile_range
            if not 1 <= d <= reach:
                raise OrdersError(
                    "out_of_range",
                    f"A missile hits a cell 1 to {reach} cells away; {list(target)} is {d} away.",
                    n,
                )
            return []
        if kind == "fire_laser":
            if robot.armed != "laser":
                raise OrdersError("not_armed", f"{self.noun} {robot.id} has no laser armed.", n)
            return []
        return []  # a kamikaze

    def check_path(
        self, action: Action, sx: int, sy: int, facing: str, i: int, n: int
    ) -> list[Cell]:
        reach = self.move_range[action.type]
        dest = action.to if action.to is not None else (sx, sy)
        tx, ty = dest
        w = self.width
        h = self.height
        if not (0 <= tx < w and 0 <= ty < h):
            raise OrdersError("off_board", f"Cell {list(dest)} is off the board.", n)
        dx = tx - sx
        dy = ty - sy
        d = dx if dx >= 0 else -dx
        if dy > d or -dy > d:
            d = dy if dy >= 0 else -dy
        if d > reach:
            raise OrdersError(
                "out_of_range",
                f"A {action.type} moves at most {reach} cells; {list(dest)} is {d} away.",
                n,
            )
        occ = self.occ
        other = occ.get(ty * w + tx)
        if other is not None and other != i:
            who = self.state.robots[other].id
            raise OrdersError("occupied", f"{self.noun} {who} stands on {list(dest)}.", n)
        if action.path is not None:
            return self.check_given_path(action.path, sx, sy, dest, i, n)
        if d == 0:
            return []
        # The path nothing is in the way of, when its cells are free and on the board
        # (`free_path`); else the search around what stands in the way.
        free: list[Cell] = []
        steps = _FREE_PATHS.get((dx, dy, facing)) or free_path(dx, dy, facing)
        for ox, oy in steps:
            x, y = sx + ox, sy + oy
            if not (0 <= x < w and 0 <= y < h):
                break
            c = y * w + x
            if c in occ and occ[c] != i:
                break
            free.append((x, y))
        else:
            return free
        # Whether another robot stands on some Chebyshev-shortest route: then free
        # distances are searched for; else they are the Chebyshev distances.
        tables = grid(w, h)
        from_start = tables.distances(sy * w + sx)
        to_dest = tables.distances(ty * w + tx)
        near = False
        for c, j in occ.items():
            if j != i and from_start[c] + to_dest[c] == d:
                near = True
                break
        path = shortest_path(sx, sy, tx, ty, facing, w, h, occ, reach, near)
        if path is None:
            raise OrdersError(
                "blocked", f"No path of free cells {reach} steps long reaches {list(dest)}.", n
            )
        return path

    def check_given_path(
        self, path: tuple[Cell, ...], sx: int, sy: int, dest: Cell, i: int, n: int
    ) -> list[Cell]:
        if not path and dest != (sx, sy):
            raise ShapeError("bad_shape", "The path must end at 'to'.", n)
        px, py = sx, sy
        for cell in path:
            if not self.on_board(cell):
                raise OrdersError("off_board", f"Path cell {list(cell)} is off the board.", n)
            if cheb(px, py, cell[0], cell[1]) != 1:
                raise OrdersError(
                    "blocked", f"The path must go by king steps; {list(cell)} is not one.", n
                )
            j = self.occ.get(cell[1] * self.width + cell[0])
            if j is not None and j != i:
                who = self.state.robots[j].id
                raise OrdersError("blocked", f"The path crosses robot {who} at {list(cell)}.", n)
            px, py = cell
        return list(path)

    # -- performing -------------------------------------------------------------------

    def face(self, i: int, toward: str, t: int) -> int:
        """Turn robot i to face `toward`; returns when the turn ends (no event if it faces)."""
        robot = self.mut(i)
        if robot.facing == toward:
            return t
        steps = rotation_steps(robot.facing, toward)
        duration = steps * timing.TURN_STEP_MS
        self.emit(
            {"type": "turned", "t_ms": t, "duration_ms": duration,
             "robot": robot.id, "from": robot.facing, "to": toward}
        )  # fmt: skip
        robot.facing = toward
        return t + duration

    def walk(self, i: int, path: list[Cell], t: int) -> int:
        """Robot i walks `path`: a `moved` event for each straight run, each run after
        the robot turns to face its way (`face`, written out here)."""
        if not path:
            return t
        robot = self.state.robots[i]
        if robot is self.original[i]:  # not copied yet in this turn (`mut`)
            robot = self.mut(i)
        w = self.width
        occ = self.occ
        events = self.events
        del occ[robot.y * w + robot.x]
        robot_id = robot.id
        facing = robot.facing
        run: list[list[int]] = []
        heading = ""
        x, y = robot.x, robot.y
        for cx, cy in path:
            step = STEP_NAMES[(cx - x) * 3 + cy - y + 4]
            if step != heading:
                if run:
                    duration = len(run) * STEP_MS
                    events.append({"type": "moved", "t_ms": t, "duration_ms": duration,
                                   "robot": robot_id, "path": run})  # fmt: skip
                    t += duration
                    run = []
                if step != facing:
                    duration = TURN_MS[facing, step]
                    events.append({"type": "turned", "t_ms": t, "duration_ms": duration,
                                   "robot": robot_id, "from": facing, "to": step})  # fmt: skip
                    t += duration
                    facing = step
                heading = step
            run.append([cx, cy])
            x, y = cx, cy
        duration = len(run) * STEP_MS
        events.append({"type": "moved", "t_ms": t, "duration_ms": duration,
                       "robot": robot_id, "path": run})  # fmt: skip
        t += duration
        if t > self.end:
            self.end = t
        robot.facing = facing
        robot.x, robot.y = x, y
        occ[y * w + x] = i
        return t

    def _moved(self, robot_id: str, run: list[list[int]], t: int) -> int:
        duration = len(run) * timing.STEP_MS
        self.emit({"type": "moved", "t_ms": t, "duration_ms": duration,
                   "robot": robot_id, "path": run})  # fmt: skip
        return t + duration

    def perform(self, action: Action, i: int, path: list[Cell]) -> None:
        t = self.start
        robots = self.state.robots
        robot = robots[i]
        if robot is self.original[i]:  # `mut`
            robots[i] = robot = robot.copy()
        robot.active = True
        robot.armed = None
        robot.shield = False
        robot.deflect = None
        if path:
            t = self.walk(i, path, t)
        kind = action.type
        if kind == "mine":
            self.mine(i, t)
        elif kind in WEAPON_OF:
            robot.armed = weapon = WEAPON_OF[kind]
            self.events.append({"type": "armed", "t_ms": t, "duration_ms": ARM_MS,
                                "robot": robot.id, "weapon": weapon})  # fmt: skip
            t += ARM_MS
            if t > self.end:
                self.end = t
        elif kind == "shield":
            robot.shield = True
            robot.deflect = action.deflect
            self.emit({"type": "shielded", "t_ms": t, "duration_ms": timing.SHIELD_MS,
                       "robot": robot.id, "seat": robot.seat,
                       "deflect": action.deflect})  # fmt: skip
        elif kind == "fire_missile":
            assert action.target is not None
            self.fire_missile(i, action.target, t)
        elif kind == "fire_laser":
            assert action.direction is not None
            self.fire_laser(i, action.direction, t)
        elif kind == "kamikaze":
            self.kamikaze(i, t)
        self.start = self.end

    def mine(self, i: int, t: int) -> None:
        robot = self.state.robots[i]
        helium = self.helium()
        w = self.width
        cells: list[list[int]] = []
        total = 0
        for x, y, c, centre in grid(w, self.height).blocks[robot.y * w + robot.x]:
            have = helium[c]
            if have:
                cap = MINE_CENTRE if centre else MINE_AROUND
                take = have if have < cap else cap
                helium[c] = have - take
                total += take
                cells.append([x, y, take])
        robot.mined += total
        self.state.money[robot.seat] += total
        self.emit({"type": "mined", "t_ms": t, "duration_ms": timing.MINE_MS,
                   "robot": robot.id, "amount": total, "cells": cells})  # fmt: skip

    def fire_missile(self, i: int, target: Cell, t: int) -> None:
        robot = self.state.robots[i]
        tx, ty = target
        t = self.face(i, closest_direction(tx - robot.x, ty - robot.y), t)
        flight = cheb(robot.x, robot.y, tx, ty) * timing.MISSILE_CELL_MS
        self.emit({"type": "missile", "t_ms": t, "duration_ms": flight + timing.BLAST_MS,
                   "robot": robot.id, "target": [tx, ty]})  # fmt: skip
        j = self.occ.get(ty * self.width + tx)
        if j is not None:
            self.hit(j, t + flight)

    def fire_laser(self, i: int, direction: str, t: int) -> None:
        """The beam runs to the edge, destroying every unshielded robot in play on its
        line; a shield stops it, or turns it when it has a deflect. Where the ruleset
        says so (`beam_stops_on_its_track`), it also stops before re-entering a cell in
        a direction it already crossed it in."""
        t = self.face(i, direction, t)
        robot = self.state.robots[i]
        w, h = self.width, self.height
        x, y = robot.x, robot.y
        dx, dy = DELTAS[direction]
        segments: list[list[list[int]]] = []
        # The beam's event comes first in the timeline; its length is known at the end.
        beam: Event = {"type": "laser", "t_ms": t, "duration_ms": 0,
                       "robot": robot.id, "segments": segments}  # fmt: skip
        self.events.append(beam)
        seg_start = [x, y]
        crossed: set[tuple[int, int, int, int]] | None = (
            set() if self.beam_stops_on_its_track else None
        )
        immune = self.inactive_immune
        cells = 0
        while True:
            nx, ny = x + dx, y + dy
            if not (0 <= nx < w and 0 <= ny < h) or (
                crossed is not None and (nx, ny, dx, dy) in crossed
            ):
                segments.append([seg_start, [x, y]])
                break
            if crossed is not None:
                crossed.add((nx, ny, dx, dy))
            x, y = nx, ny
            cells += 1
            j = self.occ.get(y * w + x)
            if j is None:
                continue
            other = self.state.robots[j]
            if immune and not other.active:
                continue
            at = t + cells * timing.LASER_CELL_MS
            if other.shield:
                self.shield_met = True
                segments.append([seg_start, [x, y]])
                turn_to = self.shield_meets_beam(j, at)
                if turn_to is None:
                    break
                dx, dy = DELTAS[turn_to]
                seg_start = [x, y]
            else:
                self.destroy(j, at)
        beam["duration_ms"] = max(cells, 1) * timing.LASER_CELL_MS
        self.end = max(self.end, t + beam["duration_ms"])

    def shield_meets_beam(self, j: int, at: int) -> str | None:
        """A beam reaches robot j's shield, which drops: it absorbs the beam (None) or
        turns it toward its deflect (returned)."""
        spent = self.mut(j)
        turn_to: str | None = spent.deflect
        if turn_to is None:
            self.absorb(j, at)
            return None
        spent.shield = False
        spent.deflect = None
        self.emit({"type": "deflected", "t_ms": at, "duration_ms": timing.DEFLECTED_MS,
                   "robot": spent.id, "direction": turn_to})  # fmt: skip
        return turn_to

    def kamikaze(self, i: int, t: int) -> None:
        robot = self.state.robots[i]
        self.emit({"type": "kamikaze", "t_ms": t, "duration_ms": timing.KAMIKAZE_MS,
                   "robot": robot.id})  # fmt: skip
        blast = t + timing.KAMIKAZE_MS // 2
        self.blast_launcher(i, blast)
        w = self.width
        occ = self.occ  # the blast's hits take robots off it as it goes
        for _x, _y, c, _centre in grid(w, self.height).blocks[robot.y * w + robot.x]:
            j = occ.get(c)
            if j is not None:
                self.hit(j, blast)

    def blast_launcher(self, i: int, t: int) -> None:
        """A kamikaze's launcher is destroyed, shield or not (before its neighbours are hit)."""
        self.destroy(i, t)

    def hit(self, j: int, t: int) -> None:
        """A missile or blast reaches robot j: inactive is immune (where the ruleset
        says so), a shield absorbs it."""
        robot = self.state.robots[j]
        if not robot.active and self.inactive_immune:
            return
        if robot.shield:
            self.shield_met = True
            self.absorb(j, t)
            return
        self.destroy(j, t)

    def absorb(self, j: int, t: int) -> None:
        """Robot j's shield takes a hit and drops."""
        spent = self.mut(j)
        spent.shield = False
        spent.deflect = None
        self.emit({"type": "absorbed", "t_ms": t, "duration_ms": timing.ABSORBED_MS,
                   "robot": spent.id})  # fmt: skip

    def destroy(self, j: int, t: int) -> None:
        """Robot j is destroyed: what it drops comes off its owner's money and lands
        around it (`drops`, `land`)."""
        robot = self.mut(j)
        del self.occ[robot.y * self.width + robot.x]
        robot.alive = False
        self.living = None  # its seat may have no robot left
        robot.armed = None
        robot.shield = False
        robot.deflect = None
        dropped = self.drops(robot.mined)
        money = self.state.money
        money[robot.seat] = max(0, money[robot.seat] - dropped)
        cells = self.land(robot.x, robot.y, dropped) if dropped else []
        self.emit({"type": "destroyed", "t_ms": t, "duration_ms": timing.DESTROYED_MS,
                   "robot": robot.id, "dropped": dropped, "cells": cells})  # fmt: skip

    def drops(self, mined: int) -> int:
        """A destroyed robot drops half of what it mined."""
        return mined // 2

    def land(self, x: int, y: int, dropped: int) -> list[list[int]]:
        """The drop lands over the 3x3 around (x, y): 750 parts of 3550 in the centre,
        the rest in eighths around; returns the cells with what each got."""
        w = self.width
        centre = dropped * DROP_CENTRE_PARTS // DROP_PARTS
        around = (dropped - centre) // 8
        cells: list[list[int]] = []
        helium = self.helium()
        for cx, cy, c, middle in grid(w, self.height).blocks[y * w + x]:
            amount = centre if middle else around
            if amount:
                helium[c] += amount
                cells.append([cx, cy, amount])
        return cells


TurnT = TypeVar("TurnT", bound=Turn)


def resolve(state: State, orders: Orders) -> tuple[State, list[Event], int]:
    """Resolve one turn. Returns (new state, full events, turn length in ms).

    The caller has checked that the match runs, the seat is to move and the turn
    number matches (see `engine.helium3.api.apply`).
    """
    if orders.actions:
        new, events, turn_ms = _clock(perform_orders(Turn, state, orders))
    else:
        new, events, turn_ms = _pass(state, orders.seat)
    _advance(new, events, turn_ms)
    return new, events, turn_ms


def _pass(state: State, seat: int) -> tuple[State, list[Event], int]:
    """A turn of no action, as `perform_orders` and `_clock` make it without a working
    copy: the state with the clock moved on by the shortest turn, and a `pass` event.
    Its robots are the state's, so what the turn before knew of them holds for it too."""
    new = state.copy(helium=state.helium)
    known = state._derived
    if known is not None and known.robots == state.robots:
        new._derived = known
    new.turn += 1
    new.clock_ms += timing.MIN_TURN_MS
    events: list[Event] = [{"type": "pass", "t_ms": 0, "duration_ms": 0, "seat": seat}]
    return new, events, timing.MIN_TURN_MS


def resolve_with(
    turn_class: type[Turn], state: State, orders: Orders
) -> tuple[State, list[Event], int]:
    """The turn's actions performed by `turn_class` and the clock moved on; passing
    the move on (or ending the match) is left to the ruleset."""
    return _clock(perform_orders(turn_class, state, orders))


def _clock(turn: Turn) -> tuple[State, list[Event], int]:
    """The turn's state with the clock moved on, its events and its length; what the
    turn knew of its robots is left on the state for the next turn (`Derived`)."""
    turn_ms = turn.end if turn.end > timing.MIN_TURN_MS else timing.MIN_TURN_MS
    new = turn.state
    new._derived = Derived(new.robots.copy(), turn.occ, turn.living)
    new.turn += 1
    new.clock_ms += turn_ms
    return new, turn.events, turn_ms


def perform_orders(turn_class: type[TurnT], state: State, orders: Orders) -> TurnT:
    """Perform the orders' actions in order, each checked on the board the previous
    ones left; an illegal one rejects the whole turn.

    An action's legality never depends on what the seat cannot see: when opponents'
    hidden shields could have changed what an earlier weapon did, the orders are
    judged on the board the seat believes in, and an action that reality then makes
    impossible is skipped instead.
    """
    many = len(orders.actions)
    indexes = _indexes(state, orders, turn_class.noun) if many else []
    if many > 1 and _needs_belief(state, orders):
        turn = _on_belief(turn_class, state, orders, indexes)
    else:
        turn = _run(turn_class, state, orders, indexes, lenient=False)
    if not turn.events:
        turn.emit({"type": "pass", "t_ms": 0, "duration_ms": 0, "seat": orders.seat})
    return turn


def _on_belief(turn_class: type[TurnT], state: State, orders: Orders, indexes: list[int]) -> TurnT:
    """The orders judged on the board the seat believes in, then performed on the real
    one with what reality forbids skipped.

    Belief and reality differ only in opponents' shields and deflects, and nothing
    reads a shield before a weapon meets it (`Turn.shield_met`): until then the two
    boards go the same way. So reality is tried first, strictly: when it met no
    shield, belief would have done the same, error included, and that run is the turn.
    """
    turn = turn_class(state)
    try:
        _perform(turn, orders, indexes, lenient=False)
    except EngineError:
        if not turn.shield_met:
            raise
    else:
        if not turn.shield_met:
            return turn
    _run(turn_class, masked(state, orders.seat), orders, indexes, lenient=False)
    return _run(turn_class, state, orders, indexes, lenient=True)


def _indexes(state: State, orders: Orders, noun: str) -> list[int]:
    seat = orders.seat
    index = state._index or state.index
    indexes: list[int] = []
    for n, action in enumerate(orders.actions):
        i = index.get(action.robot)
        if i is None:
            raise OrdersError("unknown_robot", f"There is no {noun.lower()} {action.robot!r}.", n)
        robot = state.robots[i]
        if robot.seat != seat:
            raise OrdersError(
                "not_your_robot", f"{noun} {action.robot} belongs to seat {robot.seat}.", n
            )
        if not robot.alive:
            raise OrdersError("robot_destroyed", f"{noun} {action.robot} has been destroyed.", n)
        if i in indexes:
            raise OrdersError(
                "duplicate_robot", f"{noun} {action.robot} is given two actions in one turn.", n
            )
        indexes.append(i)
    return indexes


def _needs_belief(state: State, orders: Orders) -> bool:
    """Whether hidden shields could change how a later action of these orders fares."""
    for action in orders.actions[:-1]:
        if action.type in WEAPON_ACTIONS:
            seat = orders.seat
            return any(r.shield and r.alive and r.seat != seat for r in state.robots)
    return False


def _run(
    turn_class: type[TurnT], state: State, orders: Orders, indexes: list[int], *, lenient: bool
) -> TurnT:
    """Perform the actions in order; with `lenient`, one reality forbids is skipped."""
    turn = turn_class(state)
    _perform(turn, orders, indexes, lenient=lenient)
    return turn


def _perform(turn: Turn, orders: Orders, indexes: list[int], *, lenient: bool) -> None:
    robots = turn.state.robots
    actions = orders.actions
    for n, i in enumerate(indexes):
        action = actions[n]
        if not robots[i].alive:
            turn.emit({"type": "skipped", "t_ms": turn.start, "duration_ms": 0,
                       "robot": robots[i].id, "reason": "robot_destroyed"})  # fmt: skip
            continue
        try:
            path = turn.check(action, i, n)
        except OrdersError as error:
            if not lenient:
                raise
            turn.emit({"type": "skipped", "t_ms": turn.start, "duration_ms": 0,
                       "robot": robots[i].id, "reason": error.code})  # fmt: skip
            continue
        turn.perform(action, i, path)


def masked(state: State, seat: int) -> State:
    """The state as `seat` knows it: no opponent shields or deflects, no seed."""
    known = state.copy()
    known.seed = 0
    for k, r in enumerate(known.robots):
        if r.seat != seat and (r.shield or r.deflect is not None):
            plain = r.copy()
            plain.shield = False
            plain.deflect = None
            known.robots[k] = plain
    return known


def _advance(state: State, events: list[Event], turn_ms: int) -> None:
    """Pass the move to the next seat with robots, or end the match."""
    known = state._derived  # `State.living_seats`, read in place
    if known is not None and known.living is not None and known.robots == state.robots:
        living = known.living
    else:
        living = state.living_seats()
    if len(living) <= 1:
        state.termination = "elimination"
    elif state.clock_ms >= state.length_ms:
        state.termination = "clock"
    else:
        # `next_seat`, written out: the first living seat after the one to move, else
        # (round the table) the first living seat.
        to_move = state.to_move
        after = False
        first = None
        for seat in state.money:
            if seat in living:
                if after:
                    state.to_move = seat
                    return
                if first is None:
                    first = seat
            if seat == to_move:
                after = True
        state.to_move = first
        return
    end_match(state, events, turn_ms, living[:])


def next_seat(state: State, living: list[int]) -> int:
    """The first seat after the one to move, in seat order, that still has robots."""
    seats = list(state.money)
    to_move = state.to_move
    k = seats.index(to_move) + 1 if to_move in state.money else 0
    for candidate in seats[k:]:
        if candidate in living:
            return candidate
    for candidate in seats[:k]:
        if candidate in living:
            return candidate
    raise AssertionError("no living seat")  # the callers end the match before that


def end_match(state: State, events: list[Event], turn_ms: int, living: list[int]) -> None:
    """The match is over (its termination set): the last seat standing wins, else the
    richest of those with robots left; a `match_over` event closes the timeline."""
    state.over = True
    state.to_move = None
    if len(living) == 1:
        state.winners = living
    elif living:
        best = max(state.money[s] for s in living)
        state.winners = [s for s in living if state.money[s] == best]
    else:
        state.winners = []
    events.append({"type": "match_over", "t_ms": turn_ms, "duration_ms": 0,
                   "winners": state.winners[:], "reason": state.termination})  # fmt: skip
