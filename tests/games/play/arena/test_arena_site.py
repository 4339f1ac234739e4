"""The robot arena on the site: its lobby card, Play now, the create form with its
rounds and two to four seats, the build page (each seat sees only its own parts),
steps through the plain form resolved in the request (the page after posting shows
a scan's cells), illegal steps refused beside the field, the match page as a player
(only its own knowledge) and as a spectator (everything), the rules page with the
engine's numbers, a finished match's ending and the archive."""

from __future__ import annotations

import json
import re
from html import unescape
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from site_support import client_for, drain

import engine
from engine.arena.orders import CAPACITY
from engine.arena.resolve import CANNON_RELOAD
from engine.arena.state import BASE_HEALTH, PARTS
from games import presentation, selectors, services
from games.models import Match, Orders, Resolution
from games.services.tokens import token_create

pytestmark = pytest.mark.django_db

ARENA = "arena"
# Seat 1's build in the duel: a list no page shows unless it is seat 1's.
SECRET = ["engine1", "radar1", "shield3"]
OTHER = ["engine2", "radar2", "gun"]


def _card(html: str) -> str:
    found = re.search(r'<article class="game-card"[^>]*data-game="arena">.*?</article>', html, re.S)
    assert found, "no arena card"
    return found.group(0)


def _field_block(html: str, name: str) -> str:
    for block in re.split(r'(?=<div class="form-field[ "])', html):
        if f'name="{name}"' in block:
            return block
    raise AssertionError(f"no field {name}")


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def _get(client: Client, url: str) -> str:
    response = client.get(url, follow=True)
    assert response.status_code == 200, url
    return response.content.decode()


def _page(client: Client, match: Match) -> str:
    return _get(client, reverse("games:match-detail", args=[match.pk]))


def _board(html: str) -> str:
    found = re.search(r'<svg class="board arena-board".*?</svg>', html, re.S)
    assert found, "no arena board on the page"
    return found.group(0)


def _post(client: Client, match: Match, **data: Any) -> Any:
    return client.post(reverse("games:match-orders", args=[match.pk]), data)


def _urls(match: Match) -> list[str]:
    return [
        reverse("games:match-detail", args=[match.pk]),
        reverse("games:match-poll", args=[match.pk]) + "?since=0",
        reverse("games:match-history", args=[match.pk]),
    ]


# --- the lobby, Play now, the create form ------------------------------------------------


def test_the_lobby_has_an_arena_card_with_its_picture_seats_length_and_rules(player):
    card = _card(client_for(player).get(reverse("games:lobby")).content.decode())
    shown = presentation.get(ARENA)
    assert ">Robot arena</h3>" in card and str(shown.picture()) in card
    assert "2 to 4 players" in card and "40 rounds, one seat at a time" in card
    assert 'href="/games/arena/"' in card and "Play now against one bot" in card


def test_play_now_starts_an_arena_match_in_its_build_phase(player):
    response = client_for(player).post(reverse("games:match-play-now"), {"game": ARENA})
    match = Match.objects.get()
    assert response.status_code == 302 and response.url == f"/matches/{match.pk}/"
    assert match.ruleset == ARENA and match.status == Match.Status.RUNNING
    assert match.options == {"rounds": 40} and match.seat_count == 2
    seats = list(match.seats.order_by("number"))
    assert seats[0].user == player and seats[1].bot in engine.bot_names(ARENA)
    assert match.state["phase"] == "build" and match.to_move is None
    html = _page(client_for(player), match)
    assert 'name="parts"' in html and "Building the robots, then 40 rounds" in html
    assert f"of {CAPACITY}" in html


def test_the_create_form_asks_rounds_and_two_to_four_seats(player):
    response = client_for(player).get(reverse("games:match-create"), {"game": ARENA})
    html = response.content.decode()
    assert response.status_code == 200
    block = _field_block(html, "option_rounds")
    assert 'min="10"' in block and 'max="200"' in block and 'value="40"' in block
    form = response.context["form"]
    assert [n for n, _ in form.fields["seat_count"].choices] == [2, 3, 4]
    assert 'name="turn_seconds"' in html


