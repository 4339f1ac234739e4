"""Halite on the site: its lobby card, Play now, the create form with its options and
seat counts, the match page for a player and a spectator, orders through the plain
form, the rules page, the archive, player and admin pages, the page's weight on a
big map, the seat colours of seats past four, and the emails of turns at once."""

from __future__ import annotations

import gzip
import itertools
import re
from datetime import timedelta
from typing import Any

import pytest
from django.core import mail
from django.test import Client
from django.urls import reverse
from halite_support import HALITE, halite_match, owned_cells, pieces, play_turns
from site_support import client_for, drain
from test_contrast import contrast, themes

import engine
from engine.halite import state as halite_state
from games import catalog, presentation, services
from games.errors import ServiceError
from games.models import Match, Notification, NotificationKind, Orders, Resolution, Seat, Turn

pytestmark = pytest.mark.django_db


def _card(html: str) -> str:
    found = re.search(
        r'<article class="game-card"[^>]*data-game="halite">.*?</article>', html, re.S
    )
    assert found, "no Halite card"
    return found.group(0)


def _field_block(html: str, name: str) -> str:
    for block in re.split(r'(?=<div class="form-field[ "])', html):
        if f'name="{name}"' in block:
            return block
    raise AssertionError(f"no field {name}")


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


# --- the lobby, Play now, the create form ------------------------------------------------


def test_the_lobby_has_a_halite_card_with_its_picture_seats_length_and_rules(player):
    card = _card(client_for(player).get(reverse("games:lobby")).content.decode())
    shown = presentation.get(HALITE)
    assert ">Halite</h3>" in card and str(shown.picture()) in card
    assert 'class="game-picture"' in card and "data:image/png;base64," in card
    assert "2 to 6 players" in card and "300 turns on a 30 × 30 map" in card
    assert 'href="/games/halite/"' in card and "Play now against one bot" in card


def test_play_now_starts_a_halite_match_against_its_planned_bot(player):
    response = client_for(player).post(reverse("games:match-play-now"), {"game": HALITE})
    match = Match.objects.get()
    assert response.status_code == 302 and response.url == f"/matches/{match.pk}/"
    assert match.ruleset == HALITE and match.status == Match.Status.RUNNING
    assert match.options == {"width": 30, "height": 30} and match.seat_count == 2
    seats = list(match.seats.order_by("number"))
    assert seats[0].user == player and seats[1].bot == "grower"
    # Every seat moves at once: the turn waits for nobody but the player.
    assert match.to_move is None and Turn.objects.get(match=match).seat == 0
    assert Orders.objects.filter(match=match, seat=2, turn_number=0).exists()


def test_the_create_form_asks_the_map_size_with_presets_and_two_to_six_seats(player):
    response = client_for(player).get(reverse("games:match-create"), {"game": HALITE})
    html = response.content.decode()
    assert response.status_code == 200 and "A match of Halite" in html
    for name in ("option_width", "option_height"):
        block = _field_block(html, name)
        assert 'min="10"' in block and 'max="50"' in block and 'value="30"' in block
        assert f'list="{name}-presets"' in block
        assert all(f'<option value="{n}">' in block for n in (10, 20, 30, 40, 50))
        assert "from 10 to 50" in block
        # A map is one tile per seat: the size may come out smaller, said before the match.
        assert "rounded down to a whole number of tiles, one a seat" in _text(block)
        assert "50 x 50 with six seats is 48 x 50" in _text(block)
    form = response.context["form"]
    assert [n for n, _ in form.fields["seat_count"].choices] == [2, 3, 4, 5, 6]
    assert [f.name for f in form.seat_fields()] == [f"seat_{i}" for i in range(1, 7)]
    assert form.fields["seat_6"].label == "Sixth seat"
    assert [v for v, _ in form.fields["seat_2"].choices][1:] == ["random", "grower"]
    assert 'name="turn_seconds"' in html and 'name="length_minutes"' not in html


