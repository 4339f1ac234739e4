"""Helium in the remake (remake.md "Helium"): hotspots of grains of 100, mining 100 from
each of nine cells, and all of a destroyed vehicle's helium back on its cell."""

from __future__ import annotations

from helpers import act, alive, bot, events, fire_missile, helium_at, mine, money, robot
from remake_helpers import scene

import engine
from engine.helium3.board import cheb
from engine.helium3.mapgen import SPAWNS
from engine.remake.mapgen import ALLOWED_CENTRES, generate_helium

FAR = bot("4-5", 19, 19)
SPAWN_CELLS = [c for cells in SPAWNS.values() for c in cells]


def test_deposits_are_7_to_10_hotspots_of_3000_laid_as_grains_of_100() -> None:
    totals = set()
    for seed in range(200):
        helium = generate_helium(seed)
        assert all(v % 100 == 0 for v in helium)
        total = sum(helium)
        assert total % 3000 == 0 and 7 <= total // 3000 <= 10
        totals.add(total // 3000)
    assert totals == {7, 8, 9, 10}


def test_hotspot_centres_are_at_distance_4_or_more_from_all_twenty_spawns() -> None:
    assert len(SPAWN_CELLS) == 20
    assert ALLOWED_CENTRES and all(
        min(cheb(x, y, sx, sy) for sx, sy in SPAWN_CELLS) >= 4 for x, y in ALLOWED_CENTRES
    )
    near = [(x, y) for y in range(20) for x in range(20) if (x, y) not in ALLOWED_CENTRES]
    assert all(min(cheb(x, y, sx, sy) for sx, sy in SPAWN_CELLS) < 4 for x, y in near)
    # Grains land within 2 of a centre, so never nearer than 2 to a spawn, whatever the seats.
    for seed in range(50):
        helium = generate_helium(seed)
        for c, amount in enumerate(helium):
            if amount:
                x, y = c % 20, c // 20
                assert min(cheb(x, y, sx, sy) for sx, sy in SPAWN_CELLS) >= 2


def test_the_helium_is_a_pure_function_of_the_seed() -> None:
    a = engine.new_game(seed=42, ruleset="helium3-remake")
    b = engine.new_game(seed=42, seats=2, ruleset="helium3-remake", options={"rounds": 7})
    assert a["helium"] == b["helium"]
    assert a["helium"] != engine.new_game(seed=43, ruleset="helium3-remake")["helium"]


def test_mining_takes_100_from_each_of_the_nine_cells_holding_at_least_100() -> None:
    nine = {(x, y): 250 for x in (4, 5, 6) for y in (4, 5, 6)}
    state = scene(bot("1-1", 5, 5), FAR, helium=nine)
    applied = act(state, mine("1-1"))
    [mined] = events(applied, "mined")
    assert mined["amount"] == 900 and len(mined["cells"]) == 9
    assert all(amount == 100 for _, _, amount in mined["cells"])
    assert all(helium_at(applied.state, x, y) == 150 for x, y in nine)
    assert money(applied.state, 1) == 900 and robot(applied.state, "1-1")["mined"] == 900


def test_a_cell_with_less_than_100_gives_nothing_and_cells_beyond_the_3x3_nothing() -> None:
    state = scene(
        bot("1-1", 5, 5), FAR, helium={(5, 5): 99, (6, 6): 100, (7, 7): 500, (4, 5): 1000}
    )
    applied = act(state, mine("1-1"))
    assert events(applied, "mined")[0]["amount"] == 200
    assert (helium_at(applied.state, 5, 5), helium_at(applied.state, 6, 6)) == (99, 0)
    assert (helium_at(applied.state, 7, 7), helium_at(applied.state, 4, 5)) == (500, 900)


def test_mining_moves_up_to_2_first_and_mines_at_the_destination() -> None:
    state = scene(bot("1-1", 5, 5), FAR, helium={(8, 8): 300})
    applied = act(state, mine("1-1", 7, 7))
    assert events(applied, "mined")[0]["cells"] == [[8, 8, 100]]


def test_mining_at_the_edge_takes_from_the_cells_on_the_board() -> None:
    state = scene(bot("1-1", 0, 0), FAR, helium={(0, 0): 100, (1, 1): 100, (1, 0): 100})
    assert events(act(state, mine("1-1")), "mined")[0]["amount"] == 300


def test_a_destroyed_vehicle_returns_all_its_helium_on_its_cell_and_its_owner_loses_it() -> None:
    state = scene(
        bot("1-1", 5, 5, armed="missile"),
        bot("2-1", 9, 9, mined=1700),
        bot("2-2", 12, 12, mined=300),
        FAR,
        money={2: 2000},
        helium={(9, 9): 50},
    )
    applied = act(state, fire_missile("1-1", 9, 9))
    [destroyed] = events(applied, "destroyed")
    assert (destroyed["dropped"], destroyed["cells"]) == (1700, [[9, 9, 1700]])
    assert helium_at(applied.state, 9, 9) == 1750 and money(applied.state, 2) == 300
    assert sum(map(sum, applied.state["helium"])) == 1750


def test_returned_helium_can_be_mined_again() -> None:
    state = scene(bot("1-1", 8, 8), bot("2-1", 9, 9, alive=False), FAR, helium={(9, 9): 1700})
    applied = act(state, mine("1-1"))
    assert events(applied, "mined")[0]["amount"] == 100 and not alive(applied.state, "2-1")