@pytest.mark.parametrize("rounds", ["9", "201", "many"])
def test_rounds_out_of_range_are_explained_beside_the_field(player, rounds):
    data = {"game": ARENA, "seat_count": 2, "turn_seconds": 60, "option_rounds": rounds}
    response = client_for(player).post(reverse("games:match-create"), data)
    assert response.status_code == 400 and not Match.objects.exists()
    block = _field_block(response.content.decode(), "option_rounds")
    assert "Rounds: from 10 to 200." in _text(block)


def test_four_seats_of_bots_play_a_match_to_its_end(player):
    data = {"game": ARENA, "seat_count": 4, "turn_seconds": 60, "option_rounds": 10}
    data |= {"seat_1": "hunter", "seat_2": "random", "seat_3": "hunter", "seat_4": "random"}
    response = client_for(player).post(reverse("games:match-create"), data)
    match = Match.objects.get()
    assert response.status_code == 302 and match.options == {"rounds": 10}
    drain(match, emails=False)
    assert match.status == Match.Status.FINISHED and len(match.state["robots"]) == 4


def test_five_seats_are_refused(player):
    data = {"game": ARENA, "seat_count": 5, "turn_seconds": 60}
    response = client_for(player).post(reverse("games:match-create"), data)
    assert response.status_code == 400 and not Match.objects.exists()
    assert "A match of Robot arena has 2 to 4 players." in _text(response.content.decode())


# --- the build -----------------------------------------------------------------------------


@pytest.fixture
def duel(player: Any, opponent: Any) -> Match:
    match = services.match_create(
        creator=player, seat_count=2, turn_seconds=3600, ruleset=ARENA, options={"rounds": 10}
    )
    services.seat_join(match_id=match.pk, user=opponent)
    match.refresh_from_db()
    assert match.status == Match.Status.RUNNING and match.state["phase"] == "build"
    return match


def _shows_secret(text: str) -> bool:
    """Whether seat 1's build shows in a response: ticked, as JSON, or as a sentence."""
    return bool(
        re.search(r'value="shield3"[^>]*checked', text)
        or re.search(r"engine1\W{1,8}radar1\W{1,8}shield3", text)
        or "engine1, radar1 and shield3" in text
    )


def test_the_build_page_shows_each_player_only_its_own_parts(duel, player, opponent, spectator):
    html = _page(client_for(player), duel)
    board = _board(html)
    assert 'data-phase="build"' in board and 'data-viewer="1"' in board
    assert html.count('type="checkbox" name="parts"') == len(PARTS)
    assert presentation.get(ARENA).orders_note[:40] in html
    sent = _post(client_for(player), duel, turn=0, parts=SECRET)
    assert sent.status_code == 302
    drain(duel, emails=False)
    assert duel.state["phase"] == "build" and not Resolution.objects.filter(match=duel).exists()
    mine = _page(client_for(player), duel)
    assert _shows_secret(mine), "the player does not see its own build"
    for who in (opponent, spectator):
        for url in _urls(duel):
            assert not _shows_secret(_get(client_for(who), url)), url
    history = repr(selectors.match_history(duel, 2))
    assert "shield3" not in history
    # Both built: the other seat still learns nothing of seat 1's parts.
    assert _post(client_for(opponent), duel, turn=0, parts=OTHER).status_code == 302
    drain(duel, emails=False)
    assert duel.state["phase"] == "play"
    theirs = _page(client_for(opponent), duel)
    assert "The robots are built: seat 2 engine2, radar2 and gun." in theirs
    assert "shield3" not in _text(theirs).replace("shield3 (", "")
    assert not _shows_secret(theirs)
    for url in _urls(duel)[1:]:
        assert not _shows_secret(_get(client_for(opponent), url)), url
    # A spectator learns no build while the match runs: a player could watch their
    # own match from a private window.
    watched = _page(client_for(spectator), duel)
    assert "The robots are built." in watched and not _shows_secret(watched)
    assert "engine2, radar2 and gun" not in watched


