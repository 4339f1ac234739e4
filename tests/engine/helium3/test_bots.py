"""Built-in bots: legal, deterministic, blind to what their seat may not know, and good.

The planning bots (`miner`, `fighter`) are checked on whole matches and on positions
built by hand; the tournament test plays the real 100-match series that docs/engine.md's
table reports and asserts the issue's goals on it.
"""

from __future__ import annotations

import copy
import json
import time
from typing import Any

import pytest
from helpers import bot, engine_cli, scene

import engine
from engine import tournament
from engine.helium3 import api, bots
from engine.helium3.bots import plan
from engine.helium3.orders import Orders
from engine.helium3.state import State

PLANNERS = ["miner", "fighter"]
LINEUPS = [
    ["fighter", "miner", "random", "fighter"],
    ["miner", "fighter", "miner"],
    ["fighter", "random"],
    ["miner", "miner", "random", "random"],
    ["fighter", "fighter", "fighter", "fighter"],
]


def play_through(
    seed: int, lineup: list[str], length_ms: int = 600_000
) -> list[tuple[State, Orders]]:
    """Every position of a match with the orders its bot gave there; each turn is
    resolved with api.play, which raises on any illegal order."""
    state = api.new_state(seed, len(lineup), length_ms)
    bot_of = dict(zip(state.seats, lineup, strict=True))
    seen: list[tuple[State, Orders]] = []
    while not state.over:
        seat = state.to_move
        assert seat is not None
        given = bots.choose(bot_of[seat], state, seat)
        seen.append((state, given))
        state = api.play(state, given)[0]
    seen.append((state, Orders(0, state.turn)))
    return seen


def orders_of(name: str, state: dict[str, Any], seat: int) -> dict[str, Any]:
    return engine.bot_orders(name, state, seat)


# -- legality and determinism over whole matches --------------------------------------


def test_the_built_in_bots_are_random_miner_and_fighter() -> None:
    assert engine.bot_names() == ["random", "miner", "fighter"]


@pytest.mark.parametrize("lineup", LINEUPS, ids=lambda lineup: "-".join(lineup))
@pytest.mark.parametrize("seed", [3, 11, 29])
def test_every_bot_gives_legal_orders_over_whole_matches(seed: int, lineup: list[str]) -> None:
    seen = play_through(seed, lineup)
    final = seen[-1][0]
    assert final.over
    assert len(seen) - 1 == final.turn > 10
    counts: dict[str, int] = {}
    for _, given in seen[:-1]:
        for action in given.actions:
            counts[action.type] = counts.get(action.type, 0) + 1
    assert counts.get("mine", 0) > 0


def test_bot_orders_are_accepted_through_the_json_protocol_too() -> None:
    """Every turn of a mixed match goes through engine.bot_orders and engine.apply."""
    state = engine.new_game(seed=17, seats=4)
    lineup = dict(zip([1, 2, 3, 4], ["fighter", "miner", "random", "fighter"], strict=True))
    turns = 0
    while not state["over"]:
        seat = state["to_move"]
        given = orders_of(lineup[seat], state, seat)
        state = engine.apply(state, json.loads(json.dumps(given))).state
        turns += 1
    assert turns > 40


@pytest.mark.parametrize("name", ["random", *PLANNERS])
def test_a_bot_gives_the_same_orders_for_the_same_state(name: str) -> None:
    lineup = [name, "fighter", "miner", "random"]
    for state, given in play_through(5, lineup)[:-1:7]:
        seat = state.to_move
        assert seat is not None
        again = State.from_json(copy.deepcopy(state.to_json()))
        assert bots.choose(lineup[seat - 1], again, seat) == given


@pytest.mark.parametrize("lineup", [["fighter", "miner", "random", "random"], ["miner", "fighter"]])
def test_a_whole_match_between_bots_is_the_same_every_time(lineup: list[str]) -> None:
    first = [given for _, given in play_through(41, lineup)]
    second = [given for _, given in play_through(41, lineup)]
    assert first == second


