"""Halite through the generic command line: `new --ruleset halite --option ...`, `apply`
(with a list of every awaited seat's orders), `view`, `play` and `replay`."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import engine_cli


def test_new_and_apply_work_through_the_command_line() -> None:
    made = engine_cli(
        "new", "--ruleset", "halite", "--seed", "3", "--seats", "3",
        "--option", "width=20", "--option", "height=20",
    )  # fmt: skip
    assert made.returncode == 0, made.stdout
    state = json.loads(made.stdout)
    assert state["ruleset"] == "halite" and state["seats"] == 3
    assert state["awaiting"] == [1, 2, 3]
    start = [(x, y) for y, row in enumerate(state["owner"]) for x, o in enumerate(row) if o == 1]
    x, y = start[0]
    orders = [{"seat": s, "turn": 0, "moves": [[x, y, 2]] if s == 1 else []} for s in (1, 2, 3)]
    applied = engine_cli("apply", stdin=json.dumps({"state": state, "orders": orders}))
    assert applied.returncode == 0, applied.stdout
    out = json.loads(applied.stdout)
    assert out["state"]["turn"] == 1
    assert out["events"][0]["type"] == "moves"  # the engine's record: grouped by kind
    seen = engine_cli("apply", "--as", "2", stdin=json.dumps({"state": state, "orders": orders}))
    assert json.loads(seen.stdout)["state"]["viewer"] == 2
    assert json.loads(seen.stdout)["events"][0]["type"] == "move"  # a viewer's: piece by piece


def test_a_refused_order_on_the_command_line_is_an_error_object() -> None:
    state = json.loads(engine_cli("new", "--ruleset", "halite", "--seed", "3").stdout)
    orders = [{"seat": s, "turn": 0, "moves": [[0, 0, 9]] if s == 1 else []} for s in (1, 2)]
    out = engine_cli("apply", stdin=json.dumps({"state": state, "orders": orders}))
    assert out.returncode == 1
    assert json.loads(out.stdout)["error"]["code"] == "bad_direction"


def test_an_option_out_of_range_exits_2() -> None:
    out = engine_cli("new", "--ruleset", "halite", "--seed", "3", "--option", "width=9")
    assert out.returncode == 2
    assert json.loads(out.stdout)["error"]["code"] == "bad_shape"


def test_play_and_replay_work_through_the_command_line(tmp_path: Path) -> None:
    out = tmp_path / "match.json"
    played = engine_cli(
        "play", "--ruleset", "halite", "--seed", "4", "--bots", "random,grower",
        "--option", "width=10", "--option", "height=10", "--out", str(out),
    )  # fmt: skip
    assert played.returncode == 0, played.stdout + played.stderr
    summary = json.loads(played.stdout)
    checked = engine_cli("replay", str(out))
    assert checked.returncode == 0, checked.stdout
    assert json.loads(checked.stdout)["winners"] == summary["winners"]