def test_a_build_may_be_changed_until_both_have_built(duel, player, opponent):
    _post(client_for(player), duel, turn=0, parts=OTHER)
    again = _post(client_for(player), duel, turn=0, parts=SECRET)
    assert again.status_code == 302
    html = _page(client_for(player), duel)
    assert re.search(r'value="shield3"[^>]*checked', html)
    assert Orders.objects.get(match=duel, seat=1).orders["build"] == SECRET
    _post(client_for(opponent), duel, turn=0, actions_json=json.dumps({"build": OTHER}))
    drain(duel, emails=False)
    robots = {r["seat"]: r["parts"] for r in duel.state["robots"]}
    assert robots == {1: SECRET, 2: OTHER}


@pytest.mark.parametrize(
    ("parts", "message"),
    [
        (["engine3", "radar3"], "These parts take 12 of the capacity; at most 10."),
        (["engine1", "engine2"], "Two parts of one kind: engine1 and engine2"),
        ([], "Choose the parts of your robot."),
        (["rocket"], "Select a valid choice."),
    ],
)
def test_a_bad_build_is_explained_beside_the_parts_and_changes_nothing(
    duel, player, parts, message
):
    response = _post(client_for(player), duel, turn=0, parts=parts)
    assert response.status_code == 400
    errors = re.search(r'id="id_parts_errors">.*?</div>', response.content.decode(), re.S)
    assert errors and message in _text(errors.group(0))
    assert not Orders.objects.filter(match=duel, seat=1).exists()


def test_a_build_the_engine_refuses_as_json_is_explained(duel, player):
    bad = json.dumps({"build": ["engine3", "shield3"]})
    response = _post(client_for(player), duel, turn=0, actions_json=bad)
    assert response.status_code == 400
    assert "capacity" in _text(response.content.decode()).lower()
    assert not Orders.objects.filter(match=duel, seat=1).exists()


# --- play: steps in the request -------------------------------------------------------------


@pytest.fixture
def playing(duel: Match, player: Any, opponent: Any) -> Match:
    _post(client_for(player), duel, turn=0, parts=["engine2", "radar2", "gun"])
    _post(client_for(opponent), duel, turn=0, parts=["engine2", "radar1", "cannon"])
    drain(duel, emails=False)
    assert duel.state["phase"] == "play" and engine.awaiting(duel.state) == [1]
    return duel


def _step(client: Client, match: Match, **data: Any) -> Any:
    match.refresh_from_db()
    base = {"turn": match.state["turn"], "step_no": match.state["step"]}
    return _post(client, match, **base, **data)


def test_a_scan_is_answered_in_the_request_and_drawn_at_once(playing, player):
    client = client_for(player)
    before = _board(_page(client, playing))
    assert before.count("ar-cell k-unknown") == 99 and "Round 1 of 10" in _page(client, playing)
    response = _step(client, playing, step="scan")
    assert response.status_code == 302
    after = client.get(response.url).content.decode()
    board = _board(after)
    # radar2 from the corner (0, 0): the 4 x 4 cells within distance 3.
    assert board.count("ar-cell k-unknown") == 100 - 16
    assert "Seat 1 scanned 16 cells around (0, 0)" in after
    playing.refresh_from_db()
    assert playing.state["step"] == 1 and engine.awaiting(playing.state) == [1]


def test_a_move_and_the_end_of_the_turn_through_the_plain_form(playing, player, opponent):
    client = client_for(player)
    free = _free_path(playing.state)
    assert _step(client, playing, step="move", path=" ".join(free)).status_code == 302
    html = _page(client, playing)
    own = re.search(r'<g class="ar-robot own seat-1"[^>]*data-x="(\d)" data-y="(\d)"', html)
    playing.refresh_from_db()
    robot = engine.view(playing.state, 1)["robots"][0]
    assert (robot["x"], robot["y"]) != (0, 0)
    assert own and (int(own.group(1)), int(own.group(2))) == (robot["x"], robot["y"])
    assert f"Seat 1 moved {len(free)} cell" in html
    assert _step(client, playing, step="end").status_code == 302
    playing.refresh_from_db()
    assert engine.awaiting(playing.state) == [2]
    assert "Seat 1 ended its turn." in _page(client_for(opponent), playing)


