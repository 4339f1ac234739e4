"""What a finished match records per seat comes from its game's presentation
(`seat_records`, `record_fields`); a game without one records its winners and
scores and no counts, and its places and scores show on the match, archive and
player pages like any game's. The records, the archive's totals and the bot API
code name no game: the platform never does."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from site_support import client_for, drain

import engine
from games import presentation, records, services
from games.models import Match, Seat

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]


def _finished_rps(player: Any, opponent: Any) -> Match:
    """A match of the test ruleset rps, two rounds: the player's paper beats the
    opponent's rock in both, so the player wins 2 to 0."""
    match = services.match_create(
        creator=player, seat_count=2, ruleset="rps", options={"rounds": 2}, turn_seconds=3600
    )
    services.seat_join(match_id=match.pk, user=opponent)
    for _ in range(2):
        match.refresh_from_db()
        for user, throw in ((player, "paper"), (opponent, "rock")):
            services.orders_submit(
                match_id=match.pk, user=user, turn=match.turn_number, orders={"throw": throw}
            )
        drain(match)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    return match


def test_a_game_without_a_record_of_its_own_stores_each_seats_win_and_score(player, opponent):
    assert presentation.get("rps").seat_records is presentation.Presentation.seat_records
    match = _finished_rps(player, opponent)
    assert match.state is not None and engine.scores(match.state) == {"1": 2, "2": 0}
    stored = {s.number: (s.won, s.final_money, s.counts) for s in Seat.objects.filter(match=match)}
    assert stored == {1: (True, 2, {}), 2: (False, 0, {})}
    table = records.standings(match.state)
    assert [(s.seat, s.place, s.won, s.money) for s in table] == [(1, 1, True, 2), (2, 2, False, 0)]


def test_the_record_is_the_games_own_helium3_counts_its_robots(player):
    match = services.match_create(
        creator=player, seat_count=2, bots=["random", "random"], length_ms=3000
    )
    drain(match)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.state is not None
    for seat in Seat.objects.filter(match=match):
        robots = [r for r in match.state["robots"] if r["seat"] == seat.number]
        assert seat.final_money == engine.scores(match.state)[str(seat.number)]
        assert seat.counts is not None
        assert seat.counts["money"] == seat.final_money
        assert seat.counts["mined"] == sum(r["mined"] for r in robots)
        assert seat.counts["robots_lost"] == sum(1 for r in robots if not r["alive"])
        assert set(seat.counts) == {"money", "mined", "robots_destroyed", "robots_lost"}


def test_a_finished_match_of_a_game_without_a_record_shows_on_every_page(player, opponent):
    match = _finished_rps(player, opponent)
    archive = Client().get(reverse("games:archive"))
    assert archive.status_code == 200
    assert [m.pk for m in archive.context["page"].object_list] == [match.pk]
    assert "Seat 1 (alice) won" in archive.content.decode()
    page = client_for(opponent).get(reverse("games:match-detail", args=[match.pk]))
    assert page.status_code == 200 and "You came 2nd" in page.content.decode()
    for user, phrase in ((player, "alice won"), (opponent, "bob came 2nd")):
        response = Client().get(reverse("games:player", args=[user.username]))
        assert response.status_code == 200
        assert phrase in response.content.decode()
        record = response.context["record"]
        assert (record.played, record.won) == (1, int(user == player))
        by_game = {g.ruleset: g for g in response.context["by_game"]}
        assert set(by_game) == {"rps"} and by_game["rps"].totals == []


# --- the platform's code names no game -------------------------------------------------

PLATFORM_FILES = [
    ROOT / "games" / "records.py",
    ROOT / "games" / "archive.py",
    ROOT / "games" / "services" / "records.py",
    ROOT / "games" / "templatetags" / "match_results.py",
    *sorted((ROOT / "games" / "api").glob("*.py")),
]
# A game's own state fields: the platform reads them only through the engine's
# interface (awaiting, scores) and the game's presentation (final_scores, pieces_left).
GAME_FIELDS = {"to_move", "money", "robots", "mined"}


def _game_packages() -> set[str]:
    """Every registered ruleset's engine package and every game's presentation package."""
    modules = {engine.ruleset(name).apply.__module__ for name in engine.ruleset_names()}
    modules |= {presentation.get(name).board.__module__ for name in presentation.names()}
    return {m.rsplit(".", 1)[0] if "." in m else m for m in modules}


def _is_game(module: str, packages: set[str]) -> bool:
    return any(module == p or module.startswith(f"{p}.") for p in packages)


@pytest.mark.parametrize("path", PLATFORM_FILES, ids=lambda p: p.name)
def test_the_records_and_the_api_name_no_game(path):
    tree = ast.parse(path.read_text(), filename=str(path))
    names = set(engine.ruleset_names())
    packages = _game_packages()
    assert {"engine.helium3", "engine.remake", "games.play.helium3", "games.play.remake"} <= (
        packages
    )
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            imported = [node.module or ""] + [f"{node.module}.{a.name}" for a in node.names]
            assert not any(_is_game(m, packages) for m in imported), f"{path.name}:{node.lineno}"
        elif isinstance(node, ast.Import):
            assert not any(_is_game(a.name, packages) for a in node.names), path.name
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            assert node.value not in names, f"{path.name}:{node.lineno} names {node.value!r}"
        # Reading a game's field of a state or a view: state["money"], view.get("robots").
        key = None
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
            key = node.slice.value
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            key = node.args[0].value
        elif isinstance(node, ast.Attribute) and path.parent.name == "api":
            key = node.attr  # match.to_move: the API asks engine.awaiting instead
        assert key not in GAME_FIELDS, f"{path.name}:{node.lineno} reads {key!r}"
