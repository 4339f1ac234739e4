"""Golden replays of Skyport: seed + recorded orders -> the pinned digest of the end.

See golden/README.md for how they were recorded. Any drift of the rules, the maps or
the timing shows up as a difference in an event, the final state or its digest.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import ROOT, digest, engine_cli, named_tests_missing, read_json

import engine

GOLDEN = Path(__file__).parent / "golden"

# file: (sha256 of the final state's canonical JSON, turns, winners)
FIXTURES: dict[str, tuple[str, int, list[int]]] = {
    "2p-random-random-seed1-duel-2-10r.json": ("33b7ca3063eef325c1b90244bc0ee4638652ae091e18479e9f94aeac6ac28e5b", 20, [1]),
    "3p-random-prospector-random-seed2-generated-10r.json": ("82b6087487d891446af3892c59995254bc69b82ee726492e5fe5b08716f01b0b", 31, [2]),
    "4p-prospector-prospector-prospector-prospector-seed3-cross-4-8r.json": ("6ff14a01fbd050433bc22bea012437d56345ba9399edf5e65ac7df4cc21720cd", 30, [1]),
    "6p-prospector-random-prospector-random-random-prospector-seed4-hexagon-6-6r.json": ("de5128283b1a0d60f809bb00cbcd758f16f1cb1a494ba449b959a9c13dc4074b", 37, [6]),
    "8p-random-prospector-random-prospector-random-prospector-random-prospector-seed5-ring-8-5r.json": ("f5c3b26d7309614bc47aa996cff02aec3692b6c8ad08dd095f389b9aa8bff70c", 38, [6]),
}  # fmt: skip


def test_every_fixture_in_golden_is_pinned_here() -> None:
    assert sorted(p.name for p in GOLDEN.glob("*.json")) == sorted(FIXTURES)


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_a_golden_replay_gives_the_pinned_final_state(name: str) -> None:
    record = read_json(GOLDEN / name)
    initial = record["initial"]
    options = {"map": initial["map"], "rounds": initial["rounds"]}
    seats = len(initial["players"])
    assert initial == engine.new_game(
        seed=initial["seed"], seats=seats, ruleset="skyport", options=options
    )
    state = initial
    for n, turn in enumerate(record["turns"]):
        applied = engine.apply(state, turn["orders"])
        assert applied.events == turn["events"], f"turn {n}"
        state = applied.state
    assert state == record["final"]
    pinned, turns, winners = FIXTURES[name]
    assert (digest(state), len(record["turns"]), state["winners"]) == (pinned, turns, winners)


def test_the_replay_command_accepts_a_golden_replay() -> None:
    name = sorted(FIXTURES)[0]
    out = engine_cli("replay", str(GOLDEN / name))
    assert out.returncode == 0, out.stdout


def test_every_test_the_rules_page_names_exists() -> None:
    page = (ROOT / "docs" / "games" / "skyport.md").read_text(encoding="utf-8")
    named, missing = named_tests_missing(page, r"test_skyport_\w+", Path(__file__).parent)
    assert named >= 10 and missing == []
