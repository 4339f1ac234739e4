"""`python -m engine bench --ruleset helium3-remake`: the remake resolves turns at no less
than half Helium 3's rate, both measured in the same run (docs/games/remake.md)."""

from __future__ import annotations

import json

from helpers import engine_cli


def test_the_remake_resolves_turns_at_least_half_as_fast_as_helium_3() -> None:
    done = engine_cli(
        "bench", "--ruleset", "helium3-remake", "--runs", "5", "--matches", "3", timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr
    figures = json.loads(done.stdout)
    assert figures["ruleset"] == "helium3-remake" and figures["options"] == {"rounds": 20}
    assert figures["reference"]["ruleset"] == "helium3"
    assert figures["ratio"] >= 0.5, figures
    assert set(figures["bots"]) == {"random", "prospector"}
