"""One package per game's presentation, each with the same modules: `board.py` (the
SVG from a view), `hints.py` (the planner's hints, from the engine), `sentences.py`
(events as sentences), `forms.py` (the plain order form), `rules.py` (the rules
page's numbers) and `PRESENTATION` in its `__init__.py`, registered in
games/presentation.py. `generic.py` shows a ruleset that has no package."""
