"""Skyport's built-in bots: `random` draws legal actions, `prospector` plays with a plan
(docs/games/skyport-bots.md) and beats `random` bots; both give orders the engine
accepts in every phase, decided by the seat's view, the seed, the turn and the seat."""

from __future__ import annotations

import copy
from collections import Counter
from typing import Any

import pytest
from helpers import engine_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from skyport_helpers import CORNERS, OPEN, position, robot, tiles

import engine
from engine import match, tournament

RULESET = "skyport"
BOTS = ["random", "prospector"]
SHIPPED = {2: "duel-2", 3: "triangle-3", 4: "cross-4", 6: "hexagon-6", 8: "ring-8"}
ATTACKS = {"laser", "mortar", "droid"}


def orders_of(name: str, state: dict[str, Any], seat: int = 1) -> list[dict[str, Any]]:
    """The bot's actions for `seat`, checked to be accepted by the engine."""
    orders = engine.bot_orders(name, state, seat)
    engine.check(state, orders)
    assert orders["seat"] == seat and orders["turn"] == state["turn"]
    actions: list[dict[str, Any]] = orders["actions"]
    return actions


def play_checking(seed: int, lineup: list[str], options: dict[str, Any]) -> Counter[str]:
    """Play a match; at every resolution ask both bots for every awaited seat and check
    the engine accepts their orders. Counts what the bots were asked to play through."""
    seen: Counter[str] = Counter()
    state = engine.new_game(seed=seed, seats=len(lineup), ruleset=RULESET, options=options)
    while awaited := engine.awaiting(state):
        for seat in awaited:
            me = state["players"][seat - 1]
            seen["loadout" if state["phase"] == "loadout" else "turn"] += 1
            if state["phase"] == "play" and [me["j"], me["k"]] == me["spawn"]:
                seen["on spawn"] += 1
            for name in BOTS:
                orders = engine.bot_orders(name, state, seat)
                engine.check(state, orders)
                if state["phase"] == "loadout":
                    assert len(set(orders["loadout"])) == 2
        given_ = [engine.bot_orders(lineup[seat - 1], state, seat) for seat in awaited]
        applied = engine.apply(state, given_ if len(given_) > 1 else given_[0])
        for event in applied.events:
            seen[event["type"]] += 1
        for seat in engine.awaiting(applied.state):
            if any(e["type"] == "respawn" and e["seat"] == seat for e in applied.events):
                seen["asked after a respawn"] += 1
        state = applied.state
    return seen


# -- every bot ------------------------------------------------------------------------------


def test_skyport_lists_random_then_the_prospector_each_with_a_description() -> None:
    assert engine.bot_names(RULESET) == BOTS
    assert all(engine.bot_description(name, RULESET) for name in BOTS)


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(
    seed=st.integers(0, 10**6),
    lineup=st.lists(st.sampled_from(BOTS), min_size=2, max_size=8),
    rounds=st.integers(5, 12),
    shipped=st.booleans(),
)
def test_every_bot_gives_orders_the_engine_accepts_for_every_seat_in_random_matches(
    seed: int, lineup: list[str], rounds: int, shipped: bool
) -> None:
    options: dict[str, Any] = {"rounds": rounds}
    if shipped and len(lineup) in SHIPPED:
        options["map"] = SHIPPED[len(lineup)]
    seen = play_checking(seed, lineup, options)
    assert seen["loadout"] == len(lineup) and seen["over"] == 1


@pytest.mark.parametrize(
    ("seed", "lineup", "options"),
    [
        (1, ["prospector", "prospector", "random", "random"], {"rounds": 20}),
        (2, ["prospector"] * 3, {"rounds": 15, "map": "triangle-3"}),
        (3, ["prospector", "random"] * 4, {"rounds": 12, "map": "ring-8"}),
    ],
)
def test_the_bots_play_through_deaths_skipped_turns_and_respawns(
    seed: int, lineup: list[str], options: dict[str, Any]
) -> None:
    seen = play_checking(seed, lineup, options)
    assert seen["death"] > 0 and seen["skip"] > 0 and seen["respawn"] > 0
    assert seen["asked after a respawn"] > 0 and seen["on spawn"] > len(lineup)


