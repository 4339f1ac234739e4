"""Choosing a game everywhere the site offers one: the lobby's cards, Play now, the
create form with each game's options, the rules pages, the admin's filter, the
archive and the player pages. Every game with a presentation is checked, by asking
the registries, so a game added later is covered too."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from site_support import client_for, drain

import engine
from games import catalog, presentation, services
from games.models import Match, Seat

GAMES = catalog.names()
REMAKE = "helium3-remake"


def _finish(match: Match) -> Match:
    """Play a match out: every person passes, the bots play."""
    for _ in range(500):
        drain(match, emails=False)
        if match.status == Match.Status.FINISHED:
            return match
        # The seats awaited (one, or every seat in a turn at once) that a person holds.
        awaited = engine.awaiting(match.state)
        for seat in Seat.objects.filter(match=match, number__in=awaited, user__isnull=False):
            passing = engine.default_orders(match.state, seat.number)
            services.orders_submit(
                match_id=match.pk,
                user=seat.user,
                turn=match.turn_number,
                orders={k: v for k, v in passing.items() if k not in ("seat", "turn")},
            )
    raise AssertionError("the match did not finish")


def _card(html: str, name: str) -> str:
    found = re.search(
        rf'<article class="game-card"[^>]*data-game="{name}">.*?</article>', html, re.S
    )
    assert found, f"no card for {name}"
    return found.group(0)


def _field_block(html: str, name: str) -> str:
    for block in re.split(r'(?=<div class="form-field[ "])', html):
        if f'name="{name}"' in block:
            return block
    raise AssertionError(f"no field {name}")


def _options_of(name: str) -> dict[str, Any]:
    """Valid, non-default values of a game's options, as the form posts them."""
    data: dict[str, Any] = {}
    for option in engine.ruleset(name).options:
        if option.name == "length_ms":
            data["length_minutes"] = "2"
        elif option.kind == "int":
            low = option.minimum if option.minimum is not None else 1
            data[f"option_{option.name}"] = low + 1
        elif option.choices:
            data[f"option_{option.name}"] = option.choices[-1]
    return data


def _fits(name: str, seats: int, options: dict[str, Any]) -> bool:
    try:
        engine.new_game(seed=0, seats=seats, ruleset=name, options=options)
    except engine.EngineError:
        return False
    return True


def _stored(data: dict[str, Any]) -> dict[str, Any]:
    """The options a match keeps for the posted `_options_of` values."""
    stored = {}
    for key, value in data.items():
        if key == "length_minutes":
            stored["length_ms"] = int(value) * 60_000
        else:
            stored[key.removeprefix("option_")] = value
    return stored


def test_every_game_with_a_presentation_is_offered():
    assert [n for n in presentation.names() if n in engine.ruleset_names()] == GAMES
    assert "helium3" in GAMES and REMAKE in GAMES
    assert catalog.seats_said([2, 3, 4]) == "2 to 4 players"
    assert catalog.seats_said([2, 4]) == "2 or 4 players"


# --- the lobby --------------------------------------------------------------------


def test_the_lobby_has_a_card_per_game_with_its_picture_seats_length_and_rules(player):
    html = client_for(player).get(reverse("games:lobby")).content.decode()
    for name in GAMES:
        card = _card(html, name)
        shown = presentation.get(name)
        assert f">{shown.title}</h3>" in card
        assert str(shown.picture()) in card  # the board's picture from the presentation
        seats = catalog.seats_said(catalog.seat_counts(name))
        assert seats in card and shown.length and shown.length in card
        assert f'href="/games/{name}/"' in card
        assert f'<input type="hidden" name="game" value="{name}">' in card
        # "Play now" fills the game's usual seats: four in Helium 3, two in Halite.
        bots = {"halite": "one bot", "skyport": "one bot", "arena": "one bot"}.get(
            name, "three bots"
        )
        assert f"Play now against {bots}" in card


