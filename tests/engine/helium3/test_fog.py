"""The fog of shield: views and per-seat copies of the events (docs/protocol.md, "A seat's
view" and "Events"; docs/games/helium3.md, "Shields and the fog of shield").

A view is a function of what the seat may know, and an opponent or a spectator
cannot tell a `shield` from a plain `move` to the same cell until a hit reveals it.
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest
from helpers import (
    act,
    arm,
    bot,
    engine_cli,
    fire_laser,
    fire_missile,
    kamikaze,
    move,
    robot,
    scene,
    shield,
)
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import engine
from engine.core import Applied
from engine.errors import EngineError
from engine.helium3 import timing
from engine.helium3.api import masked
from engine.helium3.board import DELTAS, DIRECTIONS
from engine.helium3.bots import random_bot
from engine.helium3.state import State

Json = dict[str, Any]
HIDDEN = ("shield", "deflect")
FAST = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
# Shrinking a whole random match makes little progress and takes minutes; the failing
# example (seed, seats and the random generator's draws) is printed all the same.
WHOLE_MATCHES = settings(
    FAST, max_examples=12, phases=[Phase.explicit, Phase.reuse, Phase.generate]
)


def dumps(value: Any) -> str:
    return json.dumps(value)


def seats_of(state: Json) -> list[int]:
    return [p["seat"] for p in state["players"]]


def viewers(state: Json) -> list[int | None]:
    return [*seats_of(state), None]


def copies(applied: Any, seat: int | None) -> list[Json]:
    return engine.events_view(applied.events, seat, over=applied.state["over"])


def random_orders(state: Json, rng: random.Random) -> Json:
    """Uniformly random legal orders for the seat to move, chosen on what it knows."""
    seat = state["to_move"]
    typed = State.from_json(state)
    return random_bot.choose(masked(typed, seat), seat, rng).to_json()


Played = tuple[Json, Json, Applied]


def random_play(seed: int, seats: int, turns: int, rng: random.Random) -> list[Played]:
    """(state, orders, result) for up to `turns` turns of random legal play."""
    state = engine.new_game(seed=seed, seats=seats)
    played: list[Played] = []
    for _ in range(turns):
        if state["over"]:
            break
        orders = random_orders(state, rng)
        applied = engine.apply(state, orders)
        played.append((state, orders, applied))
        state = applied.state
    return played


def last_state(seed: int, seats: int, turns: int, rng: random.Random) -> Json:
    played = random_play(seed, seats, turns, rng)
    return played[-1][2].state if played else engine.new_game(seed=seed, seats=seats)


def with_hidden_fields_changed(state: Json, seat: int | None, rng: random.Random) -> Json:
    """`state` with a new seed and new shields/deflects on every robot `seat` does not own.

    The result stays consistent: only living, unarmed robots get a shield, and only a
    shielded robot gets a deflect direction.
    """
    other = copy.deepcopy(state)
    other["seed"] = state["seed"] + rng.randint(1, 10**9)
    for r in other["robots"]:
        if r["seat"] == seat or not r["alive"] or r["armed"] is not None:
            continue
        r["shield"] = rng.random() < 0.5
        r["deflect"] = rng.choice((None, *DIRECTIONS)) if r["shield"] else None
    return other


# -- the view -------------------------------------------------------------------------------


def shielded_scene() -> Json:
    return scene(
        bot("1-1", 3, 3, shield=True, deflect="NE"),
        bot("1-2", 5, 3, armed="laser"),
        bot("2-1", 15, 3, shield=True),
        bot("2-2", 15, 6, shield=True, deflect="W"),
        bot("3-1", 15, 15, armed="missile"),
        bot("3-2", 12, 15, alive=False, mined=40),
        bot("4-1", 3, 15, shield=True, deflect="S", active=False),
        seed=1234,
    )


@pytest.mark.parametrize("seat", [1, 2, 3, 4])
def test_a_seats_view_has_no_shield_or_deflect_keys_on_robots_it_does_not_own(seat: int) -> None:
    state = shielded_scene()
    seen = engine.view(state, seat)
    assert seen["viewer"] == seat
    assert "seed" not in seen
    for r in seen["robots"]:
        if r["seat"] == seat:
            assert {k: r[k] for k in HIDDEN} == {k: robot(state, r["id"])[k] for k in HIDDEN}
        else:
            assert not set(HIDDEN) & set(r), r


def test_a_spectators_view_has_viewer_null_and_no_robot_shows_a_shield() -> None:
    seen = engine.view(shielded_scene(), None)
    assert seen["viewer"] is None
    assert "seed" not in seen
    assert all(not set(HIDDEN) & set(r) for r in seen["robots"])


@pytest.mark.parametrize("seat", [1, 2, 3, 4, None])
def test_a_view_is_the_state_without_the_hidden_keys_and_with_the_viewer(seat: int | None) -> None:
    state = shielded_scene()
    before = copy.deepcopy(state)
    seen = engine.view(state, seat)
    assert state == before, "view changed its input"
    expected = copy.deepcopy(state)
    del expected["seed"]
    for r in expected["robots"]:
        if r["seat"] != seat:
            for key in HIDDEN:
                del r[key]
    expected["viewer"] = seat
    assert seen == expected
    assert list(seen) == list(expected), "the view keeps the state's key order"


def test_once_the_match_is_over_every_view_is_the_full_state() -> None:
    state = scene(
        bot("1-1", 3, 3),
        bot("2-1", 4, 3),
        bot("3-1", 15, 15, shield=True, deflect="N"),
        seats=3,
        seed=99,
    )
    applied = act(state, kamikaze("1-1"))
    final = applied.state
    assert final["over"] and final["winners"] == [3]
    for seat in viewers(final):
        seen = engine.view(final, seat)
        assert seen.pop("viewer") == seat
        assert seen == final
        assert robot(seen, "3-1")["deflect"] == "N"
        assert engine.events_view(applied.events, seat, over=True) == applied.events


def test_a_view_for_a_seat_not_in_the_match_is_refused() -> None:
    state = engine.new_game(seed=5, seats=2)
    for seat in (2, 4, 5, 0):
        with pytest.raises(EngineError) as caught:
            engine.view(state, seat)
        assert caught.value.code == "bad_shape"


def test_the_command_line_view_is_the_engines_view() -> None:
    state = shielded_scene()
    for seat, flag in ((2, "2"), (None, "0")):
        done = engine_cli("view", "--seat", flag, stdin=json.dumps(state))
        assert done.returncode == 0, done.stdout
        assert json.loads(done.stdout) == engine.view(state, seat)


@pytest.mark.parametrize("flag", ["1", "2", "0"])
def test_the_command_line_apply_as_a_seat_gives_its_view_and_its_copy(flag: str) -> None:
    state = timeline_scene()
    orders = {"seat": 1, "turn": 4, "actions": [shield("1-1", 8, 7, deflect="SW")]}
    done = engine_cli("apply", "--as", flag, stdin=json.dumps({"state": state, "orders": orders}))
    assert done.returncode == 0, done.stdout
    seat = int(flag) or None
    applied = engine.apply(state, orders)
    assert json.loads(done.stdout) == {
        "state": engine.view(applied.state, seat),
        "events": copies(applied, seat),
    }
    shown = [e["type"] for e in json.loads(done.stdout)["events"]]
    assert ("shielded" in shown) == (seat == 1)


@WHOLE_MATCHES
@given(
    seed=st.integers(0, 2**31),
    seats=st.sampled_from([2, 3, 4]),
    turns=st.integers(0, 70),
    rng=st.randoms(use_true_random=False),
)
def test_views_depend_only_on_what_the_seat_may_know(
    seed: int, seats: int, turns: int, rng: random.Random
) -> None:
    state = last_state(seed, seats, turns, rng)
    if state["over"]:
        for seat in viewers(state):
            assert {**state, "viewer": seat} == engine.view(state, seat)
        return
    for seat in viewers(state):
        for _ in range(3):
            other = with_hidden_fields_changed(state, seat, rng)
            assert other != state
            assert dumps(engine.view(other, seat)) == dumps(engine.view(state, seat))


WEAPONS = ("fire_missile", "fire_laser", "kamikaze")


def near_the_first_action(state: Json, first: Json, rng: random.Random) -> list[int]:
    """A cell where the first action may have hit something (or next to it)."""
    r = robot(state, first["robot"])
    if first["type"] == "fire_missile":
        x, y = first["target"]
    elif first["type"] == "fire_laser":
        dx, dy = DELTAS[first["direction"]]
        k = rng.randint(1, 6)
        x, y = r["x"] + k * dx, r["y"] + k * dy
    else:
        x, y = r["x"] + rng.randint(-1, 1), r["y"] + rng.randint(-1, 1)
    if rng.random() < 0.3:
        x, y = x + rng.randint(-1, 1), y + rng.randint(-1, 1)
    return [x, y]


def second_actions(state: Json, orders: Json, rng: random.Random) -> list[Json]:
    """Orders whose second action goes where the first (a weapon) may have hit: legal on
    the seat's belief or not, and sometimes only because of what that belief is."""
    first = orders["actions"][0]
    others = [
        r for r in state["robots"]
        if r["seat"] == orders["seat"] and r["alive"] and r["id"] != first["robot"]
    ]  # fmt: skip
    variants = []
    for r in rng.sample(others, min(3, len(others))):
        to = near_the_first_action(state, first, rng)
        kind = rng.choice(("move", "mine", "shield", "arm_laser"))
        variants.append({**orders, "actions": [first, {"robot": r["id"], "type": kind, "to": to}]})
    return variants