def _free_path(state: dict[str, Any]) -> list[str]:
    """One step from (0, 0) onto a free cell."""
    blocked = {tuple(c) for c in state["obstacles"]}
    return ["right"] if (1, 0) not in blocked else ["down"]


@pytest.mark.parametrize(
    ("data", "field_error"),
    [
        ({"step": "move", "path": "up"}, "leaves the arena"),
        ({"step": "move", "path": "right right right right right"}, "step"),
        ({"step": "shoot", "x": "9", "y": "9"}, "the gun reaches 3"),
    ],
)
def test_an_illegal_step_is_refused_beside_the_field_and_changes_nothing(
    playing, player, data, field_error
):
    before = json.dumps(playing.state, sort_keys=True)
    response = _step(client_for(player), playing, **data)
    assert response.status_code == 400, response.status_code
    errors = re.search(r'id="id_step_errors">.*?</div>', response.content.decode(), re.S)
    assert errors and field_error in _text(errors.group(0)).lower()
    playing.refresh_from_db()
    assert json.dumps(playing.state, sort_keys=True) == before
    assert not Resolution.objects.filter(match=playing, turn_number=playing.turn_number).exists()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({}, "Choose a step"),
        ({"step": "move", "path": "north"}, "is not a direction"),
        ({"step": "move", "path": ""}, "A move needs a path"),
        ({"step": "shoot", "x": "3"}, "A shot needs its target"),
        ({"step": "<script>"}, "Select a valid choice."),
        ({"actions_json": "{"}, "The orders are not valid JSON"),
    ],
)
def test_bad_fields_are_explained_and_change_nothing(playing, player, data, message):
    response = _step(client_for(player), playing, **data)
    assert response.status_code == 400
    html = response.content.decode()
    assert message in _text(html).replace("“", "").replace("”", "")
    assert "<script>" not in html.split("<main", 1)[-1] or "&lt;script&gt;" in html
    assert not Resolution.objects.filter(match=playing, turn_number=playing.turn_number).exists()


def test_a_step_as_json_wins_and_a_repeated_post_is_known(playing, player):
    client = client_for(player)
    data = {"turn": playing.state["turn"], "step_no": 0, "step": "end"}
    data["actions_json"] = json.dumps({"step": {"type": "scan"}})
    assert _post(client, playing, **data).status_code == 302
    assert _post(client, playing, **data).status_code == 302  # the same post again
    rows = Resolution.objects.filter(match=playing, turn_number=playing.turn_number)
    assert [r.orders["step"] for r in rows] == [{"type": "scan"}]
    # The old page's step sent again for another step: refused, nothing changes.
    stale = _post(client, playing, turn=data["turn"], step_no=0, step="end")
    assert stale.status_code == 409 and rows.count() == 1


def test_a_player_sees_only_its_own_knowledge(playing, player, opponent):
    """Seat 2's robot at (9, 9) was never scanned by seat 1: no page, poll, history
    or API answer of seat 1 shows it."""
    _step(client_for(player), playing, step="scan")
    client = client_for(player)
    pages = [_get(client, url) for url in _urls(playing)]
    bot = Client(headers={"Authorization": f"Bearer {token_create(user=player, name='b')[1]}"})
    api = bot.get(f"/api/v1/matches/{playing.pk}/")
    history = bot.get(f"/api/v1/matches/{playing.pk}/history/")
    assert api.status_code == history.status_code == 200
    assert api.json()["state"]["knowledge"]["1"], "the scan is in the API's state"
    for text in [*pages, api.content.decode(), history.content.decode()]:
        assert not re.search(r'class="ar-robot[^"]*seat-2"', text)
        assert "seat 2's robot" not in unescape(text)
        assert not re.search(r"\"seat\": 2, \"x\"", text)
        assert not re.search(r'data-x="9" data-y="9" data-age="\d', text)
        assert '"9,9"' not in text and not re.search(r"engine2\W{1,8}radar1\W{1,8}cannon", text)
    view = engine.view(playing.state, 1)
    assert [r["seat"] for r in view["robots"]] == [1]