@pytest.mark.parametrize("name", GAMES)
def test_play_now_starts_a_match_of_that_game_against_its_bots(player, name):
    response = client_for(player).post(reverse("games:match-play-now"), {"game": name})
    match = Match.objects.get()
    assert response.status_code == 302 and response.url == f"/matches/{match.pk}/"
    assert match.ruleset == name and match.status == Match.Status.RUNNING
    assert match.options == dict(engine.ruleset(name).resolve_options({}))
    seats = list(match.seats.order_by("number"))
    assert seats[0].user == player
    bots = {s.bot for s in seats[1:]}
    assert len(seats) == catalog.play_now_seats(name) and bots <= set(engine.bot_names(name))
    assert "" not in bots


def test_play_now_without_a_game_is_still_helium_3_against_miner_fighter_random(player):
    client_for(player).post(reverse("games:match-play-now"))
    match = Match.objects.get()
    assert match.ruleset == "helium3"
    assert [s.bot for s in match.seats.order_by("number")][1:] == ["miner", "fighter", "random"]


@pytest.mark.parametrize("name", GAMES)
def test_a_visitor_plays_now_any_game_as_a_guest(db, name):
    response = Client().post(reverse("games:match-play-now"), {"game": name})
    match = Match.objects.get()
    assert response.status_code == 302 and match.ruleset == name
    assert match.seats.get(bot="").user.username.startswith("guest")


@pytest.mark.parametrize("client_kind", ["player", "visitor"])
def test_play_now_for_an_unknown_game_is_refused_and_creates_nothing(player, client_kind):
    client = client_for(player) if client_kind == "player" else Client()
    response = client.post(reverse("games:match-play-now"), {"game": "chess"})
    assert response.status_code == 400 and "There is no such game here" in response.content.decode()
    assert not Match.objects.exists()


# --- the create form ---------------------------------------------------------------


@pytest.mark.parametrize("name", GAMES)
def test_the_create_form_shows_only_the_chosen_games_options(player, name):
    response = client_for(player).get(reverse("games:match-create"), {"game": name})
    assert response.status_code == 200
    html = response.content.decode()
    assert f'<input type="hidden" name="game" value="{name}"' in html
    assert f'href="/matches/new/?game={name}" aria-current="true"' in html
    assert html.count('aria-current="true"') == 1 and f"A match of {catalog.title(name)}" in html
    mine = {f"option_{o.name}" for o in engine.ruleset(name).options if o.name != "length_ms"}
    others = {
        f"option_{o.name}"
        for other in GAMES
        if other != name
        for o in engine.ruleset(other).options
        if o.name != "length_ms"
    } - mine
    for field in mine:
        block = _field_block(html, field)
        assert '<small class="help"' in block
    for field in others:
        assert f'name="{field}"' not in html
    has_length = any(o.name == "length_ms" for o in engine.ruleset(name).options)
    assert ('name="length_minutes"' in html) == has_length
    # Every game on the page links to its own form: switching needs no script.
    for other in GAMES:
        assert f'href="/matches/new/?game={other}"' in html
    # The seat choices are this game's bots, each with its description.
    seat = response.context["form"].fields["seat_2"]
    assert [value for value, _ in seat.choices][1:] == engine.bot_names(name)


@pytest.mark.parametrize("name", GAMES)
def test_valid_options_create_a_match_of_that_game_with_them(player, name):
    options = _options_of(name)
    # The fewest seats the options fit (a Skyport map drawn for eight wants eight).
    seats = next(n for n in catalog.seat_counts(name) if _fits(name, n, _stored(options)))
    data = {"game": name, "seat_count": seats, "turn_seconds": 3600, **options}
    data |= {f"seat_{i}": engine.bot_names(name)[0] for i in range(2, seats + 1)}
    response = client_for(player).post(reverse("games:match-create"), data)
    match = Match.objects.get()
    assert response.status_code == 302 and response.url == f"/matches/{match.pk}/"
    assert match.ruleset == name and match.seat_count == seats
    assert match.options == dict(engine.ruleset(name).resolve_options(_stored(options)))
    assert match.status == Match.Status.RUNNING