def outcome(state: Json, orders: Json) -> str:
    try:
        engine.apply(state, orders)
    except EngineError as error:
        return dumps(error.to_json())
    return "accepted"


@WHOLE_MATCHES
@given(
    seed=st.integers(0, 2**31),
    seats=st.sampled_from([2, 3, 4]),
    rng=st.randoms(use_true_random=False),
)
def test_whether_orders_are_legal_never_depends_on_hidden_shields(
    seed: int, seats: int, rng: random.Random
) -> None:
    for state, orders, _ in random_play(seed, seats, 120, rng):
        actions = orders["actions"]
        if not actions or actions[0]["type"] not in WEAPONS:
            if rng.random() < 0.9:
                continue
            candidates = [orders]
        else:
            candidates = [orders, *second_actions(state, orders, rng)]
        mover = orders["seat"]
        for given_orders in candidates:
            expected = outcome(state, given_orders)
            if given_orders is orders:
                assert expected == "accepted"
            for _ in range(2):
                other = with_hidden_fields_changed(state, mover, rng)
                assert outcome(other, given_orders) == expected


@st.composite
def hits_then_second_actions(draw: st.DrawFn) -> tuple[Json, Json]:
    """A crowded 7x7 corner where seat 1 fires (or blows up) first, then sends another
    robot onto, or through, a cell the first action may have cleared."""
    cells = st.tuples(st.integers(0, 6), st.integers(0, 6))
    n_enemies = draw(st.integers(1, 5))
    spots = draw(st.lists(cells, min_size=n_enemies + 3, max_size=n_enemies + 3, unique=True))
    weapon = draw(st.sampled_from(["missile", "laser", None]))
    robots = [
        bot("1-1", *spots[0], armed=weapon),
        bot("1-2", *spots[1]),
        bot("1-3", *spots[2], shield=draw(st.booleans())),
    ]
    for n, spot in enumerate(spots[3:], start=1):
        robots.append(bot(f"3-{n}", *spot, active=draw(st.integers(0, 4)) > 0))
    robots.append(bot("3-9", 19, 19))
    state = scene(*robots, seats=2)
    enemies = spots[3:]
    if weapon == "missile":
        first = fire_missile("1-1", *draw(st.sampled_from(enemies)))
    elif weapon == "laser":
        first = fire_laser("1-1", draw(st.sampled_from(DIRECTIONS)))
    else:
        first = kamikaze("1-1")
    goal = draw(st.sampled_from(enemies))
    second: Json = {
        "robot": draw(st.sampled_from(["1-2", "1-3"])),
        "type": draw(st.sampled_from(["move", "mine", "shield", "arm_laser", "arm_missile"])),
        "to": list(goal),
    }
    if draw(st.booleans()):  # walk through the cell to a free one beyond it
        r = robot(state, second["robot"])
        beyond = draw(st.sampled_from(DIRECTIONS))
        dx, dy = DELTAS[beyond]
        steps, (x, y) = [], (r["x"], r["y"])
        while (x, y) != goal:
            x += (goal[0] > x) - (goal[0] < x)
            y += (goal[1] > y) - (goal[1] < y)
            steps.append([x, y])
        steps.append([x + dx, y + dy])
        second["path"], second["to"] = steps, steps[-1]
    return state, {"seat": 1, "turn": 0, "actions": [first, second]}


