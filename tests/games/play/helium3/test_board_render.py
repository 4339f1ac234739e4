"""The board's SVG, its history sentences and its click hints, from views only
(no database): what each viewer may see, and that a hint is exactly a legal order."""

from __future__ import annotations

import copy
import re
import time
from typing import Any

import pytest

import engine
from games.play.helium3.board import ANGLE, AXIS_STEP, MARGIN, helium_class, render_board
from games.play.helium3.hints import hints_after, hints_for
from games.play.helium3.sentences import describe_events


def _state(seed: int = 7) -> dict[str, Any]:
    return engine.new_game(seed=seed, seats=4)


def _robot(state: dict[str, Any], robot_id: str) -> dict[str, Any]:
    return next(r for r in state["robots"] if r["id"] == robot_id)


def _group(svg: str, robot_id: str) -> str:
    match = re.search(rf'<g id="rb-{robot_id}"[^>]*>', svg)
    assert match, f"robot {robot_id} is not on the board"
    return match.group(0)


@pytest.fixture
def shielded() -> dict[str, Any]:
    """Seat 3's robot 3-1 is active with a shield deflecting SW; 2-1 has a missile armed."""
    state = _state()
    _robot(state, "3-1").update(active=True, shield=True, deflect="SW")
    _robot(state, "2-1").update(active=True, armed="missile")
    return state


def test_the_board_is_one_svg_with_every_living_robot_and_the_helium_of_every_cell():
    state = _state()
    svg = str(render_board(engine.view(state, 1)))
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert "<table" not in svg
    assert svg.count('class="rb ') == 20
    helium = [int(a) for row in state["helium"] for a in row]
    attr = re.search(r'data-helium="([^"]*)"', svg)
    assert attr and [int(a) for a in attr.group(1).split(",")] == helium
    assert svg.count('<rect id="c') == sum(1 for a in helium if a > 0)
    rich = max(range(400), key=lambda i: helium[i])
    assert f"<title>({rich % 20}, {rich // 20}) helium {helium[rich]}</title>" in svg


def test_each_seat_has_its_own_colour_class_and_shape():
    svg = str(render_board(engine.view(_state(), None)))
    for seat, shape in ((1, "circle"), (2, "square"), (3, "triangle"), (4, "diamond")):
        group = _group(svg, f"{seat}-1")
        assert f"rb s{seat}" in group and f"({shape})" in group
        assert f'href="#g-s{seat}"' in svg


def test_facing_inactive_and_armed_robots_are_drawn_and_named(shielded):
    svg = str(render_board(engine.view(shielded, 1)))
    armed = _group(svg, "2-1")
    assert " am" in armed and "idle" not in armed and "missile armed" in armed
    idle = _group(svg, "1-1")
    assert "idle" in idle and "inactive (immune)" in idle and "facing south-east" in idle
    nose = re.search(
        r'<g id="rb-1-1".*?class="nose" href="#g-nose" transform="rotate\((\d+)\)"', svg
    )
    assert nose and nose.group(1) == "135"  # seat 1 starts facing SE


def test_a_shield_and_its_deflect_show_on_the_owners_board_only(shielded):
    owner = str(render_board(engine.view(shielded, 3)))
    group = _group(owner, "3-1")
    assert " sd" in group and " dd" in group and 'data-d="SW"' in group
    assert "shield SW (deflects south-west)" in group
    for viewer in (1, 2, 4, None):
        svg = str(render_board(engine.view(shielded, viewer)))
        group = _group(svg, "3-1")
        assert " sd" not in group and " dd" not in group and 'data-d=""' in group
        assert "shield" not in group and "SW" not in group


def test_the_board_for_an_opponent_is_the_same_whatever_the_hidden_shields(shielded):
    plain = copy.deepcopy(shielded)
    _robot(plain, "3-1").update(shield=False, deflect=None)
    for viewer in (1, 2, 4, None):
        assert render_board(engine.view(shielded, viewer)) == render_board(
            engine.view(plain, viewer)
        )


def test_destroyed_robots_are_gone_from_the_board():
    state = _state()
    _robot(state, "4-2").update(alive=False)
    svg = str(render_board(engine.view(state, 1)))
    assert 'id="rb-4-2"' not in svg and svg.count('class="rb ') == 19
    # What is left where it fell: a wreck under the helium, nothing a script could pick.
    x, y = _robot(state, "4-2")["x"], _robot(state, "4-2")["y"]
    wrecks = re.search(r'<g class="wrecks"[^>]*>(.*?)</g><g class="he">', svg)
    assert wrecks and wrecks.group(1) == (
        f'<use href="#g-wreck" transform="translate({MARGIN + x * 32 + 16} {MARGIN + y * 32 + 16})"/>'
    )