def test_a_six_seat_halite_match_of_bots_is_created_from_the_form(player):
    data = {"game": HALITE, "seat_count": 6, "turn_seconds": 60}
    data |= {"option_width": 20, "option_height": 40, "seat_1": "grower"}
    data |= {f"seat_{i}": "random" for i in range(2, 7)}
    response = client_for(player).post(reverse("games:match-create"), data)
    match = Match.objects.get()
    assert response.status_code == 302 and match.ruleset == HALITE
    assert match.seat_count == 6 and match.options == {"width": 20, "height": 40}
    assert [s.number for s in match.seats.order_by("number")] == [1, 2, 3, 4, 5, 6]
    assert match.status == Match.Status.RUNNING
    assert match.state["seats"] == 6 and engine.awaiting(match.state) == [1, 2, 3, 4, 5, 6]


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("option_width", "9", "Width: from 10 to 50."),
        ("option_height", "51", "Height: from 10 to 50."),
        ("option_width", "wide", "Width: from 10 to 50."),
    ],
)
def test_a_map_size_out_of_range_is_explained_beside_its_field(player, field, value, message):
    data = {"game": HALITE, "seat_count": 2, "turn_seconds": 60, "option_width": 30}
    data |= {"option_height": 30, field: value}
    response = client_for(player).post(reverse("games:match-create"), data)
    assert response.status_code == 400 and not Match.objects.exists()
    block = _field_block(response.content.decode(), field)
    assert 'class="form-field invalid"' in block and message in block


@pytest.mark.parametrize("seats", [1, 7, 8])
def test_seat_counts_halite_does_not_have_are_a_field_error(player, seats):
    data = {"game": HALITE, "seat_count": seats, "turn_seconds": 60}
    response = client_for(player).post(reverse("games:match-create"), data)
    assert response.status_code == 400 and not Match.objects.exists()
    block = _field_block(response.content.decode(), "seat_count")
    assert "A match of Halite has 2 to 6 players." in block


def test_the_site_hosts_each_games_own_seat_counts_up_to_eight():
    assert list(catalog.SITE_SEATS) == [2, 3, 4, 5, 6, 7, 8]
    assert catalog.seat_counts(HALITE) == [2, 3, 4, 5, 6]
    assert catalog.seat_counts("helium3") == [2, 3, 4]
    assert catalog.seats_said(catalog.seat_counts(HALITE)) == "2 to 6 players"


def test_helium_3_still_refuses_five_seats(player):
    with pytest.raises(ServiceError) as refused:
        services.match_create(creator=player, seat_count=5, ruleset="helium3")
    assert refused.value.code == "bad_seats" and not Match.objects.exists()


def test_the_database_takes_seats_five_to_eight_and_no_more(player):
    match = services.match_create(creator=player, seat_count=6, ruleset=HALITE, bots=["random"] * 5)
    assert sorted(match.seats.values_list("number", flat=True)) == [1, 2, 3, 4, 5, 6]
    from django.db import IntegrityError, transaction

    with transaction.atomic(), pytest.raises(IntegrityError):
        Seat.objects.create(match=match, number=9, bot="random")
    with transaction.atomic(), pytest.raises(IntegrityError):
        Match.objects.filter(pk=match.pk).update(seat_count=9)


# --- the match page and the plain form ----------------------------------------------------


@pytest.fixture
def duel(player: Any, opponent: Any) -> Match:
    return halite_match(player, opponent=opponent, size=20)


def _page(client: Client, match: Match) -> str:
    response = client.get(reverse("games:match-detail", args=[match.pk]))
    assert response.status_code == 200
    return response.content.decode()


def _board(html: str) -> str:
    found = re.search(r'<svg class="board halite-board".*?</svg>', html, re.S)
    assert found, "no Halite board on the page"
    return found.group(0)


def test_the_player_sees_the_board_with_the_contract_attributes_and_the_moves_field(duel, player):
    html = _page(client_for(player), duel)
    board = _board(html)
    size = duel.state["width"]
    assert f'data-width="{size}"' in board and f'data-height="{duel.state["height"]}"' in board
    assert 'data-cell="20"' in board and 'data-margin="28"' in board and 'data-viewer="1"' in board
    drawn = {(p["x"], p["y"]): (p["owner"], p["strength"]) for p in pieces(board)}
    assert drawn == owned_cells(duel.state) and len(pieces(board)) == len(drawn)
    assert 'id="orders-form"' in html and '<textarea name="moves" id="id_moves"' in html
    assert presentation.get(HALITE).orders_note[:40] in html
    assert "Turn 0 of " in html or "turn 0 of " in html
    # The header says the map's size (the tiles', which may differ from the size asked).
    size = f"{duel.state['width']} × {duel.state['height']}"
    assert f'<span id="match-progress">turn 0 of {duel.state["max_turns"]} on a {size} map.' in html


