"""Record the arena's golden replays again (see README.md); never run by the tests."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from engine import match

HERE = Path(__file__).parent
# (seed, bots, rounds)
MATCHES = [
    (1, ["random", "random"], 10),
    (2, ["hunter", "random"], 20),
    (3, ["hunter", "random", "hunter"], 15),
    (4, ["hunter", "hunter", "hunter", "hunter"], 12),
]


def main() -> None:
    for seed, bots, rounds in MATCHES:
        record = match.play_match(seed, bots, ruleset="arena", options={"rounds": rounds})
        name = f"{len(bots)}p-{'-'.join(bots)}-seed{seed}-{rounds}r.json"
        (HERE / name).write_text(json.dumps(record, separators=(",", ":")))
        final = record["final"]
        canonical = json.dumps(final, sort_keys=True, separators=(",", ":")).encode()
        print(f'"{name}": ("{hashlib.sha256(canonical).hexdigest()}", {len(record["turns"])}, '
              f'{final["winners"]}),')  # fmt: skip


if __name__ == "__main__":
    main()
