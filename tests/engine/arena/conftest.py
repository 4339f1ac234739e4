"""The arena's engine tests reuse the generic helpers of tests/engine (golden digests, the
command line)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