@FAST
@given(case=hits_then_second_actions(), rng=st.randoms(use_true_random=False))
def test_a_second_action_after_a_hit_is_legal_or_not_whatever_the_hidden_shields(
    case: tuple[Json, Json], rng: random.Random
) -> None:
    state, orders = case
    for shields in ([], [r["id"] for r in state["robots"] if r["seat"] == 3]):
        plain = copy.deepcopy(state)
        for r in plain["robots"]:
            r["shield"] = r["id"] in shields or (r["seat"] == 1 and r["shield"])
        expected = outcome(plain, orders)
        for _ in range(3):
            assert outcome(with_hidden_fields_changed(plain, 1, rng), orders) == expected


def test_a_second_action_after_a_weapon_is_judged_on_what_the_seat_believes() -> None:
    """The missile may meet a hidden shield; the move onto its target is legal either way."""
    plain = scene(
        bot("1-1", 5, 5, armed="missile"),
        bot("1-2", 5, 8),
        bot("3-1", 7, 5),
        bot("3-2", 17, 17),
        seats=2,
    )
    hidden = copy.deepcopy(plain)
    hidden["robots"][2]["shield"] = True
    actions = (fire_missile("1-1", 7, 5), move("1-2", 7, 5))
    destroyed = act(plain, *actions)
    absorbed = act(hidden, *actions)
    assert "destroyed" in [e["type"] for e in destroyed.events]
    assert (robot(destroyed.state, "1-2")["x"], robot(destroyed.state, "1-2")["y"]) == (7, 5)
    assert [e["type"] for e in absorbed.events if e["type"] != "turned"] == [
        "missile",
        "absorbed",
        "skipped",
    ]
    assert absorbed.events[-1]["reason"] == "occupied"
    assert (robot(absorbed.state, "1-2")["x"], robot(absorbed.state, "1-2")["y"]) == (5, 8)