def test_a_seen_robot_stands_where_the_scan_showed_it_with_its_age(playing, player, opponent):
    # Seat 2 walks next to seat 1's corner; seat 1 scans it, then the turn moves on.
    state = playing.state
    # A free cell within seat 1's radar (the obstacles are the match's seed's).
    blocked = {tuple(c) for c in state["obstacles"]}
    x, y = next(
        (x, y) for x, y in ((2, 2), (3, 1), (1, 3), (2, 3), (3, 2)) if (x, y) not in blocked
    )
    state["robots"][1].update(x=x, y=y)
    Match.objects.filter(pk=playing.pk).update(state=state)
    _step(client_for(player), playing, step="scan")
    html = _page(client_for(player), playing)
    seen = re.search(
        rf'<g class="ar-robot seen seat-2"[^>]*data-x="{x}" data-y="{y}" data-age="0"', html
    )
    assert seen and f"seat 2's robot at ({x}, {y})" in unescape(html)
    _step(client_for(player), playing, step="end")
    _step(client_for(opponent), playing, step="end")
    html = _page(client_for(player), playing)
    assert re.search(r'<g class="ar-robot seen seat-2"[^>]*data-age="2"', html)


def test_a_spectator_sees_a_grey_board_and_no_form_while_the_match_runs(playing, player, spectator):
    html = _page(client_for(spectator), playing)
    board = _board(html)
    assert 'data-viewer=""' in board and 'id="orders-form"' not in html
    drawn = board.split("</style>", 1)[1]
    assert drawn.count("ar-cell k-unknown") == 100
    assert '<g class="ar-robot ' not in drawn and "k-obstacle" not in drawn


# --- the rules page -------------------------------------------------------------------------


def test_the_rules_page_gives_the_numbers_of_the_engine():
    response = Client().get("/games/arena/")
    assert response.status_code == 200
    text = _text(response.content.decode())
    assert f"a capacity of {CAPACITY}" in text and f"{BASE_HEALTH} health plus" in text
    for name, (kind, cost, _strength) in PARTS.items():
        assert f"{name} {kind} {cost} " in text, name
    assert "engine3 engine 6 6 steps a turn" in text
    assert "radar3 radar 6 scans every cell within 6" in text
    assert "shield3 shield 6 +8 health" in text
    assert "the gun hits a cell within 3 for 3, the cannon a cell within 1 for 8" in text
    assert f"its reload is {CANNON_RELOAD}" in text
    assert "after 40 rounds (its creator may choose from 10 to 200)" in text
    assert "cells you never scanned are grey" in text
    assert 'class="board arena-board"' in response.content.decode()
    assert "Seat 4: pink diamond, starts at (0, 9)" in text


# --- the end, the archive -------------------------------------------------------------------


@pytest.fixture
def finished(player: Any) -> Match:
    """A ten-round match of the player against a bot, the player's seat playing as the
    hunter would on its view."""
    match = services.match_create(
        creator=player,
        seat_count=2,
        turn_seconds=60,
        ruleset=ARENA,
        options={"rounds": 10},
        bots=["random"],
    )
    seat = match.seats.get(user=player).number
    for _ in range(2000):
        drain(match, emails=False)
        if match.status == Match.Status.FINISHED:
            break
        assert seat in engine.awaiting(match.state)
        orders = engine.bot_orders("hunter", match.state, seat)
        orders = {k: v for k, v in orders.items() if k not in ("seat", "turn")}
        services.orders_submit(
            match_id=match.pk, user=player, turn=match.turn_number, orders=orders
        )
    assert match.status == Match.Status.FINISHED
    return match


