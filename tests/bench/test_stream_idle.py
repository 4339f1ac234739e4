"""tests/bench/stream_idle.py in a tiny mode, so that it cannot rot: it runs, prints
its JSON, and its server holds the streams on its loop and database threads alone.
The figures of this run mean nothing (docs/api-stream.md has the real ones)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

SCRIPT = Path(__file__).resolve().parent / "stream_idle.py"


def test_the_idle_stream_benchmark_runs_and_holds_streams_without_a_thread_each() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--streams", "40", "--idle-seconds", "1"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    assert figures["streams"] == 40 and figures["users"] == 10
    # The event loop, plus the hub's four database threads; none per stream.
    assert figures["server_with_streams"]["threads"] <= 1 + 4
    assert len(figures["turn_to_your_turn_ms"]) == 4
