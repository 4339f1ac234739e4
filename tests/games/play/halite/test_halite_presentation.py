"""Halite's presentation: registered under its name, counted in turns, ranked by
territory, its ending told in one sentence, its rules page's numbers from the engine."""

from __future__ import annotations

from typing import Any

import pytest

import engine
from engine.halite import mapgen, state
from games import presentation, records
from games.play import halite
from games.play.halite import rules

pytestmark = pytest.mark.django_db


def _played(seed: int = 2, seats: int = 3, size: int = 10, turns: int = 500) -> dict[str, Any]:
    current = engine.new_game(
        seed=seed, seats=seats, ruleset="halite", options={"width": size, "height": size}
    )
    for _ in range(turns):
        if current["over"]:
            break
        orders = [
            engine.bot_orders("grower" if s == 1 else "random", current, s)
            for s in engine.awaiting(current)
        ]
        current = engine.apply(current, orders).state
    return current


def test_halite_is_registered_with_its_parts():
    shown = presentation.get("halite")
    assert shown is halite.PRESENTATION and shown.title == "Halite"
    assert shown.place == "The map" and shown.planner_script == "play/halite/planner.js"
    assert shown.legend_template == "play/halite/_legend.html" and shown.max_actions == 0
    assert shown.hints(engine.view(engine.new_game(seed=1, ruleset="halite"), 1)) is None
    assert shown.timing == {"TURN_MS": 800}


def test_progress_counts_turns_and_says_the_maps_size():
    view = engine.view(engine.new_game(seed=1, ruleset="halite"), None)
    assert (
        presentation.get("halite").progress({**view, "turn": 12})
        == "Turn 12 of 300 on a 30 × 30 map"
    )


def test_the_progress_says_the_size_the_tiles_made_not_the_size_asked():
    """Six seats cut the map into 3 x 2 (or 2 x 3) tiles: 50 is not a whole number of 3."""
    state = engine.new_game(seed=3, seats=6, ruleset="halite", options={"width": 50, "height": 50})
    size = f"{state['width']} × {state['height']}"
    assert size in ("48 × 50", "50 × 48")
    assert (
        presentation.get("halite").progress(engine.view(state, None)).endswith(f"on a {size} map")
    )


def test_places_follow_the_engines_ranking_and_a_seat_with_no_cell_ranks_last():
    final = _played()
    assert final["over"]
    cells = {s: sum(row.count(s) for row in final["owner"]) for s in range(1, 4)}
    shown = presentation.get("halite")
    assert shown.final_scores(final) == cells and shown.pieces_left(final) is None
    table = records.standings(final)
    assert [s.seat for s in table] == final["ranking"]
    assert table[0].seat in final["winners"] and table[0].won
    assert [s.money for s in table] == sorted(cells.values(), reverse=True)
    assert all(row.robots_left is None for row in table)  # no "Robots: N left" line
    counts = shown.seat_records(final, [])
    assert {s: c["final_money"] for s, c in counts.items()} == cells
    assert {s for s, c in counts.items() if c["won"]} == set(final["winners"])


def test_seats_equal_in_territory_are_placed_by_the_rankings_tie_breaks():
    final = {**_played(), "winners": [2], "ranking": [2, 3, 1]}
    final["scores"] = {"1": 0, "2": 5, "3": 5}
    final["owner"] = [[0] * final["width"] for _ in range(final["height"])]
    for x in range(5):
        final["owner"][0][x] = 2
        final["owner"][1][x] = 3
    table = records.standings(final)
    assert [(s.seat, s.place, s.tied, s.won) for s in table] == [
        (2, 1, False, True),
        (3, 2, False, False),
        (1, 3, False, False),
    ]


def test_the_ending_is_one_sentence_of_territory_or_the_last_seat_standing():
    final = _played()
    names = {1: "alice", 2: "bot random", 3: "bob"}
    sentence = presentation.get("halite").decided(final, names)
    winner = final["winners"][0]
    assert sentence.startswith(f"Seat {winner} ({names[winner]})") and sentence.endswith(".")
    total = final["width"] * final["height"]
    assert f"of {total} cells" in sentence
    alive = [s for s in range(1, 4) if any(s in row for row in final["owner"])]
    if len(alive) == 1:
        assert "the last seat on the map" in sentence
    else:
        assert f"on territory after the last turn ({final['turn']})" in sentence


def test_a_tie_on_cells_is_said_to_be_broken_by_territory_over_the_match():
    final = _played()
    width, height = final["width"], final["height"]
    half = width // 2
    owner = [[1 if x < half else 2 for x in range(width)] for _ in range(height)]
    even = {
        **final,
        "owner": owner,
        "winners": [2],
        "ranking": [2, 1, 3],
    }
    sentence = presentation.get("halite").decided(even, {})
    assert "the tie broken by territory over the whole match" in sentence
    assert f"{half * height} of {width * height} cells to seat 1's {half * height}" in sentence


def test_the_rules_context_reads_the_engine():
    context = rules.rules_context()
    assert context["seats"] == [2, 3, 4, 5, 6]
    assert (context["size_min"], context["size_max"], context["size_default"]) == (
        state.MIN_SIZE,
        state.MAX_SIZE,
        "30 × 30",
    )
    assert context["max_strength"] == state.MAX_STRENGTH
    assert context["max_production"] == state.MAX_PRODUCTION
    assert context["top_production"] == (mapgen.MIN_TOP_PRODUCTION, mapgen.MAX_TOP_PRODUCTION)
    assert {m["size"]: m["turns"] for m in context["max_turns_examples"]}["20 × 20"] == 200
    assert [k["shape"] for k in context["keys"]][4:] == ["cross", "star"]
    assert str(context["diagrams"]["wrap"]).startswith('<svg class="board halite-board"')


def test_the_lobby_picture_is_a_map_a_few_turns_in():
    picture = str(presentation.get("halite").picture())
    assert picture.startswith('<svg class="game-picture"') and "data:image/png" in picture
