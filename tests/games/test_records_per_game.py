"""Each game's record counts what that game counts (Seat.counts, the keys its
presentation's `record_fields` declare): Helium 3 its helium and robots, the remake
its vehicles and shields, Halite its territory and production, Skyport its points
and damage, the arena its damage and shots. The player page adds them up per game
(in all, or the best), the results and the latest matches say them in the game's
words."""

from __future__ import annotations

import dataclasses
import io
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.management import CommandError, call_command
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from site_support import drain

import engine
from games import archive, catalog, presentation, records, services
from games.models import Match, Seat

pytestmark = pytest.mark.django_db

GAMES = catalog.names()
# A short match of each game, every seat a built-in bot.
SMALL = {
    "helium3": {},
    "helium3-remake": {"rounds": 5},
    "halite": {"width": 10, "height": 10},
    "skyport": {"rounds": 5},
    "arena": {"rounds": 10},
}


def test_every_game_declares_its_own_counts_and_one_score():
    assert set(GAMES) == set(SMALL)
    labels = {}
    for name in GAMES:
        fields = presentation.get(name).record_fields
        keys = [f.key for f in fields]
        assert keys and len(set(keys)) == len(keys), name
        assert sum(f.score for f in fields) == 1, name
        labels[name] = {f.label for f in fields}
    assert {"helium mined", "robots destroyed"} <= labels["helium3"]
    assert {"vehicles destroyed", "hits taken on shields"} <= labels["helium3-remake"]
    assert {"cells held at the end", "production held at the end"} <= labels["halite"]
    assert {"points", "damage dealt"} <= labels["skyport"]
    assert {"damage dealt", "health left"} <= labels["arena"]


@pytest.mark.parametrize("name", GAMES)
def test_a_finished_match_stores_its_games_counts_on_every_seat(name, player):
    bot = engine.bot_names(name)[0]
    match = services.match_create(
        creator=player,
        seat_count=2,
        bots=[bot, bot],
        length_ms=2000,
        turn_seconds=60,
        ruleset=name,
        options=SMALL[name],
    )
    for _ in range(200):
        drain(match, emails=False)
        if match.status == Match.Status.FINISHED:
            break
    assert match.status == Match.Status.FINISHED and match.state is not None
    fields = presentation.get(name).record_fields
    score = next(f.key for f in fields if f.score)
    turns = match.resolutions.order_by("turn_number", "step").values_list("seat", "events")
    expected = records.seat_records(match.state, turns)
    seats = list(Seat.objects.filter(match=match))
    assert len(seats) == 2
    for seat in seats:
        assert seat.counts is not None and set(seat.counts) == {f.key for f in fields}
        assert all(type(v) is int for v in seat.counts.values())
        assert seat.counts[score] == seat.final_money
        assert seat.counts == expected[seat.number].counts
    # The results say each seat's counts in the game's words, its score apart.
    html = Client().get(reverse("games:match-detail", args=[match.pk])).content.decode()
    for seat in seats:
        said = records.record_text(name, seat.counts, scores=False)
        assert said and said in html.replace("&#x27;", "'")


# --- each game's own counting, on events made by hand -------------------------------


def _robot(rid: str, seat: int, alive: bool, mined: int = 0) -> dict[str, Any]:
    return {"id": rid, "seat": seat, "alive": alive, "mined": mined}


def test_the_remake_counts_vehicles_and_the_hits_its_shields_took():
    final = {
        "ruleset": "helium3-remake",
        "players": [{"seat": 1, "money": 700}, {"seat": 2, "money": 300}],
        "robots": [_robot("1-1", 1, True, 600), _robot("1-2", 1, False), _robot("2-1", 2, False)],
        "winners": [1],
    }
    turns = [
        (1, [{"type": "absorbed", "robot": "2-1"}, {"type": "destroyed", "robot": "2-1"}]),
        (2, [{"type": "deflected", "robot": "1-1"}, {"type": "destroyed", "robot": "1-2"}]),
        (2, [{"type": "absorbed", "robot": "1-1"}]),
    ]
    got = {s: r.counts for s, r in records.seat_records(final, turns).items()}
    assert got[1] == {
        "money": 700,
        "mined": 600,
        "vehicles_destroyed": 1,
        "vehicles_lost": 1,
        "hits_shielded": 2,
    }
    assert got[2] == {
        "money": 300,
        "mined": 0,
        "vehicles_destroyed": 1,
        "vehicles_lost": 1,
        "hits_shielded": 1,
    }


