"""What a bot knows of a Skyport board, and the actions the rules allow on it.

A `Board` is read from the seat's view (protocol JSON) once per decision; a `Me` is the
seat's own robot as its actions change it (position, weapons, resources). `legal_*`
give exactly the actions the engine accepts in the position they are asked about, and
`Me.do` plays a non-attack action the way the engine resolves it, so a bot can chain up
to three actions, each built on the state the previous one leaves.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.errors import StateError
from engine.skyport.hexgrid import DIRECTIONS, Tile, offset_length, on_map, step
from engine.skyport.mapgen import PASSABLE
from engine.skyport.resolve import (
    DROID_AREA,
    DROID_DAMAGE,
    DROID_RANGE,
    LASER_DAMAGE,
    LASER_RANGE,
    MORTAR_AREA,
    MORTAR_DAMAGE,
    MORTAR_RANGE,
    UPGRADE_COST,
)
from engine.skyport.state import RESOURCE_OF_TILE, RESOURCE_OF_WEAPON

Action = dict[str, Any]
# The rules' numbers by weapon: range and main damage by level, and the area damage.
RANGE = {"laser": LASER_RANGE, "mortar": MORTAR_RANGE, "droid": DROID_RANGE}
DAMAGE = {"laser": LASER_DAMAGE, "mortar": MORTAR_DAMAGE, "droid": DROID_DAMAGE}
AREA = {"laser": 0, "mortar": MORTAR_AREA, "droid": DROID_AREA}
RESOURCE_OF = RESOURCE_OF_WEAPON
RESOURCE_AT = RESOURCE_OF_TILE


@dataclass(slots=True)
class Player:
    seat: int
    at: Tile
    spawn: Tile
    health: int
    score: int
    dead: bool
    weapons: dict[str, int]
    resources: dict[str, int]


@dataclass(slots=True)
class Board:
    size: int
    tiles: list[list[str]]
    resources: dict[Tile, int]
    players: dict[int, Player]
    seed: int
    turn: int
    round: int
    rounds: int
    phase: str

    @classmethod
    def from_json(cls, state: Any) -> Board:
        if not isinstance(state, dict):
            raise StateError("A Skyport state is a JSON object.")
        try:
            size = int(state["size"])
            tiles = [list(row) for row in state["tiles"]]
            resources: dict[Tile, int] = {}
            for key, count in state.get("resources", {}).items():
                j, k = (int(x) for x in str(key).split(","))
                resources[(j, k)] = int(count)
            players: dict[int, Player] = {}
            for p in state["players"]:
                players[int(p["seat"])] = Player(
                    seat=int(p["seat"]),
                    at=(int(p["j"]), int(p["k"])),
                    spawn=(int(p["spawn"][0]), int(p["spawn"][1])),
                    health=int(p["health"]),
                    score=int(p["score"]),
                    dead=bool(p["dead"]),
                    weapons={str(w): int(n) for w, n in p["weapons"].items()},
                    resources={str(r): int(n) for r, n in p["resources"].items()},
                )
            return cls(
                size=size,
                tiles=tiles,
                resources=resources,
                players=players,
                seed=int(state.get("seed", 0)),
                turn=int(state["turn"]),
                round=int(state.get("round", 1)),
                rounds=int(state.get("rounds", 30)),
                phase=str(state["phase"]),
            )
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
            raise StateError(f"Not a Skyport state: {exc!s:.80}.") from None

    def on_map(self, at: Tile) -> bool:
        return on_map(at, self.size)

    def tile(self, at: Tile) -> str:
        return self.tiles[at[0]][at[1]]

    def blocked(self) -> set[Tile]:
        """Tiles a robot cannot step onto because a player or a body is there."""
        return {p.at for p in self.players.values()}


@dataclass(slots=True)
class Me:
    """The seat's own robot as its turn's actions change it, on a board of its own
    (mining changes the board's counts, so a bot works on a board it may change)."""

    board: Board
    seat: int
    at: Tile
    spawn: Tile
    weapons: dict[str, int]
    resources: dict[str, int]
    others: set[Tile] = field(default_factory=set)

    @classmethod
    def of(cls, board: Board, seat: int) -> Me:
        p = board.players[seat]
        others = {q.at for s, q in board.players.items() if s != seat}
        return cls(board, seat, p.at, p.spawn, dict(p.weapons), dict(p.resources), others)

    def copy(self) -> Me:
        """The robot as it stands, to try actions on (the board is shared: mining on a
        copy changes it)."""
        return Me(
            self.board, self.seat, self.at, self.spawn, dict(self.weapons),
            dict(self.resources), self.others,
        )  # fmt: skip

    def can_enter(self, at: Tile) -> bool:
        board = self.board
        return board.on_map(at) and board.tile(at) in PASSABLE and at not in self.others

    def legal_moves(self) -> list[str]:
        return [d for d in DIRECTIONS if self.can_enter(step(self.at, d))]

    def can_mine(self) -> bool:
        board = self.board
        return board.tile(self.at) in RESOURCE_AT and board.resources.get(self.at, 0) > 0

    def upgradable(self) -> list[str]:
        out = []
        for weapon, level in self.weapons.items():
            cost = UPGRADE_COST.get(level)
            if cost is not None and self.resources.get(RESOURCE_OF[weapon], 0) >= cost:
                out.append(weapon)
        return out

    def can_attack(self) -> bool:
        return self.at != self.spawn

    def mortar_targets(self) -> list[Tile]:
        """Offsets [dj, dk] the mortar may aim at: within range and on the map."""
        level = self.weapons.get("mortar")
        if level is None:
            return []
        reach = MORTAR_RANGE[level]
        j, k = self.at
        return [
            (dj, dk)
            for dj in range(-reach, reach + 1)
            for dk in range(-reach, reach + 1)
            if offset_length(dj, dk) <= reach and self.board.on_map((j + dj, k + dk))
        ]

    def do(self, action: Action) -> None:
        """Play a move, a mine or an upgrade as the engine resolves it."""
        kind = action["type"]
        if kind == "move":
            self.at = step(self.at, action["direction"])
        elif kind == "mine":
            board = self.board
            resource = RESOURCE_AT[board.tile(self.at)]
            self.resources[resource] = self.resources.get(resource, 0) + 1
            left = board.resources[self.at] - 1
            if left > 0:
                board.resources[self.at] = left
            else:
                del board.resources[self.at]
                j, k = self.at
                board.tiles[j][k] = "G"
        elif kind == "upgrade":
            weapon = action["weapon"]
            level = self.weapons[weapon]
            self.resources[RESOURCE_OF[weapon]] -= UPGRADE_COST[level]
            self.weapons[weapon] = level + 1
        else:
            raise ValueError(f"not a non-attack action: {kind}")
