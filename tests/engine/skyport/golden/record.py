"""Record Skyport's golden replays again (see README.md); never run by the tests."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from engine import match

HERE = Path(__file__).parent
# (seed, bots, map, rounds)
MATCHES = [
    (1, ["random", "random"], "duel-2", 10),
    (2, ["random", "prospector", "random"], "generated", 10),
    (3, ["prospector", "prospector", "prospector", "prospector"], "cross-4", 8),
    (4, ["prospector", "random", "prospector", "random", "random", "prospector"], "hexagon-6", 6),
    (5, ["random", "prospector"] * 4, "ring-8", 5),
]


def main() -> None:
    for seed, bots, map_name, rounds in MATCHES:
        options = {"map": map_name, "rounds": rounds}
        record = match.play_match(seed, bots, ruleset="skyport", options=options)
        name = f"{len(bots)}p-{'-'.join(bots)}-seed{seed}-{map_name}-{rounds}r.json"
        (HERE / name).write_text(json.dumps(record, separators=(",", ":")))
        final = record["final"]
        canonical = json.dumps(final, sort_keys=True, separators=(",", ":")).encode()
        print(f'"{name}": ("{hashlib.sha256(canonical).hexdigest()}", {len(record["turns"])}, '
              f'{final["winners"]}),')  # fmt: skip


if __name__ == "__main__":
    main()