def test_halite_counts_the_territory_and_what_it_holds_from_the_final_state():
    final = {
        "ruleset": "halite",
        "seats": 2,
        "owner": [[1, 1, 0], [2, 0, 1]],
        "production": [[3, 4, 9], [5, 9, 1]],
        "strength": [[10, 20, 99], [7, 99, 0]],
        "territory_total": {"1": 40, "2": 25},
        "winners": [1],
    }
    got = records.seat_records(final, [])
    assert (got[1].won, got[1].final_money) == (True, 3)
    assert got[1].counts == {
        "territory": 3,
        "production": 8,
        "strength": 30,
        "territory_total": 40,
    }
    assert got[2].counts == {"territory": 1, "production": 5, "strength": 7, "territory_total": 25}


def test_skyport_counts_damage_dealt_to_others_kills_deaths_and_mining():
    final = {
        "ruleset": "skyport",
        "players": [{"seat": 1, "score": 60}, {"seat": 2, "score": -10}],
        "scores": {"1": 60, "2": -10},
        "winners": [1],
    }
    turns = [
        (1, [{"type": "mine", "seat": 1}, {"type": "damage", "seat": 2, "by": 1, "amount": 20}]),
        (2, [{"type": "damage", "seat": 2, "by": 2, "amount": 15}]),  # its own mortar
        (
            1,
            [
                {"type": "damage", "seat": 2, "by": 1, "amount": 30},
                {"type": "death", "seat": 2, "by": 1},
            ],
        ),
        (2, [{"type": "mine", "seat": 2}, {"type": "mine", "seat": 2}]),
    ]
    got = records.seat_records(final, turns)
    assert got[1].counts == {"points": 60, "damage": 50, "kills": 1, "deaths": 0, "mined": 1}
    assert got[2].counts == {"points": -10, "damage": 0, "kills": 0, "deaths": 1, "mined": 2}
    assert got[2].final_money == -10


def test_the_arena_counts_shots_hits_damage_and_robots_destroyed():
    final = {
        "ruleset": "arena",
        "robots": [{"seat": 1, "health": 4}, {"seat": 2, "health": 0}],
        "scores": {"1": 4, "2": 0},
        "winners": [1],
    }
    turns = [
        (1, [{"type": "shot", "seat": 1, "hit": None}]),
        (1, [{"type": "shot", "seat": 1, "hit": 2}, {"type": "damage", "seat": 2, "by": 1, "damage": 3}]),
        (2, [{"type": "shot", "seat": 2, "hit": 1}, {"type": "damage", "seat": 1, "by": 2, "damage": 2}]),
        (1, [{"type": "damage", "seat": 2, "by": 1, "damage": 5}, {"type": "destroyed", "seat": 2, "by": 1}]),
    ]  # fmt: skip
    got = records.seat_records(final, turns)
    assert got[1].counts == {"health": 4, "damage": 8, "destroyed": 1, "hits": 1, "shots": 2}
    assert got[2].counts == {"health": 0, "damage": 2, "destroyed": 0, "hits": 1, "shots": 1}


def test_a_count_a_game_does_not_declare_is_refused(monkeypatch):
    shown = presentation.get("helium3")

    def sloppy(final: dict[str, Any], turns: Any) -> dict[int, dict[str, Any]]:
        return {1: {"won": True, "final_money": 5, "counts": {"money": 5, "gold": 1}}}

    def fractional(final: dict[str, Any], turns: Any) -> dict[int, dict[str, Any]]:
        return {1: {"won": True, "final_money": 5, "counts": {"money": 5.5}}}

    for counter, message in ((sloppy, "gold"), (fractional, "whole number")):
        changed = dataclasses.replace(shown, seat_records=counter)
        monkeypatch.setattr(records.presentation, "get", lambda name, changed=changed: changed)
        with pytest.raises(records.RecordError, match=message):
            records.seat_records({"ruleset": "helium3"}, [])


def test_a_record_is_said_in_its_games_words():
    counts = {"money": 1200, "mined": 3400, "robots_destroyed": 1, "robots_lost": 2}
    assert records.record_text("helium3", counts) == (
        "1,200 money at the end · 3,400 helium mined · 1 robot destroyed · 2 robots lost"
    )
    assert records.record_text("helium3", counts, scores=False) == (
        "3,400 helium mined · 1 robot destroyed · 2 robots lost"
    )
    # A count not stored is left out; a record not stored says nothing.
    assert records.record_text("skyport", {"points": 1, "deaths": 0}) == "1 point · 0 deaths"
    assert records.record_text("halite", None) == ""
    field = presentation.get("halite").record_fields[0]
    assert field.heading == "Cells held at the end (best)"