def test_a_finished_match_records_health_and_its_ending(finished):
    final = finished.state
    for seat in finished.seats.all():
        assert seat.final_money == final["scores"][str(seat.number)]
        assert seat.won == (seat.number in final["winners"])
    html = _page(Client(), finished)
    assert "the last robot standing" in html or "health left after the last round (10)" in html
    # The end screen tells each seat's build, hidden until the end.
    builds = "; ".join(
        f"seat {r['seat']} {', '.join(r['parts'][:-1])} and {r['parts'][-1]}"
        if len(r["parts"]) > 1
        else f"seat {r['seat']} {''.join(r['parts']) or 'no parts'}"
        for r in final["robots"]
    )
    assert f"Builds: {builds}." in html
    replay = Client().get(reverse("games:match-replay-page", args=[finished.pk]))
    assert replay.status_code == 200 and 'class="board arena-board"' in replay.content.decode()


def test_the_archive_and_the_player_page_list_the_arena(finished, player):
    response = Client().get(reverse("games:archive"), {"game": ARENA})
    assert [m.pk for m in response.context["page"].object_list] == [finished.pk]
    assert '<option value="arena" selected>' in response.content.decode()
    page = Client().get(reverse("games:player", args=[player.username]))
    by_game = {g.ruleset: g.record for g in page.context["by_game"]}
    assert by_game[ARENA].played == 1


def test_a_page_drawn_before_a_step_is_not_shown_again_after_it(playing, player):
    client = client_for(player)
    before = _board(_page(client, playing))
    assert before.count("ar-cell k-unknown") == 99
    response = _step(client, playing, step="scan")
    assert response.status_code == 302
    client.get(response.url)  # the page with the flash message
    again = _board(_page(client, playing))  # a reload: no message
    assert again.count("ar-cell k-unknown") == 100 - 16


def test_a_spectator_learns_of_a_turn_only_when_it_ends(playing, player, spectator):
    watcher = client_for(spectator)
    before = _page(watcher, playing)  # drawn, and perhaps kept, before the step
    token = re.search(r"\?v=([^&]+)&amp;", before)
    assert token is not None
    poll = reverse("games:match-poll", args=[playing.pk])
    free = _free_path(playing.state)
    assert _step(client_for(player), playing, step="move", path=free[0]).status_code == 302
    assert _step(client_for(player), playing, step="scan").status_code == 302
    # Mid-turn: nothing the spectator is shown has changed.
    assert watcher.get(f"{poll}?v={token.group(1)}&since=1").status_code == 304
    csrf = re.compile(r'name="csrfmiddlewaretoken" value="[^"]*"')
    assert csrf.sub("", _page(watcher, playing)) == csrf.sub("", before)
    assert _step(client_for(player), playing, step="end").status_code == 302
    assert watcher.get(f"{poll}?v={token.group(1)}&since=1").status_code == 200
    after = _board(_page(watcher, playing)).split("</style>", 1)[1]
    assert '<g class="ar-robot ' not in after


def test_the_panel_has_no_helium_3_robot_table_on_an_arena_page(playing, player):
    html = _page(client_for(player), playing)
    assert "Your robots" not in html and "inactive" not in html


def test_the_replay_counts_the_turn_the_last_robot_fell_in(player, monkeypatch):
    # Seed 3: the hunter destroys the random bot within its turn 13 (a seed found by play).
    monkeypatch.setattr(services.matches.secrets, "randbelow", lambda _n: 3)
    match = services.match_create(
        creator=player, seat_count=2, ruleset="arena", bots=["hunter", "random"],
        options={"rounds": 40},
    )  # fmt: skip
    drain(match, emails=False)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.state is not None
    final = match.state
    cut_short = Resolution.objects.filter(match=match, turn_number=final["turn"]).exists()
    assert cut_short, "a hunter's last shot ends the match within its turn"
    html = client_for(player).get(reverse("games:match-replay-page", args=[match.pk]))
    assert html.status_code == 200
    assert f'data-turns="{final["turn"] + 1}"' in html.content.decode()
    movie = reverse("games:match-turn-movie", args=[match.pk, final["turn"]])
    assert client_for(player).get(movie).status_code == 200
    beyond = reverse("games:match-turn-movie", args=[match.pk, final["turn"] + 1])
    assert client_for(player).get(beyond).status_code == 404
