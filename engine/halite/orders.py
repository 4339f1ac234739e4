"""Halite's orders: `{"seat", "turn", "moves": [[x, y, direction], ...]}`.

A move names one of the seat's cells and a direction: 0 still, 1 north (y - 1),
2 east (x + 1), 3 south (y + 1), 4 west (x - 1). Cells not named stay still; an
empty list is a pass. Errors: a cell the seat does not own is `not_your_piece`, a
cell named twice `duplicate_piece`, a direction outside 0..4 `bad_direction`, a
cell off the board `off_board`; anything not of this shape `bad_shape`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.errors import OrdersError, ShapeError

STILL, NORTH, EAST, SOUTH, WEST = range(5)
DIRECTIONS = (STILL, NORTH, EAST, SOUTH, WEST)
DIRECTION_NAMES = ("still", "north", "east", "south", "west")
_KEYS = frozenset({"seat", "turn", "moves"})

__all__ = ["DIRECTIONS", "Orders", "parse_envelope", "read_moves"]


@dataclass(frozen=True, slots=True)
class Orders:
    """One seat's orders; `moves` maps a cell index (y * width + x) to its direction."""

    seat: int
    turn: int
    moves: dict[int, int]

    def to_json(self, width: int) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "turn": self.turn,
            "moves": [[i % width, i // width, d] for i, d in self.moves.items()],
        }


def parse_envelope(data: Any) -> tuple[int, int, list[Any]]:
    """The orders object's own fields: (seat, turn, raw moves)."""
    if type(data) is not dict or data.keys() != _KEYS:
        raise ShapeError("bad_shape", "Orders are an object with 'seat', 'turn' and 'moves'.")
    seat, turn, moves = data["seat"], data["turn"], data["moves"]
    if type(seat) is not int or type(turn) is not int:
        raise ShapeError("bad_shape", "'seat' and 'turn' must be whole numbers.")
    if type(moves) is not list:
        raise ShapeError("bad_shape", "'moves' must be a list of [x, y, direction].")
    return seat, turn, moves


def read_moves(
    moves: list[Any], seat: int, owner: list[list[int]], width: int, height: int
) -> dict[int, int]:
    """The moves as {cell index: direction}, each checked against the row-major `owner`."""
    out: dict[int, int] = {}
    for move in moves:
        if type(move) is not list or len(move) != 3:
            raise ShapeError("bad_shape", f"Move {_number(moves, move)} must be [x, y, direction].")
        x, y, d = move
        if type(x) is not int or type(y) is not int:
            raise ShapeError(
                "bad_shape", f"Move {_number(moves, move)}: x and y must be whole numbers."
            )
        if type(d) is not int or d < 0 or d > 4:
            raise OrdersError(
                "bad_direction",
                f"Move {_number(moves, move)}: the direction is 0 (still), 1 (north),"
                f" 2 (east), 3 (south) or 4 (west), not {str(d)[:20]}.",
            )
        if x < 0 or x >= width or y < 0 or y >= height:
            raise OrdersError(
                "off_board",
                f"Move {_number(moves, move)}: ({x}, {y}) is off the {width} x {height} board.",
            )
        if owner[y][x] != seat:
            raise OrdersError(
                "not_your_piece",
                f"Move {_number(moves, move)}: seat {seat} has no piece at ({x}, {y}).",
            )
        i = y * width + x
        if i in out:
            raise OrdersError(
                "duplicate_piece", f"Move {_number(moves, move)}: ({x}, {y}) is named twice."
            )
        out[i] = d
    return out


def _number(moves: list[Any], move: Any) -> int:
    """The 1-based place of `move` in the list (for a message; only on the error path)."""
    return next(n for n, m in enumerate(moves, start=1) if m is move)
