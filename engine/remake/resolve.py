"""The remake's turn: up to five actions, one per vehicle, and their timeline.

The working copy, paths, facing and the timeline are Helium 3's (`Turn`); what the
remake changes is here: the ranges, shields that take one hit and deflect on a
later turn, mining 100 a cell, all helium returned on destruction, no inactive
immunity, and the end after `rounds` rounds.
"""

from __future__ import annotations

from typing import Any

from engine.errors import OrdersError
from engine.helium3 import resolve as h3
from engine.helium3.board import DELTAS, cheb, route_blocked, shortest_path
from engine.remake import timing
from engine.remake.orders import MISSILE_RANGE, MOVE_RANGE, MOVING, Action, Cell, Orders
from engine.remake.state import State

Event = dict[str, Any]

MINE_PER_CELL = 100
WEAPON_OF = {"arm_missile": "missile", "arm_laser": "laser"}
WEAPON_ACTIONS = frozenset({"fire_missile", "fire_laser", "kamikaze"})


class Turn(h3.Turn):
    """One remake turn's working copy of the state, occupancy and timeline."""

    def check(self, action: Action, i: int, n: int) -> list[Cell]:
        """Raise unless the action is legal now; returns the path it will walk."""
        robot = self.state.robots[i]
        kind = action.type
        if kind == "fire_missile":
            if robot.armed != "missile":
                raise OrdersError("not_armed", f"Vehicle {robot.id} has no missile armed.", n)
            target = action.target
            assert target is not None
            if not self.on_board(target):
                raise OrdersError("off_board", f"Target {list(target)} is off the board.", n)
            d = cheb(robot.x, robot.y, target[0], target[1])
            if not 1 <= d <= MISSILE_RANGE:
                raise OrdersError(
                    "out_of_range",
                    f"A missile hits a cell 1 to {MISSILE_RANGE} cells away; "
                    f"{list(target)} is {d} away.",
                    n,
                )
            return []
        if kind == "fire_laser":
            if robot.armed != "laser":
                raise OrdersError("not_armed", f"Vehicle {robot.id} has no laser armed.", n)
            return []
        if kind == "deflect":
            if not robot.shield:
                raise OrdersError(
                    "not_shielded",
                    f"Vehicle {robot.id} has no shield up; raise one on a turn before deflecting.",
                    n,
                )
            return []
        if kind == "kamikaze":
            return []
        return self.check_path(action, robot.x, robot.y, robot.facing, i, n)

    def check_path(
        self, action: Action, sx: int, sy: int, facing: str, i: int, n: int
    ) -> list[Cell]:
        reach = MOVE_RANGE[action.type]
        dest = action.to if action.to is not None else (sx, sy)
        if not self.on_board(dest):
            raise OrdersError("off_board", f"Cell {list(dest)} is off the board.", n)
        tx, ty = dest
        d = cheb(sx, sy, tx, ty)
        if d > reach:
            raise OrdersError(
                "out_of_range",
                f"A {action.type} moves at most {reach} cells; {list(dest)} is {d} away.",
                n,
            )
        w = self.width
        other = self.occ.get(ty * w + tx)
        if other is not None and other != i:
            who = self.state.robots[other].id
            raise OrdersError("occupied", f"Vehicle {who} stands on {list(dest)}.", n)
        if action.path is not None:
            return self.check_given_path(action.path, sx, sy, dest, i, n)
        if d == 0:
            return []
        others = [c for c, j in self.occ.items() if j != i]
        near = route_blocked(sx, sy, tx, ty, others, w)
        path = shortest_path(sx, sy, tx, ty, facing, w, self.height, self.occ, reach, near)
        if path is None:
            raise OrdersError(
                "blocked", f"No path of free cells {reach} steps long reaches {list(dest)}.", n
            )
        return path

    def perform(self, action: Action, i: int, path: list[Cell]) -> None:
        t = self.start
        robot = self.mut(i)
        robot.active = True
        kind = action.type
        if kind in MOVING:
            # Moving, mining, arming and shielding all drop the weapon and the shield
            # first; arming or shielding then sets the one the action names.
            robot.armed = None
            robot.shield = False
            robot.deflect = None
            t = self.walk(i, path, t)
        if kind == "mine":
            self.mine(i, t)
        elif kind in WEAPON_OF:
            robot.armed = WEAPON_OF[kind]
            self.emit({"type": "armed", "t_ms": t, "duration_ms": timing.ARM_MS,
                       "robot": robot.id, "weapon": robot.armed})  # fmt: skip
        elif kind == "shield" or kind == "deflect":
            robot.shield = True
            robot.deflect = action.direction
            # Neither turns the vehicle nor costs time: a hidden shield or deflect must
            # not show in the public timeline.
            cost = timing.SHIELD_MS if kind == "shield" else timing.DEFLECT_MS
            self.emit({"type": "shielded", "t_ms": t, "duration_ms": cost,
                       "robot": robot.id, "seat": robot.seat,
                       "deflect": action.direction})  # fmt: skip
        elif kind == "fire_missile":
            assert action.target is not None
            robot.armed = None
            self.fire_missile(i, action.target, t)
        elif kind == "fire_laser":
            assert action.direction is not None
            robot.armed = None
            self.fire_laser(i, action.direction, t)
        elif kind == "kamikaze":
            self.kamikaze(i, t)
        self.start = self.end

    def mine(self, i: int, t: int) -> None:
        """100 from each cell of the 3x3 around the vehicle that holds at least 100."""
        robot = self.state.robots[i]
        helium = self.state.helium
        w, h = self.width, self.height
        cells: list[list[int]] = []
        total = 0
        for y in range(max(0, robot.y - 1), min(h, robot.y + 2)):
            for x in range(max(0, robot.x - 1), min(w, robot.x + 2)):
                c = y * w + x
                if helium[c] >= MINE_PER_CELL:
                    helium[c] -= MINE_PER_CELL
                    total += MINE_PER_CELL
                    cells.append([x, y, MINE_PER_CELL])
        robot.mined += total
        self.state.money[robot.seat] += total
        self.emit({"type": "mined", "t_ms": t, "duration_ms": timing.MINE_MS,
                   "robot": robot.id, "amount": total, "cells": cells})  # fmt: skip

    def fire_laser(self, i: int, direction: str, t: int) -> None:
        """The beam runs to the edge, destroying every unshielded vehicle on its line;
        a shield stops it, or turns it when it has a deflect. It never re-enters a cell
        in a direction it already crossed it in."""
        t = self.face(i, direction, t)
        robot = self.state.robots[i]
        w, h = self.width, self.height
        x, y = robot.x, robot.y
        dx, dy = DELTAS[direction]
        segments: list[list[list[int]]] = []
        beam: Event = {"type": "laser", "t_ms": t, "duration_ms": 0,
                       "robot": robot.id, "segments": segments}  # fmt: skip
        self.events.append(beam)
        seg_start = [x, y]
        crossed: set[tuple[int, int, int, int]] = set()
        cells = 0
        while True:
            nx, ny = x + dx, y + dy
            if not (0 <= nx < w and 0 <= ny < h) or (nx, ny, dx, dy) in crossed:
                segments.append([seg_start, [x, y]])
                break
            crossed.add((nx, ny, dx, dy))
            x, y = nx, ny
            cells += 1
            j = self.occ.get(y * w + x)
            if j is None:
                continue
            other = self.state.robots[j]
            at = t + cells * timing.LASER_CELL_MS
            if not other.shield:
                self.destroy(j, at)
                continue
            spent = self.mut(j)
            turn_to = spent.deflect
            spent.shield = False
            spent.deflect = None
            segments.append([seg_start, [x, y]])
            if turn_to is None:
                self.emit({"type": "absorbed", "t_ms": at, "duration_ms": timing.ABSORBED_MS,
                           "robot": other.id})  # fmt: skip
                break
            self.emit({"type": "deflected", "t_ms": at, "duration_ms": timing.DEFLECTED_MS,
                       "robot": other.id, "direction": turn_to})  # fmt: skip
            dx, dy = DELTAS[turn_to]
            seg_start = [x, y]
        beam["duration_ms"] = max(cells, 1) * timing.LASER_CELL_MS
        self.end = max(self.end, t + beam["duration_ms"])

    def kamikaze(self, i: int, t: int) -> None:
        """Hits the launcher and its eight neighbours; a shielded launcher survives."""
        robot = self.state.robots[i]
        self.emit({"type": "kamikaze", "t_ms": t, "duration_ms": timing.KAMIKAZE_MS,
                   "robot": robot.id})  # fmt: skip
        blast = t + timing.KAMIKAZE_MS // 2
        w, h = self.width, self.height
        for y in range(max(0, robot.y - 1), min(h, robot.y + 2)):
            for x in range(max(0, robot.x - 1), min(w, robot.x + 2)):
                j = self.occ.get(y * w + x)
                if j is not None:
                    self.hit(j, blast)

    def hit(self, j: int, t: int) -> None:
        """A missile or blast reaches vehicle j: a shield takes it and drops, else j dies.

        There is no inactive immunity in the remake.
        """
        robot = self.state.robots[j]
        if robot.shield:
            spent = self.mut(j)
            spent.shield = False
            spent.deflect = None
            self.emit({"type": "absorbed", "t_ms": t, "duration_ms": timing.ABSORBED_MS,
                       "robot": robot.id})  # fmt: skip
            return
        self.destroy(j, t)

    def destroy(self, j: int, t: int) -> None:
        """Vehicle j is destroyed: all it mined goes back on its cell, off its owner's money."""
        robot = self.mut(j)
        w = self.width
        del self.occ[robot.y * w + robot.x]
        robot.alive = False
        robot.armed = None
        robot.shield = False
        robot.deflect = None
        dropped = robot.mined
        money = self.state.money
        money[robot.seat] = max(0, money[robot.seat] - dropped)
        cells: list[list[int]] = []
        if dropped:
            self.state.helium[robot.y * w + robot.x] += dropped
            cells.append([robot.x, robot.y, dropped])
        self.emit({"type": "destroyed", "t_ms": t, "duration_ms": timing.DESTROYED_MS,
                   "robot": robot.id, "dropped": dropped, "cells": cells})  # fmt: skip


