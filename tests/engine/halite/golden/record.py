"""Record Halite's golden replays again (see README.md); never run by the tests."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from engine import match

HERE = Path(__file__).parent
# (seed, bots, width, height)
MATCHES = [
    (1, ["random", "random"], 12, 12),
    (2, ["random", "grower", "random"], 15, 15),
    (3, ["grower", "grower", "grower", "grower"], 12, 12),
    (4, ["grower", "random"], 10, 10),
    (5, ["random", "random", "grower", "random", "random", "random"], 12, 12),
]


def main() -> None:
    for seed, bots, width, height in MATCHES:
        options = {"width": width, "height": height}
        record = match.play_match(seed, bots, ruleset="halite", options=options)
        name = f"{len(bots)}p-{'-'.join(bots)}-seed{seed}-{width}x{height}.json"
        (HERE / name).write_text(json.dumps(record, separators=(",", ":")))
        final = record["final"]
        canonical = json.dumps(final, sort_keys=True, separators=(",", ":")).encode()
        print(f'"{name}": ("{hashlib.sha256(canonical).hexdigest()}", {len(record["turns"])}, '
              f'{final["winners"]}, {final["ranking"]}),')  # fmt: skip


if __name__ == "__main__":
    main()