@pytest.mark.parametrize("name", BOTS)
def test_a_bots_orders_are_decided_by_the_view_the_seed_the_turn_and_the_seat(name: str) -> None:
    record = match.play_match(5, ["prospector", "random", "random", "prospector"], ruleset=RULESET)
    for turn in (0, 10, 40):
        state = record["initial"]
        for given_ in record["turns"][:turn]:
            state = engine.apply(state, given_["orders"]).state
        for seat in engine.awaiting(state):
            orders = engine.bot_orders(name, state, seat)
            assert orders == engine.bot_orders(name, copy.deepcopy(state), seat)
            assert orders == engine.bot_orders(name, engine.view(state, seat), seat)


@pytest.mark.parametrize("name", BOTS)
def test_a_bot_refuses_a_seat_not_awaited_a_dead_seat_an_unknown_name_and_a_bad_state(
    name: str,
) -> None:
    state = position([robot(4, 4), robot(2, 6, health=0), robot(6, 2)])
    for seat in (2, 3):  # dead, and alive but not awaited
        with pytest.raises(engine.OrdersError) as raised:
            engine.bot_orders(name, state, seat)
        assert raised.value.code == "not_your_turn"
    with pytest.raises(engine.ShapeError) as shape:
        engine.bot_orders("nobody", state, 1)
    assert shape.value.code == "bad_shape"
    with pytest.raises(engine.StateError):
        engine.bot_orders(name, {**state, "tiles": state["tiles"][:-1]}, 1)
    final = match.play_match(2, BOTS, ruleset=RULESET, options={"rounds": 5})["final"]
    with pytest.raises(engine.OrdersError) as over:
        engine.bot_orders(name, final, 1)
    assert over.value.code == "match_over"


# -- random ---------------------------------------------------------------------------------


def test_random_chooses_two_different_weapons_and_every_pair_comes_up() -> None:
    pairs = Counter()
    for seed in range(30):
        state = engine.new_game(seed=seed, seats=2, ruleset=RULESET)
        for seat in (1, 2):
            loadout = engine.bot_orders("random", state, seat)["loadout"]
            assert len(set(loadout)) == 2
            pairs[frozenset(loadout)] += 1
    assert len(pairs) == 3


def test_random_draws_every_kind_of_action_and_one_to_three_of_them() -> None:
    """On its tile of explosium with the resources for an upgrade, an enemy near: over
    many seeds every kind of action and every count of actions is drawn, each accepted."""
    grid = tiles(OPEN, E=[(4, 4)])
    me = robot(4, 4, {"mortar": 1, "droid": 1}, resources={"explosium": 4, "scrap": 4})
    kinds: Counter[str] = Counter()
    counts: Counter[int] = Counter()
    for seed in range(200):
        state = {**position([me, robot(5, 6)], grid), "seed": seed}
        actions = orders_of("random", state)
        counts[len(actions)] += 1
        kinds.update(a["type"] for a in actions)
        assert all(a["type"] not in ATTACKS for a in actions[:-1])
    assert set(kinds) == {"move", "mine", "upgrade", "mortar", "droid"}
    assert set(counts) == {1, 2, 3}
    state = position([robot(4, 4), robot(5, 6)])
    assert orders_of("random", {**state, "seed": 1}) != orders_of("random", {**state, "seed": 2})


def test_random_never_attacks_from_its_spawn_but_may_once_off_it() -> None:
    firsts: Counter[str] = Counter()
    for seed in range(60):
        state = {**position([robot(0, 0), robot(1, 2)]), "seed": seed}
        actions = orders_of("random", state)
        firsts[actions[0]["type"]] += 1
        firsts["later attack"] += any(a["type"] in ATTACKS for a in actions[1:])
    assert set(firsts) == {"move", "later attack"}


# -- the prospector ---------------------------------------------------------------------------


def test_the_prospector_shoots_with_the_weapon_that_does_the_most_damage() -> None:
    # Two tiles away along right-down: the laser would do 22, the mortar 28.
    state = position([robot(4, 2, {"laser": 1, "mortar": 1}), robot(4, 4)])
    assert orders_of("prospector", state) == [{"type": "mortar", "target": [0, 2]}]
    after = engine.apply(state, engine.bot_orders("prospector", state, 1)).state
    assert after["players"][1]["health"] == 72