def resolve(state: State, orders: Orders) -> tuple[State, list[Event], int]:
    """Resolve one turn. Returns (new state, full events, turn length in ms).

    The caller has checked that the match runs, the seat is to move and the turn
    number matches. Each action is checked on the board the previous ones left; an
    illegal one rejects the whole turn. An action's legality never depends on what
    the seat cannot see: when opponents' hidden shields could have changed what an
    earlier weapon did, the orders are judged on the board the seat believes in,
    and an action that reality then makes impossible is skipped instead.
    """
    indexes = _indexes(state, orders)
    on_belief = _needs_belief(state, orders)
    if on_belief:
        _run(masked(state, orders.seat), orders, indexes, lenient=False)
    turn = _run(state, orders, indexes, lenient=on_belief)
    if not turn.events:
        turn.emit({"type": "pass", "t_ms": 0, "duration_ms": 0, "seat": orders.seat})
    turn_ms = max(turn.end, timing.MIN_TURN_MS)
    new = turn.state
    assert isinstance(new, State)
    new.turn += 1
    new.clock_ms += turn_ms
    advance(new, turn.events, turn_ms)
    return new, turn.events, turn_ms


def _indexes(state: State, orders: Orders) -> list[int]:
    seat = orders.seat
    index = state.index
    indexes: list[int] = []
    for n, action in enumerate(orders.actions):
        i = index.get(action.robot)
        if i is None:
            raise OrdersError("unknown_robot", f"There is no vehicle {action.robot!r}.", n)
        robot = state.robots[i]
        if robot.seat != seat:
            raise OrdersError(
                "not_your_robot", f"Vehicle {action.robot} belongs to seat {robot.seat}.", n
            )
        if not robot.alive:
            raise OrdersError("robot_destroyed", f"Vehicle {action.robot} has been destroyed.", n)
        if i in indexes:
            raise OrdersError(
                "duplicate_robot", f"Vehicle {action.robot} is given two actions in one turn.", n
            )
        indexes.append(i)
    return indexes


