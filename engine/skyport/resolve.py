"""Skyport's turns (skyport.md "Rounds and turns", "Weapons", "Points, death, the end").

`resolve_loadouts` ends the setup phase; `resolve_turn` plays one seat's up to three
actions in order on a copy of the state. An action the rules forbid raises
`OrdersError("illegal_action", ..., action=i)` before anything is returned, so a
rejected turn changes nothing; `check` is the same resolution, thrown away.
"""

from __future__ import annotations

from typing import Any

from engine.errors import OrdersError
from engine.skyport.hexgrid import DIRECTIONS, Tile, neighbours, offset_length, on_map, step
from engine.skyport.orders import ACTIONS_PER_TURN
from engine.skyport.state import (
    RESOURCE_OF_TILE,
    RESOURCE_OF_WEAPON,
    START_HEALTH,
    State,
)

Event = dict[str, Any]

SLOT_MS = 300  # each action of a turn has its own slot of the animation
LOADOUT_MS = 300
UPGRADE_COST = {1: 4, 2: 5}  # to reach level 2, then level 3
LASER_RANGE = {1: 5, 2: 6, 3: 7}
LASER_DAMAGE = {1: 16, 2: 18, 3: 22}
MORTAR_RANGE = {1: 2, 2: 3, 3: 4}
MORTAR_DAMAGE = {1: 20, 2: 20, 3: 25}
MORTAR_AREA = 18
DROID_RANGE = {1: 3, 2: 4, 3: 5}
DROID_DAMAGE = {1: 22, 2: 24, 3: 26}
DROID_AREA = 10
KILL_BOUNTY = 20
DEATH_PENALTY = -40
NO_ACTION_PENALTY = -10
ON_SPAWN_PENALTY = -10
BLOCKING = frozenset("OVS")  # rock, void and spawn: no move, droid or mortar ends there
ATTACKS = ("laser", "mortar", "droid")


def damage(main: int, area: int, unused: int) -> int:
    """round_half_up(main + area + unused * 0.2 * (main + area)), on integers: the sum
    times (5 + unused) / 5, rounded half up."""
    base = (main + area) * (5 + unused)
    return (2 * base + 5) // 10


def _illegal(index: int, message: str) -> OrdersError:
    return OrdersError("illegal_action", f"Action {index + 1}: {message}", action=index)


def resolve_loadouts(state: State, loadouts: dict[int, list[str]]) -> tuple[list[Event], int]:
    """Every seat's loadout at once (level 1 each); the first seat in order then plays."""
    for p in state["players"]:
        p["weapons"] = {w: 1 for w in loadouts[p["seat"]]}
    state.update(phase="play", turn=state["turn"] + 1, awaiting=[state["order"][0]])
    event: Event = {
        "type": "loadouts",
        "t_ms": 0,
        "duration_ms": LOADOUT_MS,
        "players": [{"seat": p["seat"], "weapons": list(p["weapons"])} for p in state["players"]],
    }
    return [event], LOADOUT_MS


