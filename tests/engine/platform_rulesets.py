"""The test rulesets, for the shapes of turn no shipped game uses yet, in one place.

| name | module | turn shape | orders besides seat and turn |
| --- | --- | --- | --- |
| `nim` | `nim_ruleset` | one seat at a time | `actions: [{"take": 1..3}]` |
| `rps` | `rps_ruleset` | all seats at once | `throw` |
| `race` | `race_ruleset` | setup at once, then one seat at a time | `head_start`, then `add` |
| `dig` | `dig_ruleset` | one seat at a time, a turn of several steps | `action`, `step_no` |

The modules are top-level modules of this folder (tests/engine): put it on
`sys.path` (as tests/api/conftest.py does for tests/games) and call `register()`;
`unregister()` removes them again. None of them is registered outside tests.

On the command line, `python tests/engine/platform_rulesets.py ARGS` is
`python -m engine ARGS` with these rulesets registered (run from the repository's
root, or anywhere the `engine` package imports from).
"""

from __future__ import annotations

import sys

from engine import rulesets

MODULES = {
    "nim": "nim_ruleset",
    "rps": "rps_ruleset",
    "race": "race_ruleset",
    "dig": "dig_ruleset",
}


def register() -> None:
    for name, module in MODULES.items():
        rulesets.register(name, module)


def unregister() -> None:
    for name in MODULES:
        rulesets.unregister(name)


if __name__ == "__main__":
    from engine.cli import main

    register()
    sys.exit(main())