def _needs_belief(state: State, orders: Orders) -> bool:
    """Whether hidden shields could change how a later action of these orders fares."""
    actions = orders.actions
    if not any(a.type in WEAPON_ACTIONS for a in actions[:-1]):
        return False
    seat = orders.seat
    return any(r.shield and r.alive and r.seat != seat for r in state.robots)


def _run(state: State, orders: Orders, indexes: list[int], *, lenient: bool) -> Turn:
    """Perform the actions in order; with `lenient`, one reality forbids is skipped."""
    turn = Turn(state)
    robots = turn.state.robots
    for n, (action, i) in enumerate(zip(orders.actions, indexes, strict=True)):
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
    return turn


def masked(state: State, seat: int) -> State:
    """The state as `seat` knows it: no opponents' shields or deflects, no seed."""
    known = state.copy()
    known.seed = 0
    for k, r in enumerate(known.robots):
        if r.seat != seat and (r.shield or r.deflect is not None):
            plain = r.copy()
            plain.shield = False
            plain.deflect = None
            known.robots[k] = plain
    return known


def advance(state: State, events: list[Event], turn_ms: int) -> None:
    """Pass the move to the next seat with vehicles, counting rounds, or end the match."""
    living = state.living_seats()
    seats = state.seats
    if len(living) <= 1:
        state.termination = "elimination"
    else:
        k = seats.index(state.to_move) if state.to_move in seats else -1
        for step in range(1, len(seats) + 1):
            candidate = seats[(k + step) % len(seats)]
            if candidate in living:
                break
        wraps = state.to_move is None or candidate <= state.to_move
        if not wraps:
            state.to_move = candidate
            return
        if state.round < state.rounds:
            state.round += 1
            state.to_move = candidate
            return
        state.termination = "rounds"
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
