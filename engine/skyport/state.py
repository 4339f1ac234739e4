"""Skyport's state as protocol JSON (skyport.md "State, orders, views"): a new game and
the checks a state from outside must pass before a turn is resolved on it.

The state stays the plain JSON object the spec shows; `parse` checks every field and
their agreement (a body or a living robot on a passable tile or its spawn, no two on
one tile, resources only on resource tiles); `parse` returns a deep copy to work on,
`checked` the state itself, for reading only.
"""

from __future__ import annotations

import copy
import random
from functools import lru_cache
from typing import Any

from engine.core import OptionError
from engine.errors import ShapeError, StateError
from engine.skyport.mapgen import PASSABLE, SHIPPED, TILE_LETTERS, SkyportMap, generate, shipped

RULESET = "skyport"
SEAT_COUNTS = (2, 3, 4, 5, 6, 7, 8)
MIN_ROUNDS, MAX_ROUNDS, DEFAULT_ROUNDS = 5, 100, 30
MAP_CHOICES = ("generated", *SHIPPED)
WEAPONS = ("laser", "mortar", "droid")
RESOURCE_OF_TILE = {"R": "rubidium", "E": "explosium", "C": "scrap"}
RESOURCE_OF_WEAPON = {"laser": "rubidium", "mortar": "explosium", "droid": "scrap"}
RESOURCES = ("rubidium", "explosium", "scrap")
START_HEALTH = 100
PER_TILE = 2  # each resource tile holds 2

State = dict[str, Any]


def choose_map(seed: int, seats: int, name: str) -> SkyportMap:
    if name == "generated":
        return generate(seed, seats)
    if name not in SHIPPED:
        raise OptionError(f"Option map is one of {', '.join(MAP_CHOICES)}.")
    found = shipped(name)
    if seats not in found.seats():
        raise OptionError(
            f"The map {name} has {len(found.spawns())} spawn tiles: it takes "
            f"{_counts(found.seats())} players, not {seats}; choose fewer seats, "
            "or the generated map.",
        )
    return found


def _counts(seats: range) -> str:
    return str(seats[0]) if len(seats) == 1 else f"{seats[0]} to {seats[-1]}"


def new_state(seed: int, seats: int, rounds: int, map_name: str) -> State:
    """A new match in its loadout phase; seats are dealt to the map's spawns by the seed."""
    if type(seed) is not int:
        raise ShapeError("bad_shape", "The seed must be a whole number.")
    if type(seats) is not int or seats not in SEAT_COUNTS:
        raise ShapeError("bad_shape", "A Skyport match has 2 to 8 seats.")
    if type(rounds) is not int or not MIN_ROUNDS <= rounds <= MAX_ROUNDS:
        raise ShapeError("bad_shape", f"Option rounds is {MIN_ROUNDS} to {MAX_ROUNDS}.")
    if not isinstance(map_name, str):
        raise ShapeError("bad_shape", "Option map takes a string.")
    found = choose_map(seed, seats, map_name)
    spawns = found.spawns()
    random.Random(f"skyport-seats:{seed}").shuffle(spawns)
    spawns = spawns[:seats]  # a map with more spawns than seats leaves the rest empty
    players = [
        {
            "seat": seat,
            "j": j,
            "k": k,
            "spawn": [j, k],
            "health": START_HEALTH,
            "score": 0,
            "dead": False,
            "respawn_next": False,
            "weapons": {},
            "resources": {r: 0 for r in RESOURCES},
        }
        for seat, (j, k) in enumerate(spawns, start=1)
    ]
    resources = {
        f"{j},{k}": PER_TILE
        for j, row in enumerate(found.tiles)
        for k, letter in enumerate(row)
        if letter in RESOURCE_OF_TILE
    }
    order = list(range(1, seats + 1))
    return {
        "ruleset": RULESET,
        "seed": seed,
        "map": map_name,
        "size": found.size,
        "phase": "loadout",
        "tiles": list(found.tiles),
        "resources": resources,
        "players": players,
        "round": 1,
        "rounds": rounds,
        "order": order,
        "turn": 0,
        "awaiting": order[:],
        "scores": {str(s): 0 for s in order},
        "over": False,
        "winners": [],
    }


def _int(value: Any, what: str, low: int | None = None, high: int | None = None) -> int:
    if type(value) is not int:
        raise StateError(f"{what} must be a whole number.")
    if (low is not None and value < low) or (high is not None and value > high):
        raise StateError(f"{what} is out of range.")
    return value


def _bool(value: Any, what: str) -> bool:
    if type(value) is not bool:
        raise StateError(f"{what} must be true or false.")
    return value


_RESOURCE_SET = frozenset(RESOURCES)


