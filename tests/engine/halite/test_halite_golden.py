"""Golden replays of Halite: seed + recorded orders -> the pinned digest of the end.

See golden/README.md for how they were recorded. Any drift of the rules, the map or
the timing shows up as a difference in an event, the final state or its digest.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers import digest, engine_cli, named_tests_missing, read_json

import engine
from engine import match

GOLDEN = Path(__file__).parent / "golden"
Json = dict[str, Any]

# file: (sha256 of the final state's canonical JSON, turns, winners, ranking)
FIXTURES: dict[str, tuple[str, int, list[int], list[int]]] = {
    "2p-random-random-seed1-12x12.json": ("391f078222be05ecc1a00fb6dd382917b510757988c2fe917d18c972b75c72f2", 120, [2], [2, 1]),
    "3p-random-grower-random-seed2-15x15.json": ("47eef856151a37322995dbe4546921277e7231f884859849734e51585ddee63c", 23, [2], [2, 1, 3]),
    "4p-grower-grower-grower-grower-seed3-12x12.json": ("451b505274a1a22798e2d625aa620912c3b0d7cf1248f0bdace7083536e9679e", 120, [1, 2, 3, 4], [4, 3, 2, 1]),
    "2p-grower-random-seed4-10x10.json": ("c978032ddce3fe1607a2316f0d62e56b50253cf3d86cb4a708874e8fbde7593f", 24, [1], [1, 2]),
    "6p-random-random-grower-random-random-random-seed5-12x12.json": ("c06c5c2783d85ed2650c29f01ba26bf2f1b9dfb6c5efd2b36425f9f780ce1871", 58, [3], [3, 6, 2, 4, 1, 5]),
}  # fmt: skip
EVENT_TYPES = {"move", "merge", "damage", "destroyed", "captured", "eliminated", "over"}


def load(name: str) -> Json:
    return read_json(GOLDEN / name)


def test_every_fixture_in_golden_is_pinned_here() -> None:
    assert sorted(p.name for p in GOLDEN.glob("*.json")) == sorted(FIXTURES)


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_a_golden_replay_gives_the_pinned_final_state(name: str) -> None:
    record = load(name)
    initial = record["initial"]
    options = {"width": initial["width"], "height": initial["height"]}
    assert initial == engine.new_game(
        seed=initial["seed"], seats=initial["seats"], ruleset="halite", options=options
    )
    state = initial
    for n, turn in enumerate(record["turns"]):
        applied = engine.apply(state, turn["orders"])
        # Recorded piece by piece: the grouped events read as every viewer reads them.
        assert engine.events_view(applied.events, None, ruleset="halite") == turn["events"], n
        state = applied.state
    assert state == record["final"]
    pinned, turns, winners, ranking = FIXTURES[name]
    assert (digest(state), len(record["turns"]), state["winners"], state["ranking"]) == (
        pinned, turns, winners, ranking,
    )  # fmt: skip


def test_the_golden_replays_show_every_type_of_event() -> None:
    seen = {e["type"] for name in FIXTURES for t in load(name)["turns"] for e in t["events"]}
    assert seen == EVENT_TYPES


def test_python_m_engine_replay_accepts_a_golden_replay_and_refuses_a_changed_one(
    tmp_path: Path,
) -> None:
    name = "2p-grower-random-seed4-10x10.json"
    ok = engine_cli("replay", str(GOLDEN / name))
    assert ok.returncode == 0 and json.loads(ok.stdout)["ok"] is True
    record = load(name)
    record["turns"][3]["events"][0]["t_ms"] += 1
    changed = tmp_path / "changed.json"
    changed.write_text(json.dumps(record))
    bad = engine_cli("replay", str(changed))
    assert bad.returncode == 1 and json.loads(bad.stdout)["error"]["code"] == "bad_state"
    with pytest.raises(match.ReplayMismatch):
        match.replay_check(record)


DOCS = Path(__file__).resolve().parents[3] / "docs" / "games" / "halite.md"


def test_docs_games_halite_md_names_only_tests_that_exist() -> None:
    named, missing = named_tests_missing(
        DOCS.read_text(encoding="utf-8"), r"test_halite_\w+", Path(__file__).parent
    )
    assert named > 30
    assert not missing