def test_the_board_is_rendered_in_well_under_a_millisecond_or_two():
    view = engine.view(_state(), 1)
    render_board(view)
    runs = []
    for _ in range(30):
        start = time.process_time()
        render_board(view)
        runs.append(time.process_time() - start)
    assert sorted(runs)[len(runs) // 2] < 0.002


def _robot_markup(svg: str) -> dict[str, str]:
    return {m.group(1): m.group(0) for m in re.finditer(r'<g id="rb-([^"]+)"[^>]*>.*?</g>', svg)}


def test_every_robot_is_a_vehicle_turned_to_its_facing_with_its_seats_shape(shielded):
    state = shielded
    _robot(state, "4-3").update(facing="W")
    svg = str(render_board(engine.view(state, None)))
    groups = _robot_markup(svg)
    assert len(groups) == 20
    for robot in state["robots"]:
        group = groups[robot["id"]]
        seat = robot["seat"]
        assert (
            f'<use class="nose" href="#g-nose" transform="rotate({ANGLE[robot["facing"]]})"/>'
            in group
        )
        assert f'<use class="body" href="#g-s{seat}"/>' in group  # the shape badge
        assert f'<text y="3.2">{robot["id"].split("-")[1]}</text>' in group
    assert 'transform="rotate(270)"' in groups["4-3"]
    # The vehicle is defined once: treads, a body and a mining scoop.
    vehicle = re.search(r'<g id="g-nose">.*?</g>', svg)
    assert vehicle and all(part in vehicle.group(0) for part in ("trk", "chs", "arm"))
    assert svg.count('id="g-nose"') == 1


def test_an_armed_weapon_shows_its_badge_and_an_unarmed_robot_none(shielded):
    state = shielded
    _robot(state, "4-1").update(active=True, armed="laser")
    svg = str(render_board(engine.view(state, 4)))
    groups = _robot_markup(svg)
    classes = {rid: re.search(r'class="([^"]*)"', g).group(1).split() for rid, g in groups.items()}
    assert "am" in classes["2-1"] and "al" not in classes["2-1"]
    assert "al" in classes["4-1"] and "am" not in classes["4-1"]
    armed = {rid for rid, c in classes.items() if "am" in c or "al" in c}
    assert armed == {"2-1", "4-1"}
    # Both badges are in every group; the board's style shows the one its class names.
    assert all('href="#g-bm"' in g and 'href="#g-bl"' in g for g in groups.values())
    assert "svg.board .am .bm,svg.board .al .bl{display:inline}" in svg


def test_active_and_inactive_robots_differ_and_the_viewers_own_are_marked(shielded):
    svg = str(render_board(engine.view(shielded, 2)))
    groups = _robot_markup(svg)
    classes = {rid: re.search(r'class="([^"]*)"', g).group(1).split() for rid, g in groups.items()}
    assert "idle" not in classes["2-1"] and "idle" not in classes["3-1"]
    assert all("idle" in classes[r] for r in ("1-1", "2-2", "4-5"))
    assert {rid for rid, c in classes.items() if "own" in c} == {f"2-{n}" for n in range(1, 6)}
    assert 'role="button"' in groups["2-3"] and 'role="img"' in groups["1-3"]


def test_a_shield_ring_is_drawn_only_on_the_viewers_own_robots(shielded):
    """The ring and the arrow are in every group (the script toggles them); only the
    classes `sd` / `dd` show them, and those come from the view alone."""
    state = shielded
    _robot(state, "1-2").update(active=True, shield=True, deflect=None)
    expected = {1: {"1-2"}, 3: {"3-1"}, 2: set(), 4: set(), None: set()}
    for viewer, own in expected.items():
        svg = str(render_board(engine.view(state, viewer)))
        groups = _robot_markup(svg)
        shown = {
            rid for rid, g in groups.items() if " sd" in re.search(r'class="([^"]*)"', g).group(0)
        }
        assert shown == own, viewer
        deflecting = {rid for rid, g in groups.items() if " dd" in g.split(">", 1)[0]}
        assert deflecting == (own & {"3-1"}), viewer
        assert ("deflects" in svg) == (viewer == 3)


def test_coordinates_are_labelled_every_fifth_cell_on_the_margin():
    svg = str(render_board(engine.view(_state(), 1)))
    axis = re.search(r'<g class="axis"[^>]*>(.*?)</g>', svg)
    assert axis
    columns = re.findall(r'<text x="\d+" y="\d+">(\d+)</text>', axis.group(1))
    rows = re.findall(r'<text x="\d+" y="\d+" class="row">(\d+)</text>', axis.group(1))
    assert columns == rows == ["0", "5", "10", "15"]
    # Every label sits in the margin, outside the moon.
    for x, y in re.findall(r'<text x="(\d+)" y="(\d+)"', axis.group(1)):
        assert int(x) < MARGIN or int(y) < MARGIN
    assert AXIS_STEP == 5


def test_the_moon_is_textured_and_helium_glows_brighter_for_more():
    svg = str(render_board(engine.view(_state(), 1)))
    assert '<rect class="ground"' in svg and '<rect class="craters"' in svg
    assert '<pattern id="g-crt"' in svg and '<radialGradient id="g-moon"' in svg
    radii = [float(r) for r in re.findall(r'<radialGradient id="g-h\d" r="([.\d]+)"', svg)]
    assert len(radii) == 4 and radii == sorted(radii) and len(set(radii)) == 4
    assert [helium_class(a) for a in (1, 349, 350, 749, 750, 1199, 1200, 5000)] == [
        "h1",
        "h1",
        "h2",
        "h2",
        "h3",
        "h3",
        "h4",
        "h4",
    ]


def test_the_board_has_a_layer_for_planned_orders_under_the_robots():
    svg = str(render_board(engine.view(_state(), 1)))
    order = [
        svg.index(f'<g class="{name}"') for name in ("wrecks", "he", "plan", "hl", "robots", "fx")
    ]
    assert order == sorted(order)


# -- history ---------------------------------------------------------------------------


def test_a_laser_reads_as_one_sentence_naming_what_it_destroyed():
    events = [
        {"type": "turned", "t_ms": 0, "duration_ms": 300, "robot": "2-3", "from": "SW", "to": "NE"},
        {
            "type": "laser",
            "t_ms": 300,
            "duration_ms": 400,
            "robot": "2-3",
            "segments": [[[5, 10], [13, 2]]],
        },
        {"type": "destroyed", "t_ms": 350, "duration_ms": 1000, "robot": "4-1", "dropped": 0},
        {"type": "destroyed", "t_ms": 500, "duration_ms": 1000, "robot": "3-5", "dropped": 600},
    ]
    assert describe_events(events) == [
        "Robot 2-3 fired a laser north-east, destroying 4-1 and 3-5 (600 helium dropped)."
    ]


def test_a_walk_and_what_the_robot_does_at_its_end_are_one_sentence():
    events = [
        {"type": "moved", "t_ms": 0, "duration_ms": 2000, "robot": "1-5", "path": [[3, 3], [4, 4]]},
        {
            "type": "turned",
            "t_ms": 2000,
            "duration_ms": 300,
            "robot": "1-5",
            "from": "SE",
            "to": "E",
        },
        {"type": "moved", "t_ms": 2300, "duration_ms": 1000, "robot": "1-5", "path": [[5, 4]]},
        {"type": "mined", "t_ms": 3300, "duration_ms": 2000, "robot": "1-5", "amount": 1750},
        {"type": "moved", "t_ms": 5300, "duration_ms": 1000, "robot": "1-2", "path": [[2, 2]]},
    ]
    assert describe_events(events) == [
        "Robot 1-5 moved 3 cells to (5, 4) and mined 1,750 helium.",
        "Robot 1-2 moved 1 cell to (2, 2).",
    ]


def test_another_seats_shield_never_reaches_a_sentence():
    state = _state()
    state["to_move"] = 3
    applied = engine.apply(
        state,
        {"seat": 3, "turn": 0, "actions": [{"robot": "3-1", "type": "shield", "deflect": "N"}]},
    )
    own = describe_events(engine.events_view(applied.events, 3))
    assert own == ["Robot 3-1 raised its shield, set to deflect north."]
    for viewer in (1, None):
        lines = describe_events(engine.events_view(applied.events, viewer))
        assert lines == ["Seat 3 passed."]
        assert "shield" not in " ".join(lines)


def test_every_event_of_a_whole_bot_match_becomes_a_sentence():
    state = _state(11)
    kinds: set[str] = set()
    while not state["over"]:
        applied = engine.apply(state, engine.bot_orders("fighter", state, state["to_move"]))
        kinds |= {e["type"] for e in applied.events}
        for viewer in (1, None):
            copy_ = engine.events_view(applied.events, viewer, over=applied.state["over"])
            lines = describe_events(copy_)
            assert lines and all(line.endswith(".") and line[0].isupper() for line in lines)
        state = applied.state
    assert {"moved", "mined", "match_over"} <= kinds
    assert describe_events(applied.events)[-1].startswith("The match is over")


# -- hints -------------------------------------------------------------------------------


def _legal(state: dict[str, Any], actions: list[dict[str, Any]]) -> bool:
    try:
        engine.validate(
            state, {"seat": state["to_move"], "turn": state["turn"], "actions": actions}
        )
    except engine.EngineError:
        return False
    return True


@pytest.mark.parametrize("kind", ["move", "mine", "arm_laser", "shield"])
def test_a_highlighted_cell_is_exactly_a_legal_destination(kind):
    state = _state(3)
    hints = hints_for(engine.view(state, 1))
    robot = hints["robots"]["1-5"]
    reach = hints["ranges"][kind]
    for i, mark in enumerate(robot["reach"]):
        x, y = i % 20, i // 20
        lit = mark != "." and int(mark) <= reach
        assert lit == _legal(state, [{"robot": "1-5", "type": kind, "to": [x, y]}]), (kind, x, y)


def test_missile_targets_and_laser_paths_come_from_the_engine(shielded):
    state = shielded
    state["to_move"] = 2
    _robot(state, "2-2").update(active=True, armed="laser")
    hints = hints_for(engine.view(state, 2))
    missile = hints["robots"]["2-1"]["missile"]
    for i, mark in enumerate(missile):
        target = [i % 20, i // 20]
        assert (mark == "1") == _legal(
            state, [{"robot": "2-1", "type": "fire_missile", "target": target}]
        )
    beams = hints["robots"]["2-2"]["laser"]
    assert set(beams) == {"N", "NE", "E", "SE", "S", "SW", "W", "NW"}
    for direction, beam in beams.items():
        real = engine.apply(
            engine.helium3.api.masked(engine.helium3.state.State.from_json(state), 2).to_json(),
            {
                "seat": 2,
                "turn": 0,
                "actions": [{"robot": "2-2", "type": "fire_laser", "direction": direction}],
            },
        )
        laser = next(e for e in real.events if e["type"] == "laser")
        assert beam["segments"] == laser["segments"]


def test_a_laser_hint_is_the_beam_as_far_as_the_seat_knows_not_the_hidden_truth():
    state = _state()
    state["to_move"] = 2
    # 2-1 at (17, 0) fires south along x=17; 2-2 at (17, 1) is in the way: move it aside.
    _robot(state, "2-2").update(x=15, y=5)
    _robot(state, "2-1").update(active=True, armed="laser")
    # Seat 3's 3-3 at (17, 17) holds a hidden shield that would turn the beam west.
    _robot(state, "3-3").update(active=True, shield=True, deflect="W")
    beam = hints_for(engine.view(state, 2))["robots"]["2-1"]["laser"]["S"]
    assert beam["segments"] == [[[17, 0], [17, 19]]]
    truth = engine.apply(
        state,
        {
            "seat": 2,
            "turn": 0,
            "actions": [{"robot": "2-1", "type": "fire_laser", "direction": "S"}],
        },
    )
    assert next(e for e in truth.events if e["type"] == "laser")["segments"] != beam["segments"]


def test_second_action_hints_are_on_the_board_the_first_leaves():
    state = _state(3)
    view = engine.view(state, 1)
    first = {"robot": "1-3", "type": "move", "to": [0, 5]}
    after = hints_after(view, first)
    assert "1-3" not in after["robots"]
    moved = next(r for r in after["first"]["robots"] if r["id"] == "1-3")
    assert (moved["x"], moved["y"]) == (0, 5)
    reach = after["robots"]["1-4"]["reach"]
    assert reach[5 * 20 + 0] == "."  # the first robot now stands there
    for i, mark in enumerate(reach):
        if mark == "." or int(mark) > 6:
            continue
        second = {"robot": "1-4", "type": "move", "to": [i % 20, i // 20]}
        assert _legal(state, [first, second]) or mark == "0"


def test_an_illegal_first_action_gets_the_engines_words():
    view = engine.view(_state(), 1)
    answer = hints_after(view, {"robot": "1-1", "type": "move", "to": [15, 5]})
    assert answer == {
        "error": {
            "code": "out_of_range",
            "message": "A move moves at most 6 cells; [15, 5] is 13 away.",
            "action": 0,
        }
    }
    assert hints_after(view, "nonsense")["error"]["code"] == "bad_shape"