def _player_ok(data: Any, size: int, tiles: list[str], phase: str) -> bool:
    """Whether `_player` would pass `data`, found without building its messages (the
    usual case); False sends the player through `_player` for the exact message."""
    if type(data) is not dict:
        return False
    get = data.get
    seat, j, k, spawn, health = get("seat"), get("j"), get("k"), get("spawn"), get("health")
    dead, respawn_next, weapons, held = (
        get("dead"),
        get("respawn_next"),
        get("weapons"),
        get("resources"),
    )
    if not (
        type(seat) is int
        and 1 <= seat <= 8
        and type(j) is int
        and 0 <= j < size
        and type(k) is int
        and 0 <= k < size
        and type(spawn) is list
        and len(spawn) == 2
        and type(health) is int
        and 0 <= health <= START_HEALTH
        and type(get("score")) is int
        and type(dead) is bool
        and type(respawn_next) is bool
        and dead == (health == 0)
        and (dead or not respawn_next)
        and type(weapons) is dict
        and type(held) is dict
    ):
        return False
    sj, sk = spawn
    if not (type(sj) is int and 0 <= sj < size and type(sk) is int and 0 <= sk < size):
        return False
    if tiles[sj][sk] != "S" or ((j != sj or k != sk) and tiles[j][k] not in PASSABLE):
        return False
    if len(weapons) != (0 if phase == "loadout" else 2):
        return False
    for name, level in weapons.items():
        if name not in WEAPONS or type(level) is not int or not 1 <= level <= 3:
            return False
    if held.keys() != _RESOURCE_SET:
        return False
    return all(type(amount) is int and amount >= 0 for amount in held.values())


def _player(data: Any, size: int, tiles: list[str], phase: str) -> None:
    if _player_ok(data, size, tiles, phase):
        return
    if not isinstance(data, dict):
        raise StateError("Each player is an object.")
    seat = _int(data.get("seat"), "A player's seat", 1, 8)
    who = f"Player {seat}"
    j = _int(data.get("j"), f"{who}'s j", 0, size - 1)
    k = _int(data.get("k"), f"{who}'s k", 0, size - 1)
    spawn = data.get("spawn")
    if not isinstance(spawn, list) or len(spawn) != 2:
        raise StateError(f"{who}'s spawn is [j, k].")
    sj = _int(spawn[0], f"{who}'s spawn", 0, size - 1)
    sk = _int(spawn[1], f"{who}'s spawn", 0, size - 1)
    if tiles[sj][sk] != "S":
        raise StateError(f"{who}'s spawn is not a spawn tile.")
    if (j, k) != (sj, sk) and tiles[j][k] not in PASSABLE:
        raise StateError(f"{who} stands on a tile no one may enter.")
    health = _int(data.get("health"), f"{who}'s health", 0, START_HEALTH)
    _int(data.get("score"), f"{who}'s score")
    dead = _bool(data.get("dead"), f"{who}'s dead")
    respawn_next = _bool(data.get("respawn_next"), f"{who}'s respawn_next")
    if dead != (health == 0) or (respawn_next and not dead):
        raise StateError(f"{who}'s health, dead and respawn_next disagree.")
    weapons = data.get("weapons")
    if not isinstance(weapons, dict) or any(w not in WEAPONS for w in weapons):
        raise StateError(f"{who}'s weapons are an object of laser, mortar, droid.")
    for level in weapons.values():
        _int(level, f"{who}'s weapon level", 1, 3)
    if len(weapons) != (0 if phase == "loadout" else 2):
        raise StateError(f"{who} has two weapons once the loadout phase is over.")
    held = data.get("resources")
    if not isinstance(held, dict) or set(held) != set(RESOURCES):
        raise StateError(f"{who}'s resources are rubidium, explosium and scrap.")
    for amount in held.values():
        _int(amount, f"{who}'s resources", 0)


def parse(state: Any) -> State:
    """A checked deep copy of `state`; raises StateError on anything inconsistent."""
    return copy_state(checked(state))


_ATOMS = (int, str, bool, float, type(None))


def _copy(value: Any) -> Any:
    """A deep copy of a JSON value (dicts, lists and atoms), as `copy.deepcopy` makes
    it but without its memo, which a JSON tree does not need."""
    kind = type(value)
    if kind is dict:
        return {k: v if type(v) in _ATOMS else _copy(v) for k, v in value.items()}
    if kind is list:
        return [v if type(v) in _ATOMS else _copy(v) for v in value]
    return copy.deepcopy(value)


def copy_state(state: State) -> State:
    """A deep copy of a checked state, to resolve on: the tiles are strings (a new
    list of the same strings), the resources whole numbers (a new dict), the rest is
    copied as JSON."""
    out: State = {}
    for key, value in state.items():
        if type(value) in _ATOMS:
            out[key] = value
        elif key in _FLAT:
            out[key] = value.copy()
        elif key == "players":
            out[key] = [_copy_player(p) for p in value]
        else:
            out[key] = _copy(value)
    return out


# Checked fields whose items are strings or numbers: a shallow copy is a deep one.
_FLAT = frozenset({"tiles", "resources", "order", "awaiting", "winners", "scores"})
_PLAYER_KEYS = 10  # seat, j, k, spawn, health, score, dead, respawn_next, weapons, resources


