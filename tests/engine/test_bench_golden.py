"""Digests of the matches the benches time: each fast path gives, turn for turn, the
same events and the same states as the straightforward code it replaced.

Each case plays a match of a built-in bot through `engine.apply` (the bench's
mid-match scenarios from the start, and whole matches of other bots) and pins the
sha256 of the final state's canonical JSON and a running sha256 over every turn's
events as everyone reads them once the match is over (`engine.events_view`). Helium 3's typed path (`api.play`, what `engine.bench` times) is pinned the
same way. The digests were recorded before the resolution code was optimised.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

import engine
from engine import bench
from engine.helium3 import api


def _sha(value: Any) -> str:
    canonical = json.dumps(value, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


# "ruleset/case": (resolutions, digest of the final state, running digest of the events)
PINNED: dict[str, tuple[int, str, str]] = {
    'halite/30x30, 4 seats': (150, '92a0b3cdb69e473f084570e3cd1dc996758ad5b8879fc3569021b4d521f97c0b', '97ebba82241d307ef4a78211de53f6a779ec977e04bfe1ef6b610823372075a2'),
    'halite/50x50, 6 seats': (150, '9729944910aac56328b6f6ea0221c30c604260be8a6e0e5fe06e3ecbd589dae5', 'a24056e9b42a744dd1a09163e8cb2dc1158e3551ac462409b3f38fe1cb91e01c'),
    'halite/30x30, 4 seats, crowded': (220, '44fad4dbdd7d395d9f6dd7ec3af377bc677cbba0e75bb56e5b8a2624bdc13423', 'f2f573a751b0819dc502c92ae7f8fa7f4ebefa0a923de4786a3919269d964bae'),
    'skyport/generated, 4 seats': (87, '1264420b83235f6826de30f1d54285c1a9a379d359c32abda8fdb6af9a125aae', '4782ddc8e862765c17dce5980f9fc2b3def3fc21da51280fd6da11aeedcd2dd8'),
    'arena/hunters, 4 seats': (112, 'b339553efb091a22089ae842c0033e41a84ec703104a6573842ee9f2d94de10c', '686bf357bac8b29ca865c3d0da04265bf9be03118887f17b7ad91da83b424eba'),
    'helium3/random x4 whole': (102, '72f7e45561e33c273ad76091a3e48abc8403ed13749ce5b4ca8230c0e94cafdb', 'cb3055f08d47fa78a34268f81172eba6c1892dbea2cf6259ea5d0b133c1c7540'),
    'helium3/fighter x4 whole': (79, '0dee3b06f199cce02ed893c2a59743bf26293fc96a732ac4da41b599874b544b', '3818d0307a1fad18ace219cf00711e181b5cd3ed1c997c665b95ce21697198a6'),
    'helium3-remake/random x4 whole': (61, '8585b2630296027a03819b2e3d854c897728934734f0c9d11f62dd3f32e47d2a', '4c81f6e03d4d759e4cb8503f0dafb530ddbe100bda81c101ac4467bc0a42a4d2'),
    'skyport/random x4 whole': (116, '0be94fddc1d2f14a8550440c36cb8ccb79c17dc5f6341f6a50253867358cf01f', '767d90c8b3359e6c47f77167fce367a3ee77deedc20687c9b763cc6389d40f09'),
    'arena/random x4 whole': (446, 'c116e26eea928bd6c84e3117106b88fe90660293fa7edc0b9c6b67979c9703f5', '95f018a3a6f63d5f805d6318d97a4c6f2f6841d23c3a8ebf18642426f2b1e22f'),
    'halite/random x2 whole': (300, 'b4740c015e5abed1e446148cde63b0c372dffae9646db150dce5c6b878da4bb5', '6ddc55c1a4310708b02cd3c25587777fd70343dd9eacf0afc38f4603897e590c'),
}  # fmt: skip

# Helium 3's four-`random` match of the bench's first seed, resolved with `api.play`.
TYPED: tuple[int, str, str] = (102, '72f7e45561e33c273ad76091a3e48abc8403ed13749ce5b4ca8230c0e94cafdb', '4e192b4ccef1e61cdaf5dcfc9389c3453bb3b24a406b3f5d0587618e427b774e')  # fmt: skip


def _case(key: str) -> tuple[str, int, dict[str, Any], str, int]:
    """(ruleset, seats, options, bot, resolutions at most) of a pinned case."""
    ruleset, name = key.split("/", 1)
    for scenario in bench.SCENARIOS.get(ruleset, ()):
        if scenario.name == name:
            limit = scenario.from_turn + scenario.turns
            return ruleset, scenario.seats, dict(scenario.options), scenario.bot, limit
    bot, seats = name.removesuffix(" whole").split(" x")
    return ruleset, int(seats), {}, bot, 10**6


def test_every_bench_scenario_is_pinned() -> None:
    named = {f"{r}/{s.name}" for r, scenarios in bench.SCENARIOS.items() for s in scenarios}
    assert named <= set(PINNED)


@pytest.mark.parametrize("key", sorted(PINNED))
def test_a_bench_match_resolves_to_its_pinned_digests(key: str) -> None:
    ruleset, seats, options, bot, limit = _case(key)
    state = engine.new_game(seed=bench.SEED_BASE, seats=seats, ruleset=ruleset, options=options)
    trail = hashlib.sha256()
    resolved = 0
    while (awaited := engine.awaiting(state)) and resolved < limit:
        given = [engine.bot_orders(bot, state, seat) for seat in awaited]
        applied = engine.apply(state, given[0] if len(given) == 1 else given)
        # As everyone reads them once the match is over: Halite records a turn's
        # events grouped by kind and shows them piece by piece, as it recorded them.
        shown = engine.events_view(applied.events, None, over=True, ruleset=ruleset)
        trail.update(_sha(shown).encode())
        state = applied.state
        resolved += 1
    assert (resolved, _sha(state), trail.hexdigest()) == PINNED[key]


def test_helium3_typed_play_resolves_to_its_pinned_digests() -> None:
    initial, orders = bench.record(bench.SEED_BASE, ["random"] * 4)
    state = initial
    trail = hashlib.sha256()
    for given in orders:
        state, events, turn_ms = api.play(state, given)
        trail.update(_sha([events, turn_ms]).encode())
    assert (len(orders), _sha(state.to_json()), trail.hexdigest()) == TYPED
