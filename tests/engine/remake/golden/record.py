"""Record the remake's golden replays again (see README.md); never run by the tests."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import engine
from engine import match

HERE = Path(__file__).parent
MATCHES = [
    (2, ["random", "random"]),
    (24, ["random", "random", "random"]),
    (0, ["random", "random", "random", "random"]),
    (0, ["prospector", "random", "random", "random"]),
    (3, ["prospector", "prospector", "prospector", "prospector"]),
]
# A hand-written first turn: 1-2's kamikaze destroys 1-1, whose move is then skipped.
SCRIPTED_SEED = 5
SCRIPTED_FIRST = {"seat": 1, "turn": 0, "actions": [
    {"robot": "1-2", "type": "kamikaze"}, {"robot": "1-1", "type": "move", "to": [4, 4]},
]}  # fmt: skip


def scripted() -> dict[str, object]:
    """Four `random` bots after the hand-written first turn."""
    state = initial = engine.new_game(seed=SCRIPTED_SEED, ruleset="helium3-remake")
    turns = []
    orders = SCRIPTED_FIRST
    while True:
        applied = engine.apply(state, orders)
        turns.append({"orders": orders, "events": applied.events})
        state = applied.state
        if state["over"]:
            break
        orders = engine.bot_orders("random", state, state["to_move"])
    return {"ruleset": "helium3-remake", "bots": ["random"] * 4, "initial": initial,
            "turns": turns, "final": state}  # fmt: skip


def main() -> None:
    records = {
        f"{len(bots)}p-{'-'.join(bots)}-seed{seed}.json": match.play_match(
            seed, bots, ruleset="helium3-remake"
        )
        for seed, bots in MATCHES
    }
    records[f"4p-scripted-kamikaze-then-random-seed{SCRIPTED_SEED}.json"] = scripted()
    for name, record in records.items():
        (HERE / name).write_text(json.dumps(record, separators=(",", ":")))
        final = record["final"]
        canonical = json.dumps(final, sort_keys=True, separators=(",", ":")).encode()
        print(f'"{name}": ("{hashlib.sha256(canonical).hexdigest()}", {len(record["turns"])}, '
              f'{final["winners"]}, "{final["termination"]}"),')  # fmt: skip


if __name__ == "__main__":
    main()