def test_the_remake_is_created_with_its_rounds(player):
    data = {"game": REMAKE, "seat_count": 3, "turn_seconds": 60, "option_rounds": 7}
    data |= {"seat_2": "prospector", "seat_3": "random"}
    client_for(player).post(reverse("games:match-create"), data)
    match = Match.objects.get()
    assert match.ruleset == REMAKE and match.options == {"rounds": 7} and match.seat_count == 3
    assert [s.bot for s in match.seats.order_by("number")][1:] == ["prospector", "random"]


@pytest.mark.parametrize("rounds", ["4", "101", "many"])
def test_rounds_out_of_range_are_explained_beside_the_field_and_create_nothing(player, rounds):
    data = {"game": REMAKE, "seat_count": 2, "turn_seconds": 60, "option_rounds": rounds}
    response = client_for(player).post(reverse("games:match-create"), data)
    assert response.status_code == 400 and not Match.objects.exists()
    block = _field_block(response.content.decode(), "option_rounds")
    assert 'class="form-field invalid"' in block and "Rounds: from 5 to 100." in block


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("seats", [1, 9])
def test_seats_out_of_the_games_range_are_a_field_error_and_create_nothing(player, name, seats):
    data = {"game": name, "seat_count": seats, "turn_seconds": 60}
    response = client_for(player).post(reverse("games:match-create"), data)
    assert response.status_code == 400 and not Match.objects.exists()
    block = _field_block(response.content.decode(), "seat_count")
    said = catalog.seats_said(catalog.seat_counts(name))
    assert f"A match of {catalog.title(name)} has {said}." in block


def test_an_unknown_game_is_refused_and_creates_nothing(player):
    client = client_for(player)
    data = {"game": "chess", "seat_count": 2, "turn_seconds": 60, "length_minutes": 1}
    response = client.post(reverse("games:match-create"), data)
    assert response.status_code == 400 and not Match.objects.exists()
    assert "There is no game &#x27;chess&#x27; here" in response.content.decode()
    shown = client.get(reverse("games:match-create"), {"game": "chess"})
    assert shown.status_code == 404 and "There is no game “chess” here" in shown.content.decode()


def test_an_option_of_another_game_is_not_taken(player):
    data = {"game": "helium3", "seat_count": 2, "turn_seconds": 60, "length_minutes": 1}
    data |= {"option_rounds": 7, "seat_2": "random"}
    client_for(player).post(reverse("games:match-create"), data)
    assert Match.objects.get().options == {"length_ms": 60_000}


# --- the rules pages -----------------------------------------------------------------


@pytest.mark.parametrize("name", GAMES)
def test_each_game_has_its_rules_at_games_name(db, name):
    response = Client().get(f"/games/{name}/")
    assert response.status_code == 200
    assert [t.name for t in response.templates][0] == presentation.get(name).rules_template
    moved = Client().get(f"/games/{name}/rules/")
    assert moved.status_code == 301 and moved.url == f"/games/{name}/"


def test_an_unknown_game_has_no_rules_page(db):
    assert Client().get("/games/no-such-game/").status_code == 404
    assert Client().get("/games/no-such-game/rules/").status_code == 404


def test_the_games_page_lists_every_game_and_rules_keeps_helium_3(db):
    html = Client().get("/games/").content.decode()
    for name in GAMES:
        assert f'href="/games/{name}/"' in _card(html, name)
    rules = Client().get("/rules/")
    assert rules.status_code == 200
    assert [t.name for t in rules.templates][0] == presentation.get("helium3").rules_template


# --- the admin, the archive, the player pages ------------------------------------------


@pytest.fixture
def one_of_each(player: Any) -> dict[str, Match]:
    """A finished match of every game, the player against a bot."""
    matches = {}
    for name in GAMES:
        bot = engine.bot_names(name)[0]
        small = {REMAKE: {"rounds": 5}, "halite": {"width": 10, "height": 10}}.get(name, {})
        match = services.match_create(
            creator=player,
            seat_count=2,
            bots=[bot],
            length_ms=2000,
            turn_seconds=60,
            ruleset=name,
            options=small,
        )
        matches[name] = _finish(match)
    return matches