# -- a shield looks like a move ---------------------------------------------------------------


def timeline_scene() -> Json:
    return scene(
        bot("1-1", 5, 5, facing="E"),
        bot("1-2", 10, 10, active=False),
        bot("2-1", 15, 5),
        bot("3-1", 5, 15, shield=True, deflect="N"),
        seats=3,
        turn=4,
        clock_ms=30_000,
    )


def as_move(action: Json, state: Json) -> Json:
    """The plain move to the cell a shield action ends on (its path too, if given)."""
    plain = {k: v for k, v in action.items() if k != "deflect"}
    plain["type"] = "move"
    if "to" not in plain:
        r = robot(state, action["robot"])
        plain["to"] = plain["path"][-1] if plain.get("path") else [r["x"], r["y"]]
    return plain


SHIELDS = {
    "in place": shield("1-1"),
    "in place with deflect": shield("1-1", deflect="NE"),
    "in place, to its own cell": shield("1-1", 5, 5, deflect="W"),
    "moving": shield("1-1", 8, 7),
    "moving with deflect": shield("1-1", 8, 7, deflect="SW"),
    "moving by a given path": {
        "robot": "1-1",
        "type": "shield",
        "to": [7, 3],
        "path": [[6, 5], [7, 4], [7, 3]],
        "deflect": "E",
    },
    "inactive robot in place": shield("1-2", deflect="S"),
    "inactive robot moving": shield("1-2", 6, 10),
}
OTHERS = {
    "alone": [],
    "then a move": [move("1-2", 12, 12)],
    "then an arm": [arm("1-2", "laser", 11, 11)],
}