def test_the_prospector_shoots_first_when_the_shot_kills() -> None:
    # Five tiles away only the laser reaches; it kills 20 health with 22.
    state = position([robot(4, 2, {"laser": 1, "mortar": 1}), robot(4, 7, health=20)])
    assert orders_of("prospector", state) == [{"type": "laser", "direction": "right-down"}]


def test_the_prospector_shoots_before_mining_when_an_enemy_is_in_reach() -> None:
    grid = tiles(OPEN, E=[(4, 4)])
    state = position([robot(4, 4, {"mortar": 1, "droid": 1}), robot(4, 6)], grid)
    actions = orders_of("prospector", state)
    assert len(actions) == 1 and actions[0]["type"] in ATTACKS


def test_the_prospector_steps_into_reach_and_shoots() -> None:
    # Six tiles away: two steps, then the droid's three-step walk ends beside the enemy.
    state = position([robot(4, 0, {"mortar": 1, "droid": 1}), robot(4, 6)])
    actions = orders_of("prospector", state)
    assert [a["type"] for a in actions] == ["move", "move", "droid"]
    applied = engine.apply(state, engine.bot_orders("prospector", state, 1))
    assert [e["seat"] for e in applied.events if e["type"] == "damage"] == [2]


def test_the_prospector_mines_a_resource_it_needs_and_not_one_it_does_not() -> None:
    far = robot(*CORNERS[1])  # on its spawn: out of any shot
    needed = position([robot(4, 4, {"mortar": 1, "droid": 1}), far], tiles(OPEN, E=[(4, 4)]))
    actions = orders_of("prospector", needed)
    assert actions[:2] == [{"type": "mine"}, {"type": "mine"}] and len(actions) == 3
    unneeded = position([robot(4, 4, {"mortar": 1, "droid": 1}), far], tiles(OPEN, R=[(4, 4)]))
    assert {"type": "mine"} not in orders_of("prospector", unneeded)


def test_the_prospector_walks_to_the_nearest_tile_of_a_resource_it_needs() -> None:
    # Rubidium two steps left-up (the laser's, not in the loadout); explosium three
    # steps right-down.
    grid = tiles(OPEN, R=[(4, 2)], E=[(4, 7)])
    state = position([robot(4, 4, {"mortar": 1, "droid": 1}), robot(*CORNERS[1])], grid)
    after = engine.apply(state, engine.bot_orders("prospector", state, 1)).state
    assert (after["players"][0]["j"], after["players"][0]["k"]) == (4, 7)


def test_the_prospector_upgrades_then_steps_off_its_spawn() -> None:
    me = robot(0, 0, {"mortar": 1, "droid": 1}, resources={"explosium": 9})
    state = position([me, robot(*CORNERS[1])], tiles(OPEN, E=[(5, 5)]))
    actions = orders_of("prospector", state)
    upgrade = {"type": "upgrade", "weapon": "mortar"}
    assert actions[:2] == [upgrade, upgrade] and actions[2]["type"] == "move"
    applied = engine.apply(state, engine.bot_orders("prospector", state, 1))
    assert applied.state["players"][0]["weapons"]["mortar"] == 3
    assert not [e for e in applied.events if e["type"] == "penalty"]


def test_the_prospector_never_ends_its_turn_on_its_spawn_all_match_long() -> None:
    record = match.play_match(4, ["prospector", "random", "random", "random"], ruleset=RULESET)
    penalties = [
        e for turn in record["turns"] for e in turn["events"]
        if e["type"] == "penalty" and e["seat"] == 1 and e["reason"] != "death"
    ]  # fmt: skip
    assert penalties == []


def test_a_boxed_in_prospector_shoots_at_nothing_rather_than_pass_its_turn() -> None:
    rocks = [(3, 3), (5, 5), (3, 4), (4, 5), (4, 3), (5, 4)]  # the six around (4, 4)
    me, far = robot(4, 4, {"mortar": 1, "droid": 1}), robot(*CORNERS[1])
    state = position([me, far], tiles(OPEN, O=rocks))
    actions = orders_of("prospector", state)
    assert len(actions) == 1 and actions[0]["type"] == "mortar"
    applied = engine.apply(state, engine.bot_orders("prospector", state, 1))
    assert not [e for e in applied.events if e["type"] in ("damage", "penalty")]


