"""Golden replays of the remake: seed + recorded orders -> the pinned digest of the end.

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

# file: (sha256 of the final state's canonical JSON, turns, winners, termination)
FIXTURES: dict[str, tuple[str, int, list[int], str]] = {
    "2p-random-random-seed2.json": ("7719a7d570fc9731282a30d86ceb740713bf7468b491c12bd904f5931237ee00", 40, [3], "rounds"),
    "3p-random-random-random-seed24.json": ("7cc899d7cc3e21e5fcb52b95b45ea5c6b531b88567b938cb59a71364c693bc69", 21, [2], "elimination"),
    "4p-random-random-random-random-seed0.json": ("5071b3e16ce6f7fd9d6daee31f4e5800bcf8c4f7e364a2e4656a3c8bdbd2ae8f", 77, [3], "rounds"),
    "4p-prospector-random-random-random-seed0.json": ("98243368c3d739accb790f10ea1cc1ac7849d76c94206ae8c488f17e1d37f854", 69, [1], "elimination"),
    "4p-prospector-prospector-prospector-prospector-seed3.json": ("ad85d855c68ef1b835ec739012d01b203095057c045067cc0779e76bd34cdc5a", 80, [3], "rounds"),
    "4p-scripted-kamikaze-then-random-seed5.json": ("1190b2d48a956610ad30c7892ac8a6ae9345a4151776694fee58a937b24661af", 80, [3], "rounds"),
}  # fmt: skip
EVENT_TYPES = {
    "turned", "moved", "mined", "armed", "shielded", "missile", "laser", "kamikaze",
    "absorbed", "deflected", "destroyed", "skipped", "pass", "match_over",
}  # fmt: skip


def load(name: str) -> Json:
    return read_json(GOLDEN / name)


def test_every_fixture_in_golden_is_pinned_here() -> None:
    assert sorted(p.name for p in GOLDEN.glob("*.json")) == sorted(FIXTURES)


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_a_golden_replay_gives_the_pinned_final_state(name: str) -> None:
    record = load(name)
    initial = record["initial"]
    seats = len(initial["players"])
    assert initial == engine.new_game(seed=initial["seed"], seats=seats, ruleset="helium3-remake")
    state = initial
    for n, turn in enumerate(record["turns"]):
        applied = engine.apply(state, turn["orders"])
        assert applied.events == turn["events"], f"turn {n}"
        state = applied.state
    assert state == record["final"]
    pinned, turns, winners, termination = FIXTURES[name]
    assert (digest(state), len(record["turns"]), state["winners"], state["termination"]) == (
        pinned, turns, winners, termination,
    )  # fmt: skip


def test_the_golden_replays_show_every_type_of_event() -> None:
    seen = {e["type"] for name in FIXTURES for t in load(name)["turns"] for e in t["events"]}
    assert seen == EVENT_TYPES


def test_python_m_engine_replay_accepts_a_golden_replay_and_refuses_a_changed_one(
    tmp_path: Path,
) -> None:
    name = "3p-random-random-random-seed24.json"
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


DOCS = Path(__file__).resolve().parents[3] / "docs" / "games" / "remake.md"


def test_docs_games_remake_md_names_only_tests_that_exist() -> None:
    named, missing = named_tests_missing(
        DOCS.read_text(encoding="utf-8"), r"test_remake_\w+", Path(__file__).parent
    )
    assert named > 30
    assert not missing
