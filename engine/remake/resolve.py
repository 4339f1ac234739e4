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
from engine.remake import timing
from engine.remake.orders import MISSILE_RANGE, MOVE_RANGE, MOVING, Action, Cell, Orders
from engine.remake.state import State

Event = dict[str, Any]

MINE_PER_CELL = 100


class Turn(h3.Turn):
    """One remake turn's working copy of the state, occupancy and timeline."""

    noun = "Vehicle"
    move_range = MOVE_RANGE
    missile_range = MISSILE_RANGE
    inactive_immune = False  # a weapon hits a vehicle that has not acted yet
    beam_stops_on_its_track = True  # a beam deflected back onto its own track ends there

    def check(self, action: Action, i: int, n: int) -> list[Cell]:
        """Raise unless the action is legal now; returns the path it will walk.

        Helium 3's checks with the remake's ranges, and a deflect needs a raised shield.
        """
        if action.type == "deflect":
            robot = self.state.robots[i]
            if not robot.shield:
                raise OrdersError(
                    "not_shielded",
                    f"Vehicle {robot.id} has no shield up; raise one on a turn before deflecting.",
                    n,
                )
            return []
        return super().check(action, i, n)

    def perform(self, action: Action, i: int, path: list[Cell]) -> None:
        if action.type in MOVING:
            # Moving, mining, arming and shielding are Helium 3's: they drop the weapon
            # and the shield first, then arm or shield (a remake shield has no deflect).
            super().perform(action, i, path)
            return
        t = self.start
        robot = self.mut(i)
        robot.active = True
        kind = action.type
        if kind == "deflect":
            # Raised on the shield already up; like a shield it neither turns the vehicle
            # nor costs time: a hidden deflect must not show in the public timeline.
            robot.shield = True
            robot.deflect = action.direction
            self.emit({"type": "shielded", "t_ms": t, "duration_ms": timing.DEFLECT_MS,
                       "robot": robot.id, "seat": robot.seat,
                       "deflect": action.direction})  # fmt: skip
        elif kind == "fire_missile":
            assert action.target is not None
            robot.armed = None  # firing keeps the shield
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
        helium = self.helium()
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

    def blast_launcher(self, i: int, t: int) -> None:
        """The launcher is hit with its eight neighbours (Helium 3's blast reaches it): a
        shielded launcher survives."""

    def drops(self, mined: int) -> int:
        """A destroyed vehicle drops all it mined."""
        return mined

    def land(self, x: int, y: int, dropped: int) -> list[list[int]]:
        """All of the drop goes back on the vehicle's cell."""
        self.helium()[y * self.width + x] += dropped
        return [[x, y, dropped]]


def resolve(state: State, orders: Orders) -> tuple[State, list[Event], int]:
    """Resolve one turn. Returns (new state, full events, turn length in ms).

    The caller has checked that the match runs, the seat is to move and the turn
    number matches. The actions are performed as Helium 3 performs its own
    (`h3.perform_orders`: each on the board the previous ones left, judged on what
    the seat can see), by the remake's `Turn`.
    """
    new, events, turn_ms = h3.resolve_with(Turn, state, orders)
    assert isinstance(new, State)
    advance(new, events, turn_ms)
    return new, events, turn_ms


def masked(state: State, seat: int) -> State:
    """The state as `seat` knows it (Helium 3's `masked`): no opponents' shields or
    deflects, no seed."""
    known = h3.masked(state, seat)
    assert isinstance(known, State)
    return known


def advance(state: State, events: list[Event], turn_ms: int) -> None:
    """Pass the move to the next seat with vehicles, counting rounds, or end the match."""
    living = state.living_seats()
    if len(living) <= 1:
        state.termination = "elimination"
    else:
        candidate = h3.next_seat(state, living)
        wraps = state.to_move is None or candidate <= state.to_move
        if not wraps:
            state.to_move = candidate
            return
        if state.round < state.rounds:
            state.round += 1
            state.to_move = candidate
            return
        state.termination = "rounds"
    h3.end_match(state, events, turn_ms, living)