@pytest.mark.parametrize("name", PLANNERS)
def test_a_planning_bot_is_never_eliminated_it_keeps_a_robot_inactive(name: str) -> None:
    for seed in (2, 8):
        final = play_through(seed, [name, "fighter", "fighter", "fighter"])[-1][0]
        mine = [r for r in final.robots if r.seat == 1 and r.alive]
        assert mine, "the seat was eliminated"
        assert any(not r.active for r in mine)


# -- the fog: a bot sees only its seat's view --------------------------------------


def hide_differently(state: State, seat: int) -> State:
    """The same position but for what `seat` may not know: opponents' shields and
    deflects, and the seed."""
    other = State.from_json(state.to_json())
    other.seed += 1000
    for k, r in enumerate(other.robots):
        if r.seat != seat and r.alive and r.armed is None:
            hidden = r.copy()
            hidden.shield = not r.shield
            hidden.deflect = "SW" if hidden.shield else None
            other.robots[k] = hidden
    return other


@pytest.mark.parametrize("name", PLANNERS)
def test_a_planning_bot_ignores_what_its_seat_may_not_know(name: str) -> None:
    checked = 0
    for state, given in play_through(13, [name, "fighter", "fighter", "miner"])[:-1]:
        if state.to_move != 1 or state.turn % 3:
            continue
        assert bots.choose(name, hide_differently(state, 1), 1) == given
        checked += 1
    assert checked > 4


def test_the_random_bot_ignores_opponents_shields() -> None:
    for state, given in play_through(13, ["random", "fighter", "fighter", "miner"])[:-1]:
        if state.to_move == 1:
            other = hide_differently(state, 1)
            other.seed = state.seed  # random's dice come from the match seed
            assert bots.choose("random", other, 1) == given


# -- what the planning bots do, on positions built by hand ---------------------------


def only_action(given: dict[str, Any]) -> dict[str, Any]:
    assert len(given["actions"]) >= 1, given
    return dict(given["actions"][0])


def test_the_miner_goes_for_the_richest_helium_in_reach() -> None:
    state = scene(
        bot("1-1", 5, 5, active=True),
        bot("1-2", 0, 0, active=False),
        bot("2-1", 19, 0, active=False),
        helium={(3, 5): 300, (8, 8): 1200, (8, 9): 750, (9, 8): 750},
    )
    action = only_action(orders_of("miner", state, 1))
    assert action == {"robot": "1-1", "type": "mine", "to": [8, 8]}


def test_the_miner_walks_towards_helium_out_of_its_mine_reach() -> None:
    state = scene(
        bot("1-1", 2, 2, active=True),
        bot("1-2", 0, 0, active=False),
        bot("2-1", 19, 0, active=False),
        helium={(16, 16): 1200},
    )
    action = only_action(orders_of("miner", state, 1))
    assert action["type"] == "move"
    assert max(abs(action["to"][0] - 2), abs(action["to"][1] - 2)) == 6


def test_the_miner_leaves_a_cell_an_armed_missile_reaches() -> None:
    state = scene(
        bot("1-1", 10, 10, mined=8000),
        bot("1-2", 0, 0, active=False),
        bot("2-1", 13, 10, armed="missile"),
        helium={(10, 9): 300},
    )
    action = only_action(orders_of("miner", state, 1))
    assert action["robot"] == "1-1"
    x, y = action["to"]
    assert max(abs(x - 13), abs(y - 10)) > 6


def test_the_miner_never_fights() -> None:
    state = scene(
        bot("1-1", 10, 10, armed="missile"),
        bot("1-2", 0, 0, active=False),
        bot("2-1", 12, 10, mined=9000),
        helium={(10, 12): 1200},
    )
    for action in orders_of("miner", state, 1)["actions"]:
        assert action["type"] in ("mine", "move")


def test_the_fighter_fires_its_missile_at_an_active_enemy_not_an_immune_one() -> None:
    state = scene(
        bot("1-1", 10, 10, armed="missile"),
        bot("1-2", 0, 0, active=False),
        bot("2-1", 12, 10, active=False),
        bot("2-2", 10, 14, mined=6000),
    )
    action = only_action(orders_of("fighter", state, 1))
    assert action == {"robot": "1-1", "type": "fire_missile", "target": [10, 14]}


