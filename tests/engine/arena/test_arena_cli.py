"""The arena through the command line: `new --ruleset arena`, `apply` (a list of every
build, then one step at a time), `view`, `bots`, `play` and `replay`."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import engine_cli


def test_arena_cli_new_apply_and_view() -> None:
    made = engine_cli(
        "new", "--ruleset", "arena", "--seed", "3", "--seats", "3", "--option", "rounds=12"
    )
    assert made.returncode == 0, made.stdout
    state = json.loads(made.stdout)
    assert (state["ruleset"], state["rounds"], state["awaiting"]) == ("arena", 12, [1, 2, 3])
    builds = [{"seat": s, "turn": 0, "build": ["engine1", "radar2", "gun"]} for s in (1, 2, 3)]
    applied = engine_cli("apply", stdin=json.dumps({"state": state, "orders": builds}))
    assert applied.returncode == 0, applied.stdout
    after = json.loads(applied.stdout)["state"]
    assert after["phase"] == "play" and after["awaiting"] == [1]
    scan = {"seat": 1, "turn": 1, "step_no": 0, "step": {"type": "scan"}}
    out = json.loads(engine_cli("apply", stdin=json.dumps({"state": after, "orders": scan})).stdout)
    assert [e["type"] for e in out["events"]] == ["scan"] and out["state"]["step"] == 1
    seen = json.loads(engine_cli("view", "--seat", "2", stdin=json.dumps(out["state"])).stdout)
    assert seen["viewer"] == 2 and [r["seat"] for r in seen["robots"]] == [2]
    assert seen["knowledge"] == {"2": {}}


def test_arena_cli_a_refused_step_exits_with_the_error() -> None:
    state = json.loads(engine_cli("new", "--ruleset", "arena", "--seed", "3").stdout)
    builds = [{"seat": s, "turn": 0, "build": ["radar1"]} for s in (1, 2)]
    after = json.loads(
        engine_cli("apply", stdin=json.dumps({"state": state, "orders": builds})).stdout
    )["state"]
    move = {"seat": 1, "turn": 1, "step_no": 0, "step": {"type": "move", "path": ["down"]}}
    out = engine_cli("apply", stdin=json.dumps({"state": after, "orders": move}))
    assert out.returncode != 0
    assert json.loads(out.stdout)["error"]["code"] == "illegal_step"
    bad = [{"seat": s, "turn": 0, "build": ["gun", "cannon"]} for s in (1, 2)]
    out = engine_cli("apply", stdin=json.dumps({"state": state, "orders": bad}))
    assert json.loads(out.stdout)["error"]["code"] == "bad_build"


def test_arena_cli_bots_play_and_replay(tmp_path: Path) -> None:
    bots = engine_cli("bots", "--ruleset", "arena")
    assert bots.returncode == 0 and "random" in bots.stdout and "hunter" in bots.stdout
    out = tmp_path / "match.json"
    played = engine_cli(
        "play", "--ruleset", "arena", "--seed", "9", "--bots", "hunter,random",
        "--option", "rounds=10", "--out", str(out),
    )  # fmt: skip
    assert played.returncode == 0, played.stdout
    summary = json.loads(played.stdout)
    record = json.loads(out.read_text())
    assert summary["winners"] == record["final"]["winners"] and record["final"]["over"]
    assert engine_cli("replay", str(out)).returncode == 0
    record["turns"][-1]["orders"] = record["turns"][-2]["orders"]
    out.write_text(json.dumps(record))
    assert engine_cli("replay", str(out)).returncode != 0