def test_a_spectator_sees_the_same_map_and_no_form(duel, spectator):
    html = _page(client_for(spectator), duel)
    board = _board(html)
    assert 'data-viewer=""' in board
    drawn = {(p["x"], p["y"]): (p["owner"], p["strength"]) for p in pieces(board)}
    assert drawn == owned_cells(duel.state)
    assert 'name="moves"' not in html


def _start(match: Match, seat: int) -> tuple[int, int]:
    ((x, y),) = [xy for xy, (owner, _s) in owned_cells(match.state).items() if owner == seat]
    return x, y


def _post(client: Client, match: Match, **data: Any) -> Any:
    return client.post(reverse("games:match-orders", args=[match.pk]), data)


def test_moves_from_the_plain_form_resolve_the_turn_once_both_seats_have_sent(
    duel, player, opponent
):
    x1, y1 = _start(duel, 1)
    x2, y2 = _start(duel, 2)
    sent = _post(client_for(player), duel, turn=0, moves=f"{x1} {y1} n\n")
    assert sent.status_code == 302
    drain(duel, emails=False)
    assert duel.turn_number == 0 and not Resolution.objects.filter(match=duel).exists()
    # The player may replace the moves until the turn resolves.
    again = _post(client_for(player), duel, turn=0, moves=f"{x1}, {y1}, e")
    assert again.status_code == 302
    assert _post(client_for(opponent), duel, turn=0, moves=f"{x2} {y2} 4").status_code == 302
    drain(duel, emails=False)
    assert duel.turn_number == 1
    resolved = Resolution.objects.get(match=duel, turn_number=0)
    assert resolved.orders == [
        {"seat": 1, "turn": 0, "moves": [[x1, y1, 2]]},
        {"seat": 2, "turn": 0, "moves": [[x2, y2, 4]]},
    ]
    width = duel.state["width"]
    assert duel.state["owner"][y1][(x1 + 1) % width] == 1
    assert duel.state["owner"][y2][(x2 - 1) % width] == 2


def test_the_page_shows_the_moves_already_sent_and_that_they_may_change(duel, player, opponent):
    x1, y1 = _start(duel, 1)
    before = _page(client_for(player), duel)
    assert "are in (" not in before
    assert _post(client_for(player), duel, turn=0, moves=f"{x1} {y1} n\n").status_code == 302
    html = _page(client_for(player), duel)
    assert "Your orders for turn 0 are in (1 move)" in html
    assert "you may change them and send again" in html
    textarea = re.search(r'<textarea name="moves"[^>]*>(.*?)</textarea>', html, re.S)
    assert textarea and textarea.group(1).strip() == f"{x1} {y1} 1"
    # The opponent's page says nothing of them, nor shows them.
    other = _page(client_for(opponent), duel)
    assert "are in (" not in other and f"{x1} {y1} 1" not in other
    poll = client_for(player).get(reverse("games:match-poll", args=[duel.pk]), {"since": "0"})
    assert poll.status_code == 200 and "are in (1 move)" in poll.content.decode()
    # A pass, sent again, replaces them.
    assert _post(client_for(player), duel, turn=0, moves="").status_code == 302
    assert "are in (a pass)" in _page(client_for(player), duel)


@pytest.mark.parametrize(
    ("moves", "message"),
    [
        ("1 2 up", "Line 1: the direction is 0 to 4 or n, e, s, w"),
        ("\n\n3 4", "Line 3: write a move as three parts"),
        ("99 0 n", "Line 1: (99, 0) is off the map"),
        ("{x} {y} n\n{x} {y} s", "Line 2: ({x}, {y}) was already given a move on line 1."),
        ("{ox} {oy} n", "Line 1: ({ox}, {oy}) holds no piece of yours."),
        ("a b c", "Line 1: x and y are whole numbers"),
    ],
)
def test_bad_moves_are_explained_next_to_the_field_and_change_nothing(duel, player, moves, message):
    x, y = _start(duel, 1)
    ox, oy = _start(duel, 2)
    moves, message = (t.format(x=x, y=y, ox=ox, oy=oy) for t in (moves, message))
    response = _post(client_for(player), duel, turn=0, moves=moves)
    assert response.status_code == 400
    html = response.content.decode()
    field = re.search(r'<div class="form-field hl-moves invalid">.*?</div></div>', html, re.S)
    assert field and message in _text(field.group(0)).replace("“", "").replace("”", "")
    assert not Orders.objects.filter(match=duel, seat=1).exists()
    duel.refresh_from_db()
    assert duel.turn_number == 0


