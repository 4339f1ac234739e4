"""Skyport on the site: its lobby card, Play now, the create form with its options and
its map that must fit the seats, the match page in the loadout phase (each seat sees
only its own choice until all have chosen) and in play, for a player and a
spectator, the plain form playing a loadout and a turn, errors beside the field, the
rules page with the engine's numbers, the history's sentences, the archive and the
player page."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from site_support import client_for, drain

import engine
from engine.skyport import resolve as sk
from games import presentation, services
from games.models import Match, Orders, Resolution, Turn
from games.play.skyport.forms import LOADOUT_NOTE, PLAY_NOTE

pytestmark = pytest.mark.django_db

SKYPORT = "skyport"
# Seat 1's loadout in the duel: two words in an order no page shows by itself.
SECRET = ["droid", "laser"]


def _card(html: str) -> str:
    found = re.search(
        r'<article class="game-card"[^>]*data-game="skyport">.*?</article>', html, re.S
    )
    assert found, "no Skyport card"
    return found.group(0)


def _field_block(html: str, name: str) -> str:
    for block in re.split(r'(?=<div class="form-field[ "])', html):
        if f'name="{name}"' in block:
            return block
    raise AssertionError(f"no field {name}")


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def _page(client: Client, match: Match) -> str:
    response = client.get(reverse("games:match-detail", args=[match.pk]))
    assert response.status_code == 200
    return response.content.decode()


def _board(html: str) -> str:
    found = re.search(r'<svg class="board skyport-board".*?</svg>', html, re.S)
    assert found, "no Skyport board on the page"
    return found.group(0)


def _post(client: Client, match: Match, **data: Any) -> Any:
    return client.post(reverse("games:match-orders", args=[match.pk]), data)


# --- the lobby, Play now, the create form ------------------------------------------------


def test_the_lobby_has_a_skyport_card_with_its_picture_seats_length_and_rules(player):
    card = _card(client_for(player).get(reverse("games:lobby")).content.decode())
    shown = presentation.get(SKYPORT)
    assert ">Skyport</h3>" in card and str(shown.picture()) in card
    assert 'class="game-picture"' in card and "<path fill=" in card
    assert "2 to 8 players" in card and "30 rounds, one seat at a time" in card
    assert 'href="/games/skyport/"' in card and "Play now against one bot" in card


def test_play_now_starts_a_skyport_match_in_its_loadout_phase(player):
    response = client_for(player).post(reverse("games:match-play-now"), {"game": SKYPORT})
    match = Match.objects.get()
    assert response.status_code == 302 and response.url == f"/matches/{match.pk}/"
    assert match.ruleset == SKYPORT and match.status == Match.Status.RUNNING
    assert match.options == {"rounds": 30, "map": "generated"} and match.seat_count == 2
    seats = list(match.seats.order_by("number"))
    assert seats[0].user == player and seats[1].bot in engine.bot_names(SKYPORT)
    # The loadouts are chosen at once: the bot's is in, the turn waits for the player.
    assert match.state["phase"] == "loadout" and match.to_move is None
    assert Orders.objects.filter(match=match, seat=2, turn_number=0).exists()
    html = _page(client_for(player), match)
    assert '<select name="loadout_1"' in html and "Choosing loadouts, then 30 rounds" in html


def test_the_create_form_asks_rounds_map_and_two_to_eight_seats(player):
    response = client_for(player).get(reverse("games:match-create"), {"game": SKYPORT})
    html = response.content.decode()
    assert response.status_code == 200
    block = _field_block(html, "option_rounds")
    assert 'min="5"' in block and 'max="100"' in block and 'value="30"' in block
    maps = _field_block(html, "option_map")
    options = re.findall(r'<option value="([^"]+)"', maps)
    assert options == list(engine.ruleset(SKYPORT).option("map").choices)
    assert options[0] == "generated" and "cross-4" in options
    form = response.context["form"]
    assert [n for n, _ in form.fields["seat_count"].choices] == [2, 3, 4, 5, 6, 7, 8]
    assert form.fields["seat_8"].label == "Eighth seat"
    assert 'name="turn_seconds"' in html


def test_a_shipped_map_for_more_seats_than_its_spawns_is_an_error_beside_the_map(player):
    data = {"game": SKYPORT, "seat_count": 5, "turn_seconds": 60, "option_rounds": 10}
    data |= {"option_map": "cross-4"} | {f"seat_{i}": "random" for i in range(2, 6)}
    response = client_for(player).post(reverse("games:match-create"), data)
    assert response.status_code == 400 and not Match.objects.exists()
    block = _field_block(response.content.decode(), "option_map")
    assert 'class="form-field invalid"' in block
    assert "The map cross-4 has 4 spawn tiles: it takes 2 to 4 players, not 5" in _text(block)


def test_a_shipped_map_takes_fewer_seats_than_its_spawns(player):
    data = {"game": SKYPORT, "seat_count": 3, "turn_seconds": 60, "option_rounds": 5}
    data |= {"option_map": "cross-4", "seat_2": "random", "seat_3": "prospector"}
    response = client_for(player).post(reverse("games:match-create"), data)
    match = Match.objects.get()
    assert response.status_code == 302 and match.options == {"rounds": 5, "map": "cross-4"}
    assert match.seat_count == 3 and match.status == Match.Status.RUNNING
    assert len(match.state["players"]) == 3


@pytest.mark.parametrize("rounds", ["4", "101", "many"])
def test_rounds_out_of_range_are_explained_beside_the_field(player, rounds):
    data = {"game": SKYPORT, "seat_count": 2, "turn_seconds": 60, "option_rounds": rounds}
    response = client_for(player).post(reverse("games:match-create"), data)
    assert response.status_code == 400 and not Match.objects.exists()
    block = _field_block(response.content.decode(), "option_rounds")
    assert "Rounds: from 5 to 100." in _text(block)


def test_a_shipped_map_with_its_own_seats_makes_a_match_of_bots(player):
    data = {"game": SKYPORT, "seat_count": 4, "turn_seconds": 60, "option_rounds": 5}
    data |= {"option_map": "cross-4", "seat_1": "random"}
    data |= {f"seat_{i}": "prospector" for i in range(2, 5)}
    response = client_for(player).post(reverse("games:match-create"), data)
    match = Match.objects.get()
    assert response.status_code == 302 and match.options == {"rounds": 5, "map": "cross-4"}
    drain(match, emails=False)
    assert match.status == Match.Status.FINISHED
    assert match.state["round"] == 5 and len(match.state["players"]) == 4


def test_nine_seats_are_refused(player):
    data = {"game": SKYPORT, "seat_count": 9, "turn_seconds": 60}
    response = client_for(player).post(reverse("games:match-create"), data)
    assert response.status_code == 400 and not Match.objects.exists()
    assert "A match of Skyport has 2 to 8 players." in _text(response.content.decode())


# --- the match page: the loadout phase --------------------------------------------------


@pytest.fixture
def duel(player: Any, opponent: Any) -> Match:
    match = services.match_create(
        creator=player, seat_count=2, turn_seconds=3600, ruleset=SKYPORT, options={"rounds": 5}
    )
    services.seat_join(match_id=match.pk, user=opponent)
    match.refresh_from_db()
    assert match.status == Match.Status.RUNNING and match.state["phase"] == "loadout"
    return match


def _leaks(text: str) -> bool:
    """Whether seat 1's loadout shows in a response (the words in its order, as JSON,
    as a list or as selected choices)."""
    return bool(
        re.search(r"droid\W{1,6}laser", text)
        or re.search(r'value="droid" selected', text)
        or "droid and laser" in text
    )


def test_the_loadout_phase_shows_each_player_only_its_own_choice(duel, player, opponent, spectator):
    html = _page(client_for(player), duel)
    board = _board(html)
    assert f'data-size="{duel.state["size"]}"' in board and 'data-viewer="1"' in board
    assert 'data-phase="loadout"' in board and board.count('<g class="sp-player seat-') == 2
    assert '<select name="loadout_1"' in html and 'name="type_0"' not in html
    assert LOADOUT_NOTE in html and PLAY_NOTE not in html
    sent = _post(client_for(player), duel, turn=0, loadout_1=SECRET[0], loadout_2=SECRET[1])
    assert sent.status_code == 302
    drain(duel, emails=False)
    assert duel.state["phase"] == "loadout" and not Resolution.objects.filter(match=duel).exists()
    mine = _page(client_for(player), duel)
    assert "Your orders for turn 0 are in (the loadout)" in mine and _leaks(mine)
    # Neither the other seat nor a spectator learns it: page, poll, history (the API's
    # JSON: tests/api/test_skyport_api.py).
    for who in (opponent, spectator):
        client = client_for(who)
        for url in (
            reverse("games:match-detail", args=[duel.pk]),
            reverse("games:match-poll", args=[duel.pk]) + "?since=0",
            reverse("games:match-history", args=[duel.pk]),
        ):
            response = client.get(url, follow=True)
            assert response.status_code == 200, url
            assert not _leaks(response.content.decode()), url
    assert "are in" not in _page(client_for(opponent), duel)


def test_a_loadout_may_be_changed_until_both_have_chosen_then_both_are_revealed(
    duel, player, opponent
):
    _post(client_for(player), duel, turn=0, loadout_1="laser", loadout_2="mortar")
    again = _post(client_for(player), duel, turn=0, loadout_1=SECRET[0], loadout_2=SECRET[1])
    assert again.status_code == 302
    html = _page(client_for(player), duel)
    assert '<option value="droid" selected>' in html and '<option value="laser" selected>' in html
    box = re.search(r'<textarea name="actions_json"[^>]*>(.*?)</textarea>', html, re.S)
    assert box and json.loads(box.group(1).replace("&quot;", '"')) == {"loadout": SECRET}
    # The page's form sent back as it stands, with one weapon changed in its field: the
    # field wins over the textarea that still shows the orders sent.
    sent = re.search(r'name="sent_json" id="id_sent_json" value="([^"]*)"', html)
    assert sent
    unchanged = sent.group(1).replace("&quot;", '"')
    changed = _post(
        client_for(player),
        duel,
        turn=0,
        loadout_1="mortar",
        loadout_2="laser",
        actions_json=unchanged,
        sent_json=unchanged,
    )
    assert changed.status_code == 302
    assert Orders.objects.get(match=duel, seat=1).orders["loadout"] == ["mortar", "laser"]
    _post(client_for(player), duel, turn=0, actions_json=json.dumps({"loadout": SECRET}))
    sent = _post(
        client_for(opponent), duel, turn=0, actions_json='{"loadout": ["mortar", "laser"]}'
    )
    assert sent.status_code == 302
    drain(duel, emails=False)
    assert duel.state["phase"] == "play"
    weapons = {p["seat"]: sorted(p["weapons"]) for p in duel.state["players"]}
    assert weapons == {1: ["droid", "laser"], 2: ["laser", "mortar"]}
    theirs = _page(client_for(opponent), duel)
    assert "The loadouts are revealed: seat 1 droid and laser; seat 2 mortar and laser." in theirs


def test_a_bad_loadout_is_explained_beside_the_field_and_changes_nothing(duel, player):
    response = _post(client_for(player), duel, turn=0, loadout_1="laser", loadout_2="laser")
    assert response.status_code == 400
    errors = re.search(r'id="id_loadout_errors">.*?</div>', response.content.decode(), re.S)
    assert errors and "Choose two different weapons." in errors.group(0)
    assert not Orders.objects.filter(match=duel, seat=1).exists()
    bad_json = _post(client_for(player), duel, turn=0, actions_json='{"loadout": ["laser"]}')
    assert bad_json.status_code == 400 and not Orders.objects.filter(match=duel, seat=1).exists()
    assert "loadout" in _text(bad_json.content.decode()).lower()


# --- the match page: play ----------------------------------------------------------------


def _to_play(duel: Match, player: Any, opponent: Any) -> None:
    _post(client_for(player), duel, turn=0, loadout_1="laser", loadout_2="mortar")
    _post(client_for(opponent), duel, turn=0, loadout_1="mortar", loadout_2="droid")
    drain(duel, emails=False)
    assert duel.state["phase"] == "play"


def _mover(duel: Match, player: Any, opponent: Any) -> tuple[Any, int]:
    seat = engine.awaiting(duel.state)[0]
    user = duel.seats.get(number=seat).user
    return user, seat


def _legal_move(state: dict[str, Any], seat: int) -> str:
    """A direction the seat may step in (off its spawn onto open ground)."""
    from engine.skyport.hexgrid import DIRECTIONS

    me = next(p for p in state["players"] if p["seat"] == seat)
    taken = {(p["j"], p["k"]) for p in state["players"]}
    for name, (dj, dk) in DIRECTIONS.items():
        j, k = me["j"] + dj, me["k"] + dk
        on_map = 0 <= j < state["size"] and 0 <= k < state["size"]
        if on_map and state["tiles"][j][k] in "GERC" and (j, k) not in taken:
            return name
    raise AssertionError("no move")


def test_a_turn_from_the_three_rows_is_played(duel, player, opponent):
    _to_play(duel, player, opponent)
    user, seat = _mover(duel, player, opponent)
    html = _page(client_for(user), duel)
    assert html.count('<fieldset class="action sp-action"') == 3 and "Round 1 of 5" in html
    direction = _legal_move(duel.state, seat)
    sent = _post(
        client_for(user), duel, turn=duel.state["turn"], type_0="move", direction_0=direction
    )
    assert sent.status_code == 302
    drain(duel, emails=False)
    resolved = Resolution.objects.filter(match=duel).order_by("turn_number").last()
    assert resolved and resolved.orders["actions"] == [{"type": "move", "direction": direction}]
    assert f"Seat {seat} moved {direction} from" in _page(client_for(user), duel)


def test_an_illegal_action_is_refused_beside_its_row_and_changes_nothing(duel, player, opponent):
    _to_play(duel, player, opponent)
    user, seat = _mover(duel, player, opponent)
    before = json.dumps(duel.state, sort_keys=True)
    # Mining grass or a spawn: the second action breaks the rules.
    direction = _legal_move(duel.state, seat)
    response = _post(
        client_for(user),
        duel,
        turn=duel.state["turn"],
        type_0="move",
        direction_0=direction,
        type_1="upgrade",
        weapon_1="laser",
    )
    assert response.status_code == 400
    row = re.search(r'id="id_action_1_errors">.*?</div>', response.content.decode(), re.S)
    assert row and "Action 2" in _text(row.group(0))
    duel.refresh_from_db()
    assert json.dumps(duel.state, sort_keys=True) == before
    assert not Orders.objects.filter(match=duel, turn_number=duel.turn_number, seat=seat).exists()


@pytest.mark.parametrize(
    ("data", "field", "message"),
    [
        ({"type_0": "move"}, "direction_0", "A move needs a direction."),
        ({"type_0": "mortar", "dj_0": "1"}, "dj_0", "A mortar needs its target"),
        ({"type_0": "droid", "sequence_0": "north"}, "sequence_0", "is not a direction"),
        ({"actions_json": "{"}, "actions_json", "The orders are not valid JSON"),
        ({"type_0": "<script>"}, "type_0", "Select a valid choice."),
    ],
)
def test_bad_fields_are_explained_and_change_nothing(duel, player, opponent, data, field, message):
    _to_play(duel, player, opponent)
    user, seat = _mover(duel, player, opponent)
    response = _post(client_for(user), duel, turn=duel.state["turn"], **data)
    assert response.status_code == 400
    html = response.content.decode()
    assert message in _text(html).replace("“", "").replace("”", "")
    assert "<script>" not in html.split("<main", 1)[-1] or "&lt;script&gt;" in html
    assert not Orders.objects.filter(match=duel, turn_number=duel.turn_number, seat=seat).exists()


def test_a_spectator_sees_the_map_and_no_form(duel, player, opponent, spectator):
    _to_play(duel, player, opponent)
    html = _page(client_for(spectator), duel)
    board = _board(html)
    assert 'data-viewer=""' in board and 'id="orders-form"' not in html
    players = re.findall(
        r'<g class="sp-player seat-(\d)" data-seat="\d" data-j="(\d+)" data-k="(\d+)"', board
    )
    assert sorted((int(s), int(j), int(k)) for s, j, k in players) == sorted(
        (p["seat"], p["j"], p["k"]) for p in duel.state["players"]
    )


def test_orders_for_a_past_turn_are_refused(duel, player, opponent):
    _to_play(duel, player, opponent)
    user, _seat = _mover(duel, player, opponent)
    response = _post(client_for(user), duel, turn=0, type_0="mine")
    assert response.status_code == 409
    assert Resolution.objects.filter(match=duel).count() == 1


# --- the rules page -----------------------------------------------------------------------


def test_the_rules_page_gives_the_numbers_of_the_engine():
    response = Client().get("/games/skyport/")
    assert response.status_code == 200
    text = _text(response.content.decode())
    for weapon, table in (
        ("laser", sk.LASER_DAMAGE),
        ("mortar", sk.MORTAR_DAMAGE),
        ("droid", sk.DROID_DAMAGE),
    ):
        assert " / ".join(str(table[level]) for level in (1, 2, 3)) in text, weapon
    assert "5 / 6 / 7 tiles in a line" in text and "a walk of 3 / 4 / 5 steps" in text
    assert "level 2 costs 4, level 3 costs 5" in text
    assert "damage × (1 + 0.2 × unused actions)" in text
    assert "does 35 on its target and 25 on the six tiles around it" in text
    assert f"A kill scores {sk.KILL_BOUNTY} more; dying costs {-sk.DEATH_PENALTY}" in text
    assert "up to 3 actions" in text and "30 rounds unless its creator chose from 5 to 100" in text
    assert "cross-4 (4 players)" in text and "ring-8 (8 players)" in text
    assert "also takes fewer, from 2: the spawns left over stay empty" in text
    assert 'class="board skyport-board"' in response.content.decode()
    assert "Seat 8: white hourglass" in text


# --- the archive and the player page ------------------------------------------------------


@pytest.fixture
def finished(player: Any) -> Match:
    """A five-round match of the player against a bot, the player's seat sending what
    the prospector would on its view."""
    match = services.match_create(
        creator=player,
        seat_count=2,
        turn_seconds=60,
        ruleset=SKYPORT,
        options={"rounds": 5},
        bots=["random"],
    )
    seat = match.seats.get(user=player).number
    for _ in range(100):
        drain(match, emails=False)
        if match.status == Match.Status.FINISHED:
            break
        assert seat in engine.awaiting(match.state)
        orders = engine.bot_orders("prospector", engine.view(match.state, seat), seat)
        orders = {k: v for k, v in orders.items() if k not in ("seat", "turn")}
        services.orders_submit(
            match_id=match.pk, user=player, turn=match.turn_number, orders=orders
        )
    assert match.status == Match.Status.FINISHED
    return match


def test_a_finished_match_records_points_and_its_ending(finished):
    final = finished.state
    for seat in finished.seats.all():
        assert seat.final_money == final["scores"][str(seat.number)]
        assert seat.won == (seat.number in final["winners"])
    html = _page(Client(), finished)
    assert "points after the last round (5)" in html
    replay = Client().get(reverse("games:match-replay-page", args=[finished.pk]))
    assert replay.status_code == 200 and 'class="board skyport-board"' in replay.content.decode()
    assert Turn.objects.filter(match=finished).count() >= 10


def test_the_archive_and_the_player_page_list_skyport(finished, player):
    response = Client().get(reverse("games:archive"), {"game": SKYPORT})
    assert [m.pk for m in response.context["page"].object_list] == [finished.pk]
    assert '<option value="skyport" selected>' in response.content.decode()
    page = Client().get(reverse("games:player", args=[player.username]))
    assert page.status_code == 200
    by_game = {g.ruleset: g.record for g in page.context["by_game"]}
    assert by_game[SKYPORT].played == 1
    found = re.search(
        r"<section class=\"game-record\" data-game=\"skyport\".*?</section>",
        page.content.decode(),
        re.S,
    )
    assert found and "Skyport" in found.group(0) and "Damage dealt" in found.group(0)