def _copy_player(player: dict[str, Any]) -> dict[str, Any]:
    """A checked player's deep copy: its spawn, weapons and resources hold numbers."""
    if len(player) != _PLAYER_KEYS:
        copied: dict[str, Any] = _copy(player)  # fields of its own besides the checked ones
        return copied
    return {
        **player,
        "spawn": player["spawn"][:],
        "weapons": player["weapons"].copy(),
        "resources": player["resources"].copy(),
    }


@lru_cache(maxsize=64)
def _resource_keys(tiles: tuple[str, ...]) -> frozenset[str]:
    """The 'j,k' key of every resource tile of a map's rows."""
    return frozenset(
        f"{j},{k}"
        for j, row in enumerate(tiles)
        for k, letter in enumerate(row)
        if letter in RESOURCE_OF_TILE
    )


def _check_resources(resources: dict[Any, Any], tiles: list[str], size: int) -> None:
    """Every resource tile has a count of 1 or 2 in `resources`, under its 'j,k' key,
    and nothing else is there. The usual state has exactly the canonical keys, found
    from a table per map; any other is checked key by key, for the exact message."""
    if resources.keys() == _resource_keys(tuple(tiles)):
        for left in resources.values():
            _int(left, "A tile's resources", 1, PER_TILE)
        return
    for key, left in resources.items():
        parts = key.split(",") if isinstance(key, str) else []
        if len(parts) != 2 or not all(p.isdigit() for p in parts):
            raise StateError("resources is an object keyed 'j,k'.")
        j, k = int(parts[0]), int(parts[1])
        if not (j < size and k < size and tiles[j][k] in RESOURCE_OF_TILE):
            raise StateError(f"resources names {key!r}, not a resource tile.")
        _int(left, "A tile's resources", 1, PER_TILE)
    for j, row in enumerate(tiles):
        for k, letter in enumerate(row):
            if letter in RESOURCE_OF_TILE and f"{j},{k}" not in resources:
                raise StateError(f"Resource tile {j},{k} has no count in resources.")


def checked(state: Any) -> State:
    """`state` itself once checked (not a copy: for reading only); raises StateError
    on anything inconsistent."""
    if not isinstance(state, dict) or state.get("ruleset") != RULESET:
        raise StateError("A Skyport state is an object with ruleset 'skyport'.")
    size = _int(state.get("size"), "size", 2, 99)
    tiles = state.get("tiles")
    if (
        not isinstance(tiles, list)
        or len(tiles) != size
        or any(not isinstance(r, str) or len(r) != size for r in tiles)
        or not set("".join(tiles)) <= TILE_LETTERS
    ):
        raise StateError(f"tiles are {size} strings of {size} tile letters.")
    phase = state.get("phase")
    if phase not in ("loadout", "play"):
        raise StateError("phase is 'loadout' or 'play'.")
    resources = state.get("resources")
    if not isinstance(resources, dict):
        raise StateError("resources is an object keyed 'j,k'.")
    _check_resources(resources, tiles, size)
    players = state.get("players")
    if not isinstance(players, list) or len(players) not in SEAT_COUNTS:
        raise StateError("players lists 2 to 8 players.")
    for p in players:
        _player(p, size, tiles, phase)
    seats = [p["seat"] for p in players]
    if seats != list(range(1, len(players) + 1)):
        raise StateError("players are seats 1, 2, ... in order.")
    places = [(p["j"], p["k"]) for p in players]
    if len(set(places)) != len(places) or len({tuple(p["spawn"]) for p in players}) != len(places):
        raise StateError("Two players share a tile or a spawn.")
    for p in players:
        if (p["j"], p["k"]) != tuple(p["spawn"]) and tiles[p["j"]][p["k"]] == "S":
            raise StateError(f"Player {p['seat']} stands on another seat's spawn.")
    order = state.get("order")
    if (
        not isinstance(order, list)
        or any(type(s) is not int for s in order)
        or sorted(order) != seats
    ):
        raise StateError("order lists every seat once.")
    rounds = _int(state.get("rounds"), "rounds", 1, MAX_ROUNDS)
    _int(state.get("round"), "round", 1, rounds + 1)
    _int(state.get("turn"), "turn", 0)
    over = _bool(state.get("over"), "over")
    awaiting = state.get("awaiting")
    if not isinstance(awaiting, list) or any(type(s) is not int for s in awaiting):
        raise StateError("awaiting is a list of seats.")
    if over:
        expected_awaiting: list[int] = []
    elif phase == "loadout":
        expected_awaiting = seats
    else:
        expected_awaiting = awaiting if len(awaiting) == 1 and awaiting[0] in seats else []
    if awaiting != expected_awaiting or (not over and not awaiting):
        raise StateError("awaiting does not fit the phase.")
    if not over and phase == "play" and players[awaiting[0] - 1]["dead"]:
        raise StateError("A dead seat is never awaited.")
    winners = state.get("winners")
    if not isinstance(winners, list) or any(w not in seats for w in winners):
        raise StateError("winners lists seats.")
    scores = state.get("scores")
    if scores != {str(p["seat"]): p["score"] for p in players}:
        raise StateError("scores must match the players' scores.")
    return state