def test_orders_for_a_past_turn_are_refused_next_to_the_field(duel, player, opponent):
    play_turns(duel, 1)
    assert duel.turn_number == 1
    x, y = next(xy for xy, (o, _s) in owned_cells(duel.state).items() if o == 1)
    response = _post(client_for(player), duel, turn=0, moves=f"{x} {y} n")
    assert response.status_code == 409
    assert "turn 0" in _text(response.content.decode())
    assert not Orders.objects.filter(match=duel, turn_number=1).exists()
    assert Resolution.objects.filter(match=duel).count() == 1


def test_the_history_tells_the_turn_in_sentences(duel, player, opponent):
    x1, y1 = _start(duel, 1)
    _post(client_for(player), duel, turn=0, moves=f"{x1} {y1} n")
    _post(client_for(opponent), duel, turn=0, moves="")
    drain(duel, emails=False)
    html = _page(client_for(player), duel)
    assert "Seat 1 moved" in html and f"({x1}, {y1}) north" in html


# --- the rules page -------------------------------------------------------------------------


def test_the_rules_page_gives_the_numbers_of_the_engine():
    response = Client().get("/games/halite/")
    assert response.status_code == 200
    text = _text(response.content.decode())
    assert "How to play Halite" in text
    assert "from 10 to 50 cells each way (30 × 30" in text
    assert "a strength from 0 to 255" in text and "production from 0 to 15" in text
    assert "up to 255" in text and "never above 255" in text
    assert "wraps" in text and "north of the top row is the bottom row" in text
    assert "⌊10 × √(width × height)⌋" in text
    for size, turns in (("10 × 10", 100), ("30 × 30", 300), ("50 × 50", 500)):
        assert f"{size} {turns}" in text
        assert halite_state.max_turns_for(int(size[:2]), int(size[:2])) == turns
    assert "2 to 6 players" in text
    assert "A tie is broken by territory over the whole match" in text
    assert "the last one out first" in text
    for key in ("Seat 5: red cross", "Seat 6: yellow star", "Seat 1: blue circle"):
        assert key in text
    assert 'name="game" value="halite"' in response.content.decode()


# --- the admin, the archive and the player page ---------------------------------------------


@pytest.fixture
def finished(player: Any) -> Match:
    match = halite_match(player, size=10, turn_seconds=60, bots=["grower"])
    play_turns(match, 200)
    assert match.status == Match.Status.FINISHED
    return match


def test_a_finished_match_records_territory_and_its_ending(finished, player):
    final = finished.state
    seat = finished.seats.get(user=player)
    cells = sum(row.count(1) for row in final["owner"])
    assert seat.final_money == cells and seat.won == (1 in final["winners"])
    html = _page(Client(), finished)
    assert "on territory" in html or "the last seat on the map" in html
    replay = Client().get(reverse("games:match-replay-page", args=[finished.pk]))
    assert replay.status_code == 200 and 'class="board halite-board"' in replay.content.decode()


def test_the_archive_and_the_player_page_list_halite(finished, player):
    response = Client().get(reverse("games:archive"), {"game": HALITE})
    assert [m.pk for m in response.context["page"].object_list] == [finished.pk]
    assert '<option value="halite" selected>' in response.content.decode()
    page = Client().get(reverse("games:player", args=[player.username]))
    by_game = {g.ruleset: g.record for g in page.context["by_game"]}
    assert by_game[HALITE].played == 1
    found = re.search(
        r"<section class=\"game-record\" data-game=\"halite\".*?</section>",
        page.content.decode(),
        re.S,
    )
    assert found and "Halite" in found.group(0) and "Cells held at the end (best)" in found.group(0)