@pytest.mark.parametrize("shield_name", list(SHIELDS))
@pytest.mark.parametrize("other_name", list(OTHERS))
@pytest.mark.parametrize("first", [True, False], ids=["shield first", "shield second"])
def test_a_shield_has_the_same_public_timeline_as_a_plain_move_to_the_same_cell(
    shield_name: str, other_name: str, first: bool
) -> None:
    state = timeline_scene()
    raised = SHIELDS[shield_name]
    others = [a for a in OTHERS[other_name] if a["robot"] != raised["robot"]]
    if not others and other_name != "alone":
        others = [move("1-1", 3, 3)]
    shielded_turn = [raised, *others] if first else [*others, raised]
    moved_turn = [as_move(raised, state), *others] if first else [*others, as_move(raised, state)]
    with_shield = act(state, *shielded_turn)
    with_move = act(state, *moved_turn)
    assert with_shield.events != with_move.events, "the mover's own copy shows its shield"
    assert robot(with_shield.state, raised["robot"])["shield"] is True
    for seat in (2, 3, None):
        assert dumps(copies(with_shield, seat)) == dumps(copies(with_move, seat))
        assert dumps(engine.view(with_shield.state, seat)) == dumps(
            engine.view(with_move.state, seat)
        )
    mine = [e for e in copies(with_shield, 1) if e["type"] == "shielded"]
    assert mine == [e for e in with_shield.events if e["type"] == "shielded"]
    assert mine[0]["deflect"] == raised.get("deflect")


def test_a_move_to_the_robots_own_cell_walks_nothing_and_is_recorded_as_a_pass() -> None:
    """What makes a shield raised in place look like a pass to everybody else."""
    state = timeline_scene()
    applied = act(state, move("1-2", 10, 10))
    assert applied.events == [{"type": "pass", "t_ms": 0, "duration_ms": 0, "seat": 1}]
    assert robot(applied.state, "1-2")["active"] is True
    both = act(state, move("1-2", 10, 10), move("1-1", 7, 5))
    assert [e["type"] for e in both.events] == ["moved"]


def test_the_shielded_event_names_the_seat_that_raised_it() -> None:
    applied = act(timeline_scene(), shield("1-1", 6, 5, deflect="NW"))
    raised = [e for e in applied.events if e["type"] == "shielded"]
    assert raised == [
        {"type": "shielded", "t_ms": raised[0]["t_ms"], "duration_ms": 0,
         "robot": "1-1", "seat": 1, "deflect": "NW"}
    ]  # fmt: skip
    assert copies(applied, 1) == applied.events


def test_another_seats_shielded_event_is_left_out_of_every_other_copy() -> None:
    applied = act(timeline_scene(), shield("1-1", 8, 7, deflect="SW"), move("1-2", 12, 12))
    assert "shielded" in [e["type"] for e in applied.events]
    assert "shielded" in [e["type"] for e in copies(applied, 1)]
    for seat in (2, 3, None):
        kept = copies(applied, seat)
        assert [e for e in applied.events if e["type"] != "shielded"] == kept
        assert not any("deflect" in e for e in kept)


def test_a_copy_left_empty_shows_a_pass_and_the_robot_turns_active() -> None:
    applied = act(timeline_scene(), shield("1-2", deflect="S"))
    assert [e["type"] for e in applied.events] == ["shielded"]
    for seat in (2, 3, None):
        assert copies(applied, seat) == [{"type": "pass", "t_ms": 0, "duration_ms": 0, "seat": 1}]
        assert robot(engine.view(applied.state, seat), "1-2")["active"] is True
    assert applied.state["clock_ms"] == 30_000 + timing.MIN_TURN_MS


