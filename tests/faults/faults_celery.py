"""`python tests/faults/faults_celery.py ARGS` is `celery ARGS` (or, with `gunicorn`
first, `gunicorn ARGS`) with the test rulesets of tests/engine registered, for the
fault tests of the turn shapes no shipped game has yet. The registry is set up in
the main process before it starts its pool (or its web workers), which inherit it
when they are forked. Never used outside tests.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "engine"))

import platform_rulesets  # noqa: E402

platform_rulesets.register()

if __name__ == "__main__":
    if sys.argv[1:2] == ["gunicorn"]:
        from gunicorn.app.wsgiapp import run

        sys.argv = ["gunicorn", *sys.argv[2:]]
        sys.exit(run())
    from celery.__main__ import main

    sys.argv = ["celery", *sys.argv[1:]]
    sys.exit(main())
