"""One way of writing a number ("10,198"), a bot ("bot fighter") and a duration
("5 minutes", never "300000 ms") in the pages, the emails and the admin; and the
emails' words: "Match over" names the players and says where you came."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core import mail
from django.urls import reverse
from site_support import client_for, drain
from test_results import final_state, finished_match

from games import services, words
from games.models import Match, Notification, NotificationKind
from games.services.notifications import notification_send
from games.services.rematch import match_rematch

# --- the helpers -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "text"),
    [(10198, "10,198"), (-4100, "-4,100"), (7, "7"), (1_000_000.0, "1,000,000"), (2.5, "2.5")],
)
def test_a_number_is_written_with_its_thousands_separated(value, text):
    assert words.number(value) == text


def test_what_is_not_a_number_is_written_as_it_is():
    assert words.number("?") == "?" and words.number(None) == "None"
    assert words.number(True) == "True"


@pytest.mark.parametrize(
    ("ms", "text"),
    [
        (300_000, "5 minutes"),
        (10_400, "10.4 seconds"),
        (1_000, "1 second"),
        (500, "0.5 seconds"),
        (0, "0 seconds"),
        (90_000, "1 minute 30 seconds"),
        (3_600_000, "1 hour"),
    ],
)
def test_a_duration_in_milliseconds_reads_in_minutes_and_seconds(ms, text):
    assert words.ms_words(ms) == text


def test_a_bot_is_named_one_way():
    assert words.bot_label("fighter") == "bot fighter"


# --- emails ----------------------------------------------------------------------


def _over_email(match: Match, user: Any) -> mail.EmailMultiAlternatives:
    row = services.notify(user=user, match=match, kind=NotificationKind.MATCH_OVER, turn_number=80)
    assert notification_send(notification_id=row.pk) is True
    [message] = [m for m in mail.outbox if m.to == [user.email]]
    return message


def test_match_over_names_the_players_says_where_you_came_and_separates_thousands(
    player, opponent, mailoutbox
):
    state = final_state({1: 300, 2: 10_198, 3: 980, 4: 50}, {1: 2, 2: 1, 3: 4, 4: 5}, [2])
    match = finished_match(state, {1: player, 2: opponent, 3: "miner", 4: "fighter"})

    message = _over_email(match, player)
    text, html = message.body, message.alternatives[0][0]

    assert "is over after 80 turns: you came 3rd." in text
    assert "Seat 2 (bob) won on money: 10,198" in text
    assert "1st: seat 2 (bob), money 10,198" in text
    assert "3rd: seat 1 (alice, you), money 300" in text
    assert "seat 3 (bot miner)" in text and "seat 4 (bot fighter)" in text
    assert "10198" not in text and "10198" not in html
    assert "you came 3rd" in html and "bot fighter" in html and "10,198" in html


def test_match_over_tells_the_winner_they_won(player, opponent, mailoutbox):
    state = final_state({1: 300, 2: 10_198, 3: 980, 4: 50}, {1: 2, 2: 1, 3: 4, 4: 5}, [2])
    match = finished_match(state, {1: player, 2: opponent, 3: "miner", 4: "fighter"})
    assert "is over after 80 turns: you won." in _over_email(match, opponent).body


def test_play_now_mails_no_match_started_to_the_player_who_pressed_it(player, mailoutbox):
    client_for(player).post(reverse("games:match-play-now"))
    match = Match.objects.get()
    drain(match)
    assert not Notification.objects.filter(kind=NotificationKind.MATCH_STARTED).exists()
    assert not [m for m in mailoutbox if "has started" in m.subject]


def test_a_match_started_by_the_last_join_is_mailed_to_the_others_only(
    open_match, player, opponent, mailoutbox
):
    services.seat_join(match_id=open_match.pk, user=opponent)
    drain(open_match)
    started = [m.to for m in mailoutbox if "has started" in m.subject]
    assert started == [[player.email]]


def test_a_rematch_against_bots_mails_no_match_started_to_who_asked_for_it(player, mailoutbox):
    state = final_state({1: 300, 3: 980}, {1: 2, 3: 4}, [3])
    old = finished_match(state, {1: player, 3: "miner"})
    rematch = match_rematch(match_id=old.pk, user=player)
    assert rematch.status == Match.Status.RUNNING
    drain(rematch)
    assert not Notification.objects.filter(kind=NotificationKind.MATCH_STARTED).exists()


# --- bots ------------------------------------------------------------------------


def test_a_bot_is_named_the_same_way_on_the_lobby_card_the_match_page_and_the_results(
    player, opponent
):
    state = final_state({1: 300, 2: 10_198, 3: 980, 4: 50}, {1: 2, 2: 1, 3: 4, 4: 5}, [2])
    finished = finished_match(state, {1: player, 2: opponent, 3: "miner", 4: "fighter"})
    running = services.match_create(creator=player, seat_count=2, bots=["fighter"])
    alice = client_for(player)

    lobby = alice.get(reverse("games:lobby")).content.decode()
    running_page = alice.get(reverse("games:match-detail", args=[running.pk])).content.decode()
    finished_page = alice.get(reverse("games:match-detail", args=[finished.pk])).content.decode()

    for page in (lobby, running_page, finished_page):
        assert "bot fighter" in page
        assert "bot: " not in page
    assert "10,198" in finished_page


def test_a_stand_in_bot_is_named_as_a_seat_bot_is(running_match, player, mailoutbox):
    seat = running_match.seats.get(user=player)
    seat.standin_bot = "fighter"
    seat.missed_in_row = 3
    seat.save()
    assert seat.label == "alice (played by bot fighter)"
    page = client_for(player).get(reverse("games:match-detail", args=[running_match.pk]))
    assert "so bot fighter plays your seat" in page.content.decode()
    row = services.notify(
        user=player,
        match=running_match,
        kind=NotificationKind.SEAT_TO_BOT,
        context={"missed": 3, "bot": "fighter"},
    )
    assert notification_send(notification_id=row.pk) is True
    [told] = [m for m in mailoutbox if "bot now plays" in m.subject]
    assert "so bot fighter, a built-in bot, plays your seat" in told.body
    assert "bot fighter" in told.alternatives[0][0]


# --- the admin -------------------------------------------------------------------


@pytest.fixture
def staff(admin_user):
    from django.test import Client

    client = Client()
    client.force_login(admin_user)
    return client


def test_the_admin_writes_times_in_words_and_winners_and_scores_by_name(staff, player, opponent):
    state = final_state({1: 300, 2: 10_198, 3: 980, 4: 50}, {1: 2, 2: 1, 3: 4, 4: 5}, [2])
    match = finished_match(
        state, {1: player, 2: opponent, 3: "miner", 4: "fighter"}, turn_seconds=86_400
    )
    Match.objects.filter(pk=match.pk).update(
        length_ms=300_000, final_money={"1": 300, "2": 10_198, "3": 980, "4": 50}
    )

    page = staff.get(reverse("admin:games_match_change", args=[match.pk])).content.decode()

    shown = re.findall(r'<div class="readonly">([^<]*)</div>', page)
    assert "1 day" in shown and "86400" not in shown
    assert "5 minutes" in shown and "300000" not in shown
    assert "seat 2 (bob)" in shown and "[2]" not in shown
    assert (
        "seat 1 (alice): 300; seat 2 (bob): 10,198; seat 3 (bot miner): 980; "
        + ("seat 4 (bot fighter): 50")
        in shown
    )
    listing = staff.get(reverse("admin:games_match_changelist")).content.decode()
    assert "1 day" in listing


def test_the_admin_folds_a_matchs_turns_away_and_lists_only_the_latest(staff, running_match):
    from games.models import Turn

    start = timezone_now()
    Turn.objects.bulk_create(
        Turn(match=running_match, number=n, seat=1, started_at=start, status="resolved")
        for n in range(1, 60)
    )
    Match.objects.filter(pk=running_match.pk).update(turn_number=59)

    response = staff.get(reverse("admin:games_match_change", args=[running_match.pk]))
    page = response.content.decode()

    [turns] = [f for f in response.context["inline_admin_formsets"] if f.opts.model is Turn]
    numbers = [form.original.number for form in turns]
    assert numbers == list(range(59, 39, -1))
    assert "Turns (the latest 20)" in page
    assert 'class="collapse' in page or "collapse" in turns.classes


def test_the_admin_writes_a_turns_length_in_seconds(staff, running_match):
    from games.models import Resolution

    Resolution.objects.create(
        match=running_match, turn_number=1, seat=1, turn_ms=10_400, events=[], orders=[], state={}
    )
    page = staff.get(reverse("admin:games_resolution_changelist")).content.decode()
    assert "10.4 seconds" in page and "10400" not in page


def timezone_now():
    from django.utils import timezone

    return timezone.now()


def test_a_match_card_says_its_battle_length_in_minutes_and_seconds(player):
    match = services.match_create(creator=player, seat_count=2, length_ms=90_000)
    lobby = client_for(player).get(reverse("games:lobby")).content.decode()
    card = lobby[lobby.index(f"Match {match.pk}<") :]
    assert "1 minute 30 seconds battle" in card[: card.index("</article>")]


# --- the remake's vehicles ---------------------------------------------------------


def _visible_text(html: str) -> str:
    html = re.sub(r"<script.*?</script>|<style.*?</style>", "", html, flags=re.S)
    # The orders' JSON example speaks the protocol ("robot" is its field's name).
    html = re.sub(r"For example \[.*?\]", "", html, flags=re.S)
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def test_the_remakes_match_page_says_vehicle_where_its_rules_do(player):
    match = services.match_create(
        creator=player, seat_count=2, bots=["random"], ruleset="helium3-remake"
    )
    html = client_for(player).get(reverse("games:match-detail", args=[match.pk])).content.decode()
    text = _visible_text(html)

    assert "Your vehicles" in text and "Choose one of your vehicles on the board" in text
    assert re.search(r'<th scope="col">Vehicles</th>', html)
    assert 'data-piece="vehicle"' in html  # the board script's word
    assert 'aria-label="Actions for the chosen vehicle"' in html
    # The match itself (board, planner, panel, orders, history) never says robot; the
    # site's frame around it may name its robot games.
    own = _visible_text(html[html.index('id="match"') : html.index("<footer")])
    assert "Vehicle" in own and not re.search(r"[Rr]obot", own), own


def test_helium_3s_match_page_still_says_robot(player):
    match = services.match_create(creator=player, seat_count=2, bots=["random"])
    html = client_for(player).get(reverse("games:match-detail", args=[match.pk])).content.decode()
    assert "Your robots" in _visible_text(html) and 'data-piece="robot"' in html


def test_the_remakes_results_count_vehicles():
    from games.records import record_text
    from games.templatetags.match_results import ResultRow

    counts = {"money": 300, "mined": 12_500, "vehicles_destroyed": 1, "vehicles_lost": 3}
    row = ResultRow(
        place="1st",
        seat=1,
        name="alice",
        won=True,
        me=True,
        money="300",
        robots_left=2,
        counts=record_text("helium3-remake", counts, scores=False),
        piece="vehicle",
    )
    assert row.detail == (
        "2 vehicles left · 12,500 helium mined · 1 vehicle destroyed · 3 vehicles lost"
    )


# --- numbers on the pages ------------------------------------------------------------


def test_the_match_pages_table_and_the_replay_page_write_money_with_separators(player, opponent):
    state = final_state({1: 300, 2: 10_198, 3: 980, 4: 50}, {1: 2, 2: 1, 3: 4, 4: 5}, [2])
    match = finished_match(state, {1: player, 2: opponent, 3: "miner", 4: "fighter"})
    alice = client_for(player)

    page = alice.get(reverse("games:match-detail", args=[match.pk])).content.decode()
    replay = alice.get(reverse("games:match-replay-page", args=[match.pk])).content.decode()

    assert '<td class="num money">10,198</td>' in page
    assert "10198" not in _visible_text(page)
    assert "seat 2 10,198" in _visible_text(replay)
    assert "10198" not in _visible_text(replay)


def test_the_turns_told_in_words_write_helium_with_separators():
    from games.play.helium3.sentences import describe_events

    lines = describe_events(
        [
            {"type": "mined", "robot": "1-5", "seat": 1, "amount": 1750, "t_ms": 0},
            {"type": "destroyed", "robot": "2-1", "seat": 2, "dropped": 4100, "t_ms": 10},
        ]
    )
    assert "mined 1,750 helium" in lines[0]
    assert "dropping 4,100 helium" in lines[1]


def test_a_player_page_writes_money_with_separators(player, opponent):
    state = final_state({1: 300, 2: 10_198, 3: 980, 4: 50}, {1: 2, 2: 1, 3: 4, 4: 5}, [2])
    finished_match(state, {1: player, 2: opponent, 3: "miner", 4: "fighter"})
    page = client_for(player).get(reverse("games:player", args=["bob"])).content.decode()
    assert "10,198" in page and "10198" not in _visible_text(page)