def test_no_event_names_a_hidden_deflect_before_the_hit_that_spends_it() -> None:
    state = scene(
        bot("1-1", 4, 4, facing="E"),
        bot("2-1", 10, 4, armed="laser", facing="W"),
        bot("2-2", 18, 18),
        bot("3-1", 18, 10),
        seats=3,
    )
    raised = act(state, shield("1-1", 5, 4, deflect="S"))
    quiet = [raised]
    for _ in range(3):  # seats 2, 3 and 1 pass; the shield waits
        quiet.append(act(quiet[-1].state))
    for applied in quiet:
        for seat in (2, 3, None):
            kept = copies(applied, seat)
            assert not any("deflect" in e or e["type"] == "shielded" for e in kept)
            assert '"S"' not in dumps(kept)
    assert robot(quiet[-1].state, "1-1")["deflect"] == "S"
    fired = act(quiet[-1].state, fire_laser("2-1", "W"))
    turned = [e for e in fired.events if e["type"] == "deflected"]
    assert turned == [
        {"type": "deflected", "t_ms": turned[0]["t_ms"], "duration_ms": turned[0]["duration_ms"],
         "robot": "1-1", "direction": "S"}
    ]  # fmt: skip
    for seat in (1, 2, 3, None):
        assert copies(fired, seat) == fired.events
    assert robot(fired.state, "1-1")["shield"] is False


HITS = {
    "laser stopped": (
        [bot("1-1", 4, 4, shield=True), bot("2-1", 9, 4, armed="laser")],
        fire_laser("2-1", "W"),
        "absorbed",
    ),
    "laser turned": (
        [bot("1-1", 4, 4, shield=True, deflect="N"), bot("2-1", 9, 4, armed="laser")],
        fire_laser("2-1", "W"),
        "deflected",
    ),
    "missile absorbed": (
        [bot("1-1", 4, 4, shield=True, deflect="E"), bot("2-1", 8, 4, armed="missile")],
        fire_missile("2-1", 4, 4),
        "absorbed",
    ),
    "blast absorbed": (
        [bot("1-1", 4, 4, shield=True), bot("2-1", 5, 5)],
        kamikaze("2-1"),
        "absorbed",
    ),
}


@pytest.mark.parametrize("name", list(HITS))
def test_what_a_hit_reveals_is_seen_by_everybody(name: str) -> None:
    robots, action, revealed = HITS[name]
    state = scene(*robots, bot("3-1", 18, 18), bot("4-1", 1, 18), to_move=2)
    applied = act(state, action)
    shown = [e for e in applied.events if e["type"] == revealed]
    assert len(shown) == 1 and shown[0]["robot"] == "1-1"
    assert not [e for e in applied.events if e["type"] == "destroyed" and e["robot"] == "1-1"]
    for seat in (1, 2, 3, 4, None):
        assert copies(applied, seat) == applied.events
    assert robot(applied.state, "1-1")["shield"] is False
    assert robot(applied.state, "1-1")["deflect"] is None


@WHOLE_MATCHES
@given(
    seed=st.integers(0, 2**31),
    seats=st.sampled_from([2, 3, 4]),
    rng=st.randoms(use_true_random=False),
)
def test_in_random_play_copies_hide_shields_and_show_every_hit(
    seed: int, seats: int, rng: random.Random
) -> None:
    for state, orders, applied in random_play(seed, seats, 120, rng):
        mover = orders["seat"]
        revealed = [e for e in applied.events if e["type"] in ("absorbed", "deflected")]
        for seat in viewers(state):
            kept = copies(applied, seat)
            assert kept, "a copy is never empty"
            assert all(e in kept for e in revealed)
            if applied.state["over"] or seat == mover:
                assert kept == applied.events
                continue
            assert not [e for e in kept if e["type"] == "shielded"]
            assert not [e for e in kept if "deflect" in e]
            assert kept == [e for e in applied.events if e["type"] != "shielded"] or kept == [
                {"type": "pass", "t_ms": 0, "duration_ms": 0, "seat": mover}
            ]
        shielding = any(a["type"] == "shield" for a in orders["actions"])
        if shielding and not revealed and not applied.state["over"]:
            plain = {**orders, "actions": [as_move(a, state) if a["type"] == "shield" else a
                                           for a in orders["actions"]]}  # fmt: skip
            moved = engine.apply(state, plain)
            for seat in viewers(state):
                if seat == mover:
                    continue
                assert dumps(copies(applied, seat)) == dumps(copies(moved, seat))
                assert dumps(engine.view(applied.state, seat)) == dumps(
                    engine.view(moved.state, seat)
                )