# --- the player page -----------------------------------------------------------------


# Final states just big enough for the page's places (the seat's result).
ENDS = {
    "halite": {"seats": 2, "owner": [[1, 2]], "winners": [1]},
    "skyport": {"scores": {"1": 1, "2": 0}, "winners": [1]},
}


def _played(user: Any, ruleset: str, counts: dict[str, int], *, won: bool) -> Seat:
    state = {"ruleset": ruleset, "over": True, **ENDS[ruleset]}
    match = Match.objects.create(
        seat_count=2,
        ruleset=ruleset,
        status=Match.Status.FINISHED,
        seed=1,
        state=state,
        initial_state=state,
        finished_at=timezone.now(),
    )
    score = next(f.key for f in presentation.get(ruleset).record_fields if f.score)
    return Seat.objects.create(
        match=match, number=1, user=user, won=won, final_money=counts[score], counts=counts
    )


def test_the_player_page_adds_up_each_games_own_counts(player):
    _played(
        player,
        "halite",
        {"territory": 40, "production": 90, "strength": 900, "territory_total": 1000},
        won=True,
    )
    _played(
        player,
        "halite",
        {"territory": 55, "production": 70, "strength": 100, "territory_total": 500},
        won=False,
    )
    _played(
        player,
        "skyport",
        {"points": 30, "damage": 45, "kills": 1, "deaths": 2, "mined": 3},
        won=True,
    )
    _played(player, "skyport", {"points": 12, "damage": 5}, won=False)  # an older, shorter record
    with CaptureQueriesContext(connection) as queries:
        by_game = archive.player_records_by_game(AnonymousUser(), player)
    # One query for every game's totals, however many games and counts.
    assert len([q for q in queries.captured_queries if "games_seat" in q["sql"]]) == 1
    totals = {g.ruleset: {t.field.key: t.value for t in g.totals} for g in by_game}
    # Halite's end figures are a player's best; territory over the match adds up.
    assert totals["halite"] == {
        "territory": 55,
        "production": 90,
        "strength": 900,
        "territory_total": 1500,
    }
    # Skyport adds up; a count no match of theirs stored is None.
    assert totals["skyport"] == {"points": 42, "damage": 50, "kills": 1, "deaths": 2, "mined": 3}
    assert {g.ruleset: (g.record.played, g.record.won) for g in by_game} == {
        "halite": (2, 1),
        "skyport": (2, 1),
    }
    html = Client().get(reverse("games:player", args=[player.username])).content.decode()
    assert "Cells held at the end (best)" in html and "Damage dealt" in html
    assert "Helium mined" not in html  # no game of theirs counts helium
    assert "30 points · 45 damage dealt · 1 robot destroyed · 2 deaths" in html


# --- records counted again --------------------------------------------------------------


def _finished(name: str, player: Any) -> Match:
    bot = engine.bot_names(name)[0]
    match = services.match_create(
        creator=player, seat_count=2, bots=[bot, bot], length_ms=2000, turn_seconds=60,
        ruleset=name, options=SMALL[name],
    )  # fmt: skip
    for _ in range(200):
        drain(match, emails=False)
        if match.status == Match.Status.FINISHED:
            return match
    raise AssertionError("the match did not finish")


def test_rebuild_records_counts_a_games_finished_matches_again(player):
    halite, skyport = _finished("halite", player), _finished("skyport", player)
    full = {s.pk: s.counts for s in Seat.objects.all()}
    # As the migration left a record: only the score, under the game's name.
    for seat in Seat.objects.filter(match=halite):
        Seat.objects.filter(pk=seat.pk).update(counts={"territory": seat.final_money}, won=None)
    Seat.objects.filter(match=skyport).update(counts=None)
    out = io.StringIO()
    call_command("rebuild_records", "halite", stdout=out)
    assert "halite: 1 finished matches counted." in out.getvalue()
    for seat in Seat.objects.filter(match=halite):
        assert seat.counts == full[seat.pk] and seat.won is not None
    assert all(s.counts is None for s in Seat.objects.filter(match=skyport))  # not asked
    call_command("rebuild_records", stdout=io.StringIO())
    assert {s.pk: s.counts for s in Seat.objects.all()} == full
    with pytest.raises(CommandError, match="no game 'chess'"):
        call_command("rebuild_records", "chess")