def test_the_fighter_does_not_fire_at_inactive_enemies() -> None:
    state = scene(
        bot("1-1", 10, 10, armed="missile"),
        bot("1-2", 0, 0, active=False),
        bot("2-1", 12, 10, active=False),
        bot("2-2", 10, 13, active=False),
    )
    for action in orders_of("fighter", state, 1)["actions"]:
        assert action["type"] != "fire_missile"


def test_the_fighter_fires_a_laser_along_a_line_of_active_enemies() -> None:
    state = scene(
        bot("1-1", 4, 10, armed="laser"),
        bot("1-2", 0, 0, active=False),
        bot("2-1", 9, 10, mined=3000),
        bot("3-1", 15, 10, mined=3000),
    )
    action = only_action(orders_of("fighter", state, 1))
    assert action == {"robot": "1-1", "type": "fire_laser", "direction": "E"}


def test_the_fighter_never_fires_a_laser_through_its_own_active_robot() -> None:
    state = scene(
        bot("1-1", 4, 10, armed="laser"),
        bot("1-2", 7, 10),
        bot("1-3", 0, 0, active=False),
        bot("2-1", 9, 10, mined=3000),
        bot("3-1", 15, 10, mined=3000),
    )
    for action in orders_of("fighter", state, 1)["actions"]:
        assert not (action["type"] == "fire_laser" and action["direction"] == "E")


def test_the_fighter_uses_kamikaze_among_several_active_enemies() -> None:
    state = scene(
        bot("1-1", 10, 10),
        bot("1-2", 0, 0, active=False),
        bot("2-1", 11, 10, mined=4000),
        bot("3-1", 9, 11, mined=4000),
        bot("4-1", 10, 9, mined=4000),
    )
    action = only_action(orders_of("fighter", state, 1))
    assert action == {"robot": "1-1", "type": "kamikaze"}


def test_the_fighter_does_not_blow_up_next_to_a_single_enemy() -> None:
    state = scene(
        bot("1-1", 10, 10),
        bot("1-2", 0, 0, active=False),
        bot("2-1", 11, 10, mined=9000),
        bot("3-1", 9, 11, active=False),
    )
    for action in orders_of("fighter", state, 1)["actions"]:
        assert action["type"] != "kamikaze"


def test_the_fighter_shields_against_a_laser_deflecting_it_back() -> None:
    state = scene(
        bot("1-1", 10, 10, mined=9000),
        bot("1-2", 0, 0, active=False),
        bot("2-1", 10, 0, armed="laser"),
        bot("2-2", 19, 19, armed="laser"),
    )
    action = only_action(orders_of("fighter", state, 1))
    assert action == {"robot": "1-1", "type": "shield", "deflect": "N"}


def test_the_fighter_shields_or_flees_from_an_armed_missile() -> None:
    state = scene(
        bot("1-1", 10, 10, mined=9000),
        bot("1-2", 0, 0, active=False),
        bot("2-1", 12, 10, armed="missile"),
    )
    action = only_action(orders_of("fighter", state, 1))
    assert action["robot"] == "1-1"
    if action["type"] != "shield":
        x, y = action["to"]
        assert max(abs(x - 12), abs(y - 10)) > 6


def test_the_fighter_arms_when_a_valuable_enemy_is_near_and_no_helium_is() -> None:
    state = scene(
        bot("1-1", 10, 10),
        bot("1-2", 0, 0, active=False),
        bot("2-1", 14, 12, mined=8000),
    )
    action = only_action(orders_of("fighter", state, 1))
    assert action["robot"] == "1-1" and action["type"] in ("arm_missile", "arm_laser")


def test_a_planning_bot_passes_when_nothing_is_worth_doing() -> None:
    state = scene(bot("1-1", 10, 10), bot("1-2", 0, 0, active=False), bot("2-1", 19, 19))
    assert orders_of("miner", state, 1)["actions"] == []


def test_the_second_action_is_planned_on_the_board_the_first_leaves() -> None:
    """Two robots, one deposit: the second does not mine the cells the first emptied."""
    state = scene(
        bot("1-1", 6, 6),
        bot("1-2", 8, 6),
        bot("1-3", 0, 0, active=False),
        bot("2-1", 19, 19),
        helium={(7, 8): 500, (14, 14): 500},
    )
    given = orders_of("miner", state, 1)
    targets = [tuple(a.get("to", [])) for a in given["actions"]]
    assert len(given["actions"]) == 2 and (14, 14) not in targets
    assert engine.apply(state, given).state["players"][0]["money"] == 500