class _Turn:
    """One seat's turn being resolved on a state (mutated in place)."""

    def __init__(self, state: State, seat: int) -> None:
        self.state = state
        self.size: int = state["size"]
        self.tiles: list[str] = state["tiles"]
        self.players: list[dict[str, Any]] = state["players"]
        self.me = self.players[seat - 1]
        self.seat = seat
        self.events: list[Event] = []
        self.t_ms = 0

    def letter(self, tile: Tile) -> str:
        return self.tiles[tile[0]][tile[1]]

    def at(self) -> Tile:
        return (self.me["j"], self.me["k"])

    def someone_on(self, tile: Tile) -> dict[str, Any] | None:
        for p in self.players:
            if (p["j"], p["k"]) == tile:
                return p
        return None

    def emit(self, kind: str, **fields: Any) -> None:
        self.events.append({"type": kind, "t_ms": self.t_ms, "duration_ms": SLOT_MS, **fields})

    def direction(self, i: int, name: str) -> str:
        if name not in DIRECTIONS:
            raise _illegal(i, f"{name[:20]!r} is not a direction ({', '.join(DIRECTIONS)}).")
        return name

    def move(self, i: int, action: dict[str, Any]) -> None:
        direction = self.direction(i, action["direction"])
        start = self.at()
        to = step(start, direction)
        if not on_map(to, self.size):
            raise _illegal(i, f"moving {direction} leaves the map.")
        if self.letter(to) not in "GERC":
            kind = {"O": "rock", "V": "void", "S": "a spawn tile"}[self.letter(to)]
            raise _illegal(i, f"moving {direction} would enter {kind}.")
        if self.someone_on(to) is not None:
            raise _illegal(i, f"moving {direction} is blocked by a player or a body.")
        self.me["j"], self.me["k"] = to
        self.emit("move", seat=self.seat, **{"from": list(start)}, to=list(to), direction=direction)

    def mine(self, i: int) -> None:
        j, k = self.at()
        letter = self.letter((j, k))
        if letter not in RESOURCE_OF_TILE:
            raise _illegal(i, "there is nothing to mine here.")
        key = f"{j},{k}"
        left = self.state["resources"][key] - 1
        if left:
            self.state["resources"][key] = left
        else:
            del self.state["resources"][key]
            self.tiles[j] = self.tiles[j][:k] + "G" + self.tiles[j][k + 1 :]
        resource = RESOURCE_OF_TILE[letter]
        self.me["resources"][resource] += 1
        self.emit("mine", seat=self.seat, at=[j, k], resource=resource, left=left)

    def weapon(self, i: int, name: str) -> int:
        if name not in self.me["weapons"]:
            raise _illegal(i, f"{name[:20]!r} is not in this seat's loadout.")
        level: int = self.me["weapons"][name]
        return level

    def upgrade(self, i: int, action: dict[str, Any]) -> None:
        name = action["weapon"]
        level = self.weapon(i, name)
        if level >= 3:
            raise _illegal(i, f"the {name} is at level 3 already.")
        resource = RESOURCE_OF_WEAPON[name]
        cost = UPGRADE_COST[level]
        if self.me["resources"][resource] < cost:
            raise _illegal(i, f"level {level + 1} of the {name} takes {cost} {resource}.")
        self.me["resources"][resource] -= cost
        self.me["weapons"][name] = level + 1
        self.emit("upgrade", seat=self.seat, weapon=name, level=level + 1)

    def hit(self, tile: Tile, amount: int) -> None:
        """`amount` damage to whoever stands alive on `tile`, off a spawn."""
        victim = self.someone_on(tile)
        if victim is None or victim["dead"] or self.letter(tile) == "S":
            return
        victim["health"] -= amount
        own = victim is self.me
        points = 0 if own else amount
        self.me["score"] += points
        self.emit(
            "damage", seat=victim["seat"], by=self.seat, at=list(tile), amount=amount, points=points
        )
        if victim["health"] > 0:
            return
        victim.update(health=0, dead=True, respawn_next=False)
        bounty = 0 if own else KILL_BOUNTY
        self.me["score"] += bounty
        self.emit("death", seat=victim["seat"], by=self.seat, at=list(tile), bounty=bounty)
        victim["score"] += DEATH_PENALTY
        self.emit("penalty", seat=victim["seat"], points=DEATH_PENALTY, reason="death")

    def blast(self, centre: Tile, main: int, area: int, unused: int) -> None:
        self.hit(centre, damage(main, 0, unused))
        for tile in neighbours(centre, self.size):
            self.hit(tile, damage(0, area, unused))

    def laser(self, i: int, action: dict[str, Any], unused: int) -> None:
        level = self.weapon(i, "laser")
        direction = self.direction(i, action["direction"])
        start = tile = self.at()
        crossed: list[Tile] = []
        for _ in range(LASER_RANGE[level]):
            tile = step(tile, direction)
            if not on_map(tile, self.size) or self.letter(tile) == "O":
                break
            crossed.append(tile)
        self.emit(
            "laser", seat=self.seat, **{"from": list(start)}, direction=direction,
            tiles=[list(t) for t in crossed],
        )  # fmt: skip
        for tile in crossed:
            self.hit(tile, damage(LASER_DAMAGE[level], 0, unused))

    def mortar(self, i: int, action: dict[str, Any], unused: int) -> None:
        level = self.weapon(i, "mortar")
        dj, dk = action["target"]
        if offset_length(dj, dk) > MORTAR_RANGE[level]:
            raise _illegal(i, f"the level-{level} mortar reaches {MORTAR_RANGE[level]} tiles.")
        start = self.at()
        target = (start[0] + dj, start[1] + dk)
        if not on_map(target, self.size):
            raise _illegal(i, "the mortar's target is off the map.")
        landed = self.letter(target) not in BLOCKING
        self.emit(
            "mortar", seat=self.seat, **{"from": list(start)}, target=list(target), landed=landed
        )
        if landed:
            self.blast(target, MORTAR_DAMAGE[level], MORTAR_AREA, unused)

    def droid(self, i: int, action: dict[str, Any], unused: int) -> None:
        level = self.weapon(i, "droid")
        sequence = [self.direction(i, d) for d in action["sequence"]]
        if len(sequence) > DROID_RANGE[level]:
            raise _illegal(i, f"the level-{level} droid walks at most {DROID_RANGE[level]} steps.")
        start = tile = self.at()
        path: list[Tile] = []
        for direction in sequence:
            ahead = step(tile, direction)
            if not on_map(ahead, self.size) or self.letter(ahead) in BLOCKING:
                break
            tile = ahead
            path.append(tile)
        self.emit(
            "droid", seat=self.seat, **{"from": list(start)}, path=[list(t) for t in path],
            at=list(tile),
        )  # fmt: skip
        self.blast(tile, DROID_DAMAGE[level], DROID_AREA, unused)

    def play(self, actions: list[dict[str, Any]]) -> None:
        attacked = False
        for i, action in enumerate(actions):
            kind = action["type"]
            if attacked:
                raise _illegal(i, "an attack ends the turn; no action may follow it.")
            if kind == "move":
                self.move(i, action)
            elif kind == "mine":
                self.mine(i)
            elif kind == "upgrade":
                self.upgrade(i, action)
            else:
                if self.letter(self.at()) == "S":
                    raise _illegal(i, "no one attacks from a spawn tile.")
                unused = ACTIONS_PER_TURN - i - 1
                getattr(self, kind)(i, action, unused)
                attacked = True
            self.t_ms += SLOT_MS

    def penalty(self, points: int, reason: str) -> None:
        self.me["score"] += points
        self.events.append(
            {"type": "penalty", "t_ms": self.t_ms, "duration_ms": 0, "seat": self.seat,
             "points": points, "reason": reason}
        )  # fmt: skip

    def instant(self, kind: str, **fields: Any) -> None:
        self.events.append({"type": kind, "t_ms": self.t_ms, "duration_ms": 0, **fields})

    def pass_turn(self) -> None:
        """The turn goes to the next seat in order: a dead seat skips its next turn and
        comes back on its spawn at the one after; the match ends after the last round."""
        state = self.state
        order: list[int] = state["order"]
        index = order.index(self.seat)
        while True:
            index += 1
            if index == len(order):
                index = 0
                if state["round"] == state["rounds"]:
                    self.finish()
                    return
                state["round"] += 1
            p = self.players[order[index] - 1]
            if p["dead"] and not p["respawn_next"]:
                p["respawn_next"] = True
                self.instant("skip", seat=p["seat"])
                continue
            if p["dead"]:
                p["j"], p["k"] = p["spawn"]
                p.update(health=START_HEALTH, dead=False, respawn_next=False)
                self.instant("respawn", seat=p["seat"], at=list(p["spawn"]))
            state["awaiting"] = [p["seat"]]
            return

    def finish(self) -> None:
        best = max(p["score"] for p in self.players)
        winners = [p["seat"] for p in self.players if p["score"] == best]
        self.state.update(over=True, awaiting=[], winners=winners)
        self.instant("over", winners=winners)


def resolve_turn(state: State, seat: int, actions: list[dict[str, Any]]) -> tuple[list[Event], int]:
    """Play `seat`'s actions on `state` (a copy the caller owns), end its turn, pass it on."""
    turn = _Turn(state, seat)
    turn.play(actions)
    if not actions:
        turn.penalty(NO_ACTION_PENALTY, "no_action")
    me = turn.me
    if not me["dead"] and [me["j"], me["k"]] == list(me["spawn"]):
        turn.penalty(ON_SPAWN_PENALTY, "on_spawn")
    state["turn"] += 1
    turn.pass_turn()
    state["scores"] = {str(p["seat"]): p["score"] for p in turn.players}
    return turn.events, turn.t_ms
