"""The registry of rulesets. `state["ruleset"]` names one; each is a `Ruleset` value
built by its own package, so a variant is a new module, never a fork of another."""

from __future__ import annotations

import importlib
from typing import Any

from engine.core import Ruleset
from engine.errors import StateError

DEFAULT = "helium3"


# A ruleset is a package whose `RULESET` is an `engine.core.Ruleset`. Adding one (the
# remake of seeds/001 as "helium3-remake", say) is one line here and a new package.
_MODULES: dict[str, str] = {
    "helium3": "engine.helium3",
    "helium3-remake": "engine.remake",
    "halite": "engine.halite",
    "skyport": "engine.skyport",
    "arena": "engine.arena",
}
_CACHE: dict[str, Ruleset] = {}


def register(name: str, module: str) -> None:
    """Make the ruleset in package `module` (its `RULESET`) available as `name`."""
    _MODULES[name] = module
    _CACHE.pop(name, None)


def unregister(name: str) -> None:
    """Forget ruleset `name` (tests register theirs for a while)."""
    _MODULES.pop(name, None)
    _CACHE.pop(name, None)


def names() -> list[str]:
    return list(_MODULES)


def get(name: str) -> Ruleset:
    ruleset = _CACHE.get(name)
    if ruleset is None:
        module = _MODULES.get(name)
        if module is None:
            raise StateError(f"Unknown ruleset {str(name)[:40]!r}; known: {', '.join(_MODULES)}.")
        loaded = importlib.import_module(module).RULESET
        if not isinstance(loaded, Ruleset) or loaded.name != name:
            raise StateError(f"Package {module} does not provide the ruleset {name!r}.")
        ruleset = _CACHE[name] = loaded
    return ruleset


def of_state(state: Any) -> Ruleset:
    if not isinstance(state, dict):
        raise StateError("The state must be a JSON object.")
    name = state.get("ruleset", DEFAULT)
    if not isinstance(name, str):
        raise StateError("'ruleset' must be a string.")
    return get(name)