def test_the_admin_filters_matches_by_game(admin_client, player):
    made = {
        name: services.match_create(creator=player, seat_count=2, ruleset=name) for name in GAMES
    }
    url = reverse("admin:games_match_changelist")
    html = admin_client.get(url).content.decode()
    for name in GAMES:
        assert f"?ruleset={name}" in html and f">{catalog.title(name)}</a>" in html
        listed = admin_client.get(url, {"ruleset": name}).context["cl"].result_list
        assert [m.pk for m in listed] == [made[name].pk]


def test_the_archive_filters_by_game_and_names_each_rows_game(one_of_each):
    client = Client()
    everything = client.get(reverse("games:archive"))
    assert {m.pk for m in everything.context["page"].object_list} == {
        m.pk for m in one_of_each.values()
    }
    for name, match in one_of_each.items():
        response = client.get(reverse("games:archive"), {"game": name})
        assert [m.pk for m in response.context["page"].object_list] == [match.pk]
        html = response.content.decode()
        assert f'<option value="{name}" selected>' in html
        assert (
            f'href="?game={name}" title="Only matches of this game">{catalog.title(name)}</a>'
            in html
        )


def test_the_player_page_splits_the_record_per_game(one_of_each, player):
    response = Client().get(reverse("games:player", args=[player.username]))
    by_game = {g.ruleset: g for g in response.context["by_game"]}
    assert set(by_game) == set(GAMES)
    for name, match in one_of_each.items():
        seat = match.seats.get(user=player)
        record = by_game[name].record
        assert record.played == 1 and record.won == int(bool(seat.won))
        # Each game's own counts, its score among them under the game's own name.
        totals = {t.field.key: t.value for t in by_game[name].totals}
        assert totals == seat.counts and seat.final_money in totals.values()
    html = response.content.decode()
    for name in GAMES:
        section = re.search(
            rf'<section class="game-record" data-game="{name}".*?</section>', html, re.S
        )
        assert section and f">{catalog.title(name)}</h3>" in section.group(0)
        assert f"game={name}" in section.group(0)


def test_the_match_page_names_its_game(player):
    for name in GAMES:
        match = services.match_create(creator=player, seat_count=2, ruleset=name)
        html = client_for(player).get(reverse("games:match-detail", args=[match.pk])).content
        title = catalog.title(name)
        assert f"<title>Match {match.pk} · {title}</title>" in html.decode()


@pytest.mark.parametrize("name", GAMES)
def test_the_emails_name_the_game(player, opponent, mailoutbox, name):
    match = services.match_create(creator=player, seat_count=2, ruleset=name)
    services.seat_join(match_id=match.pk, user=opponent)
    drain(match)
    started = next(m for m in mailoutbox if "has started" in m.subject)
    title = catalog.title(name)
    assert started.subject.startswith(f"[{title}] Match {match.pk}")
    assert f"Open match {match.pk} · {title}" in started.body
    assert f"Open match {match.pk} · {title}" in started.alternatives[0][0]


@pytest.mark.parametrize("name", GAMES)
def test_each_rules_page_plays_now_its_own_game(db, name):
    client = Client()
    html = client.get(f"/games/{name}/").content.decode()
    form = re.search(r'<form method="post" action="/matches/play-now/">(.*?)</form>', html, re.S)
    assert form, "no Play now on the rules page"
    game = re.search(r'name="game" value="([^"]+)"', form.group(1))
    client.post("/matches/play-now/", {"game": game.group(1)} if game else {})
    assert Match.objects.get().ruleset == name


def test_a_downloaded_replay_is_named_after_its_game(one_of_each, player):
    for name, match in one_of_each.items():
        response = client_for(player).get(reverse("games:match-replay", args=[match.pk]))
        assert response.status_code == 200
        assert response["Content-Disposition"] == (
            f'attachment; filename="{name}-match-{match.pk}.json"'
        )
        assert response.json()["final"]["ruleset"] == name