# -- the search's building blocks agree with the engine ------------------------------


def test_the_bots_reachable_cells_are_the_engines() -> None:
    from engine.helium3.moves import reachable
    from engine.helium3.resolve import Turn

    for state, _ in play_through(23, ["fighter", "miner", "random", "random"])[:-1:5]:
        turn = Turn(state)
        w = state.width
        for r in state.robots:
            if r.alive:
                got = plan.reach_from(r.y * w + r.x, turn.occ, w, state.height, 6)
                assert {(c % w, c // w): d for c, d in got.items()} == reachable(turn, r, 6)


def test_mining_yields_are_what_a_mine_takes() -> None:
    from engine.helium3.resolve import Turn

    state = api.new_state(31)
    yields = plan.mining_yields(state.helium, state.width, state.height)
    robot = state.robots[0]
    for c in (0, 57, 199, 399, 8 * 20 + 9):
        x, y = c % 20, c // 20
        if (x, y) != (robot.x, robot.y) and (x, y) not in {(r.x, r.y) for r in state.robots}:
            moved = state.copy()
            moved.robots[0] = robot.copy()
            moved.robots[0].x, moved.robots[0].y = x, y
            turn = Turn(moved)
            turn.mine(0, 0)
            assert turn.events[-1]["amount"] == yields[c]


# -- speed --------------------------------------------------------------------------


def test_a_four_fighter_match_takes_well_under_a_second_of_cpu() -> None:
    start = time.process_time()
    turns = len(play_through(7, ["fighter"] * 4)) - 1
    spent = time.process_time() - start
    assert turns > 40
    assert spent < 1.0, f"{spent:.3f} s for {turns} turns"


# -- the tournament and its goals ---------------------------------------------------


@pytest.mark.slow
def test_the_fighter_meets_the_issues_goals_over_100_seeded_matches() -> None:
    """The table in docs/engine.md: >= 80% wins against three random bots, and it beats the
    miner head to head and in four-seat matches with two random bots."""
    versus_random, head_to_head, mixed = tournament.run(matches=100, seed_base=0)
    fighter = versus_random.tallies["fighter"]
    assert fighter.seats == 100 and fighter.win_rate >= 0.80
    assert head_to_head.tallies["fighter"].wins > head_to_head.tallies["miner"].wins
    assert mixed.tallies["fighter"].wins > mixed.tallies["miner"].wins
    assert head_to_head.tallies["fighter"].mean_money > head_to_head.tallies["miner"].mean_money
    assert mixed.tallies["fighter"].seats == mixed.tallies["miner"].seats == 100


def test_the_tournament_rotates_seats_and_counts_every_seat() -> None:
    versus_random, head_to_head, mixed = tournament.run(matches=4, seed_base=90)
    assert versus_random.matches == head_to_head.matches == mixed.matches == 4
    assert versus_random.tallies["random"].seats == 12
    assert head_to_head.tallies["fighter"].seats == head_to_head.tallies["miner"].seats == 4
    assert mixed.tallies["random"].seats == 8
    for series in (versus_random, head_to_head, mixed):
        wins = sum(t.wins for t in series.tallies.values())
        assert series.matches <= wins <= 4 * series.matches  # ties share the win


def test_the_tournament_command_prints_the_table() -> None:
    done = engine_cli("tournament", "--matches", "2", "--seed-base", "5")
    assert done.returncode == 0, done.stdout + done.stderr
    assert (
        done.stdout.count("| bot | seats | wins | win % | mean money | mean turns per player |")
        == 3
    )
    assert "seeds 5..6" in done.stdout
    assert "| fighter | 2 |" in done.stdout


def test_the_tournament_command_refuses_an_unknown_bot_with_a_json_error() -> None:
    done = engine_cli("tournament", "--best", "nobody")
    assert done.returncode == 1
    assert json.loads(done.stdout)["error"]["code"] == "bad_shape"