def test_a_hurt_prospector_walks_away_from_a_healthier_enemy_when_that_is_cheap() -> None:
    """Explosium two steps right-down, beside the enemy's spawn, and three steps left-up:
    healthy, the bot takes the nearer; hurt, the one away from the enemy."""
    grid = tiles(OPEN, E=[(4, 6), (4, 1)], S=[(4, 8)], G=CORNERS[1:])
    spawns = [CORNERS[0], (4, 8)]
    enemy = robot(4, 8)

    def first_step(health: int) -> dict[str, Any]:
        me = robot(4, 4, {"mortar": 1, "droid": 1}, health=health)
        return orders_of("prospector", position([me, enemy], grid, spawns=spawns))[0]

    assert first_step(100) == {"type": "move", "direction": "right-down"}
    assert first_step(30) == {"type": "move", "direction": "left-up"}


def test_the_prospector_beats_random_bots_in_a_small_seeded_sample() -> None:
    """A small sample of the table in docs/games/skyport-bots.md: eight four-seat matches
    of 15 rounds on generated maps, the prospector's seat rotating."""
    wins = 0
    for k in range(8):
        lineup = ["random"] * 4
        lineup[k % 4] = "prospector"
        final = match.play_match(k, lineup, ruleset=RULESET, options={"rounds": 15})["final"]
        wins += final["winners"] == [k % 4 + 1]
    assert wins >= 7


# -- the tournament -------------------------------------------------------------------------


def test_the_tournament_plays_the_prospector_against_random_bots_at_the_seats_asked() -> None:
    options = {"rounds": 10}
    alone, duel = tournament.run_ruleset(RULESET, 4, 10, "prospector", "random", options, seats=4)
    assert alone.matches == duel.matches == 4
    assert alone.tallies["prospector"].seats == 4 and alone.tallies["random"].seats == 12
    assert duel.tallies["prospector"].seats == duel.tallies["random"].seats == 4
    assert alone.tallies["prospector"].mean_money > alone.tallies["random"].mean_money


def test_the_tournament_command_prints_the_skyport_tables() -> None:
    args = ("tournament", "--ruleset", "skyport", "--matches", "2", "--seed-base", "4",
            "--seats", "4", "--option", "rounds=8")  # fmt: skip
    done = engine_cli(*args)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == (
        "prospector vs 3 random (4 seats, prospector's seat rotates): 2 matches, seeds 4..5"
    )
    assert "prospector vs random (2 seats, they swap seats): 2 matches, seeds 4..5" in lines
    assert lines.count("| bot | seats | wins | win % | mean score | mean turns per player |") == 2
    assert engine_cli(*args).stdout == done.stdout
    refused = engine_cli("tournament", "--ruleset", "skyport", "--matches", "1", "--seats", "9")
    assert refused.returncode == 1 and '"bad_shape"' in refused.stdout


@pytest.mark.slow
def test_the_prospector_wins_eight_in_ten_of_the_documented_table() -> None:
    """The table in docs/games/skyport-bots.md: 100 seeded four-seat matches on the
    generated map, a draw counted as no win. Only that table is played: the duel's
    series is another's (test_the_tournament_plays_the_prospector_against_random_bots_at_the_seats_asked)."""
    (alone,) = tournament.run_ruleset(
        RULESET, 100, 0, "prospector", "random", {}, seats=4, duel=False
    )
    tally = alone.tallies["prospector"]
    assert tally.wins - tally.shared >= 80


def test_the_tournament_on_a_four_player_map_plays_its_duel_on_two_of_the_spawns() -> None:
    # A map seats 2 up to its spawn count, as the 2013 server seated them.
    options = {"rounds": 5, "map": "cross-4"}
    alone, duel = tournament.run_ruleset(RULESET, 2, 0, "prospector", "random", options, seats=4)
    assert alone.matches == 2 and alone.tallies["prospector"].seats == 2
    assert duel.matches == 2 and duel.tallies["random"].seats == 2