def test_the_admin_filters_halite_matches(admin_client, player):
    made = halite_match(player, size=10)
    url = reverse("admin:games_match_changelist")
    html = admin_client.get(url).content.decode()
    assert "?ruleset=halite" in html and ">Halite</a>" in html
    listed = admin_client.get(url, {"ruleset": HALITE}).context["cl"].result_list
    assert [m.pk for m in listed] == [made.pk]
    change = admin_client.get(reverse("admin:games_match_change", args=[made.pk]))
    assert change.status_code == 200


# --- a big map's page -------------------------------------------------------------------------

PAGE_LIMIT = 150 * 1024


def _every_cell_owned(state: dict[str, Any]) -> dict[str, Any]:
    """The state with every cell held by one of its seats, in bands (a late match)."""
    width, height, seats = state["width"], state["height"], state["seats"]
    owner = [[1 + (x * seats) // width for x in range(width)] for _y in range(height)]
    strength = [[(x * 7 + y * 13) % 256 for x in range(width)] for y in range(height)]
    counts = {str(s): sum(row.count(s) for row in owner) for s in range(1, seats + 1)}
    return {
        **state,
        "owner": owner,
        "strength": strength,
        "scores": counts,
        "territory_total": {s: state["territory_total"][s] + n for s, n in counts.items()},
    }


def test_the_page_of_a_50_by_50_six_seat_match_weighs_under_150_kb_compressed(player):
    match = halite_match(player, size=50, seat_count=6, bots=["grower"] * 5)
    assert match.options == {"width": 50, "height": 50}
    play_turns(match, 12)  # a history of full turns below the board
    assert match.turn_number == 12
    html = _page(client_for(player), match)
    assert len(pieces(html)) == len(owned_cells(match.state))
    # The worst case: every cell of the map held, so every cell is a piece.
    full = _every_cell_owned(match.state)
    engine.view(full, 1)  # a state the engine takes
    Match.objects.filter(pk=match.pk).update(state=full)
    from django.core.cache import cache, caches

    cache.clear()
    caches["pages"].clear()
    response = client_for(player).get(reverse("games:match-detail", args=[match.pk]))
    body = response.content
    drawn = pieces(body.decode())
    assert len(drawn) == full["width"] * full["height"]
    compressed = len(gzip.compress(body, compresslevel=6))
    assert compressed < PAGE_LIMIT, f"{compressed} bytes compressed ({len(body)} raw)"


# --- seat colours for seats past four ----------------------------------------------------------


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_seats_five_to_eight_have_colours_as_distinct_as_the_first_four(theme):
    tokens = themes()[theme]
    light = themes()["light"]
    colour = {s: tokens.get(f"seat-{s}", light[f"seat-{s}"]) for s in range(1, 9)}
    floor = min(contrast(colour[s], tokens["surface"]) for s in range(1, 5))
    for seat in range(5, 9):
        assert contrast(colour[seat], tokens["surface"]) >= floor, (theme, seat, colour[seat])
    assert len(set(colour.values())) == 8


# --- emails in turns at once ---------------------------------------------------------------------


def _reminders(user: Any) -> list[Any]:
    return [
        m
        for m in mail.outbox
        if user.email in m.to
        and ("Your turn in match" in m.subject or "of your time is left" in m.subject)
    ]


def test_a_player_on_the_page_gets_no_your_turn_email_however_fast_the_turns(player):
    match = halite_match(player, turn_seconds=60)
    client = client_for(player)
    for _ in range(10):
        client.get(reverse("games:match-detail", args=[match.pk]))  # the player is there
        x, y = next(xy for xy, (o, _s) in owned_cells(match.state).items() if o == 1)
        assert _post(client, match, turn=match.turn_number, moves=f"{x} {y} 0").status_code == 302
        drain(match, emails=False)
        client.get(reverse("games:match-detail", args=[match.pk]))
        drain(match)  # every email due, as if its delay had passed
    assert match.turn_number == 10
    assert _reminders(player) == []
    rows = Notification.objects.filter(user=player, kind=NotificationKind.YOUR_TURN)
    assert rows.count() <= 11 and not rows.filter(status=Notification.Status.SENT).exists()


def test_a_seat_played_through_the_api_gets_no_email(player):
    match = halite_match(player, turn_seconds=60)
    for _ in range(10):
        services.orders_submit(
            match_id=match.pk, user=player, turn=match.turn_number, orders={"moves": []}, api=True
        )
        drain(match)
    assert match.turn_number == 10 and _reminders(player) == []
    assert (
        not Notification.objects.filter(user=player, kind=NotificationKind.YOUR_TURN)
        .exclude(turn_number=0)
        .exists()
    )


def test_a_match_of_bots_sends_no_email(player):
    match = halite_match(player, bots=["grower", "random"], turn_seconds=60)
    play_turns(match, 30, emails=True)
    assert match.turn_number == 30 or match.status == Match.Status.FINISHED
    assert mail.outbox == [] and not Notification.objects.exists()


def test_a_player_away_is_reminded_once_not_every_turn(player):
    # 20 x 20: on some 10 x 10 maps the grower bot takes all the player's ground in two
    # turns, and the match ends before the third.
    match = halite_match(player, turn_seconds=60, size=20)
    mail.outbox.clear()
    for _ in range(3):  # three turns missed in a row hand the seat to a bot
        turn = Turn.objects.get(match=match, number=match.turn_number)
        services.clock_sweep(now=turn.deadline_at - timedelta(seconds=10))  # the warning
        drain(match)
        services.clock_sweep(now=turn.deadline_at + timedelta(seconds=1))  # passed
        drain(match)
    assert match.turn_number >= 3
    reminders = _reminders(player)
    rows = list(Notification.objects.values_list("kind", "turn_number", "status"))
    assert len(reminders) == 1, ([m.subject for m in reminders], rows)
    # Every turn had its rows, at most one of a kind (the unique row), all but one skipped.
    per_turn = Notification.objects.filter(user=player, kind__in=["your_turn", "deadline_warning"])
    assert per_turn.count() == len(set(per_turn.values_list("kind", "turn_number")))
    assert per_turn.filter(status=Notification.Status.SENT).count() == 1
    assert any("bot" in m.subject.lower() for m in mail.outbox if player.email in m.to)


def test_coming_back_to_the_page_allows_one_more_reminder(player):
    match = halite_match(player, turn_seconds=60)
    turn = Turn.objects.get(match=match, number=0)
    services.clock_sweep(now=turn.deadline_at + timedelta(seconds=1))
    drain(match)
    assert len(_reminders(player)) == 1
    client_for(player).get(reverse("games:match-detail", args=[match.pk]))  # back, then away
    turn = Turn.objects.get(match=match, number=1)
    services.clock_sweep(now=turn.deadline_at + timedelta(seconds=1))
    drain(match)
    assert len(_reminders(player)) == 2


def test_the_your_turn_email_tells_only_the_last_turn_in_short_sentences(player):
    match = halite_match(player, turn_seconds=60)
    for _ in range(5):  # the player plays, then goes away
        services.orders_submit(
            match_id=match.pk, user=player, turn=match.turn_number, orders={"moves": []}
        )
        drain(match, emails=False)
    mail.outbox.clear()
    drain(match)  # the "Your turn" of turn 5, due as if its delay had passed
    [email] = _reminders(player)
    assert "Your turn in match" in email.subject and "(turn 5)" in email.subject
    assert "Turn 4:" in email.body and "Turn 3:" not in email.body
    # The seat's copy of the turn (the engine records it grouped, the email tells it
    # piece by piece), every line of it and nothing else under "Turn 4:".
    copy = engine.events_view(
        Resolution.objects.get(match=match, turn_number=4).events, 1, ruleset=HALITE
    )
    told = presentation.get(HALITE).sentences(copy)
    after = email.body.split("Turn 4:", 1)[1].splitlines()[1:]
    listed = [line for line in itertools.takewhile(lambda line: line.startswith("- "), after)]
    assert listed == [f"- {line}" for line in told]


def test_the_history_tells_halites_turns_without_the_engines_timings(duel, player):
    """A Halite turn has no battle clock: "800 ms" (the animation's length) says nothing
    to its players."""
    play_turns(duel, 3)
    html = _page(client_for(player), duel)
    history = re.search(r'<section id="history".*?</section>', html, re.S).group(0)
    assert "Turn 2" in history and "Turn 0" in history
    assert not re.search(r"\d\s*ms\b", _text(history))
