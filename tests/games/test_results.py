"""The end of a match as players read it: places and what decided it, the results
table on the match page, "You came 3rd" in the lists, the rematch, and a battle
clock that never reads past its length."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from game_factories import UserFactory
from site_support import client_for, drain

import engine
from games import services
from games.models import Match, Seat
from games.records import (
    battle_clock_text,
    decided_by,
    ordinal,
    result_phrase,
    standings,
    winner_phrase,
)

# --- pure wording --------------------------------------------------------------


def final_state(
    money: dict[int, int],
    left: dict[int, int],
    winners: list[int],
    *,
    termination: str = "clock",
    clock_ms: int = 604_000,
    length_ms: int = 600_000,
) -> dict[str, Any]:
    """A finished state the engine reads: `money` and robots `left` per seat."""
    state = engine.new_game(seed=7, seats=len(money), length_ms=length_ms)
    assert sorted(p["seat"] for p in state["players"]) == sorted(money)
    for player in state["players"]:
        player["money"] = money[player["seat"]]
    alive: dict[int, int] = {}
    for robot in state["robots"]:
        alive[robot["seat"]] = alive.get(robot["seat"], 0) + 1
        robot["alive"] = alive[robot["seat"]] <= left[robot["seat"]]
    state.update(
        over=True,
        to_move=None,
        winners=winners,
        termination=termination,
        clock_ms=clock_ms,
        turn=80,
    )
    engine.view(state, None)  # the engine takes it
    return state


def places(state: dict[str, Any]) -> dict[int, tuple[int, bool]]:
    return {s.seat: (s.place, s.tied) for s in standings(state)}


def test_places_go_by_money_among_seats_with_robots_left():
    state = final_state({1: 300, 2: 1240, 3: 980, 4: 50}, {1: 2, 2: 1, 3: 4, 4: 5}, [2])
    assert places(state) == {2: (1, False), 3: (2, False), 1: (3, False), 4: (4, False)}
    assert [s.seat for s in standings(state)] == [2, 3, 1, 4]


def test_a_seat_without_robots_comes_after_every_seat_with_robots_whatever_its_money():
    state = final_state({1: 1500, 2: 1240, 3: 980, 4: 50}, {1: 0, 2: 1, 3: 4, 4: 5}, [2])
    assert places(state) == {2: (1, False), 3: (2, False), 4: (3, False), 1: (4, False)}


def test_equal_seats_share_a_place_and_the_next_place_is_skipped():
    state = final_state({1: 900, 2: 900, 3: 400, 4: 400}, {1: 1, 2: 3, 3: 2, 4: 2}, [1, 2])
    assert places(state) == {1: (1, True), 2: (1, True), 3: (3, True), 4: (3, True)}


@pytest.mark.parametrize(
    ("n", "text"),
    [(1, "1st"), (2, "2nd"), (3, "3rd"), (4, "4th"), (11, "11th"), (12, "12th"), (21, "21st")],
)
def test_ordinals(n, text):
    assert ordinal(n) == text


def test_result_phrases_for_a_win_a_shared_win_a_place_and_a_shared_place():
    state = final_state({1: 900, 2: 900, 3: 400, 4: 400}, {1: 1, 2: 3, 3: 2, 4: 2}, [1, 2])
    by_seat = {s.seat: s for s in standings(state)}
    assert result_phrase(by_seat[1], nobody_won=False) == "You drew 1st"
    assert result_phrase(by_seat[3], nobody_won=False, subject="bob") == "bob drew 3rd"
    state = final_state({1: 300, 2: 1240, 3: 980, 4: 50}, {1: 2, 2: 1, 3: 4, 4: 5}, [2])
    by_seat = {s.seat: s for s in standings(state)}
    assert result_phrase(by_seat[2], nobody_won=False) == "You won"
    assert result_phrase(by_seat[3], nobody_won=False) == "You came 2nd"
    assert result_phrase(by_seat[1], nobody_won=False) == "You came 3rd"
    assert result_phrase(by_seat[4], nobody_won=False, subject="alice") == "alice came 4th"


def test_when_nobody_won_places_are_by_money_and_say_so():
    state = final_state(
        {1: 700, 2: 200, 3: 0, 4: 900},
        {1: 0, 2: 0, 3: 0, 4: 0},
        [],
        termination="elimination",
        clock_ms=312_500,
    )
    by_seat = {s.seat: s for s in standings(state)}
    assert result_phrase(by_seat[1], nobody_won=True) == "Nobody won (you came 2nd on money)"
    assert decided_by(state) == "Nobody won: no seat had robots left at 5:12 of the battle clock."
    assert winner_phrase(state) == "Nobody won"


def test_a_money_win_says_by_how_much_when_the_clock_ran_out():
    state = final_state({1: 300, 2: 1240, 3: 980, 4: 50}, {1: 2, 2: 1, 3: 4, 4: 5}, [2])
    assert decided_by(state, {2: "alice", 3: "bot miner"}) == (
        "Seat 2 (alice) won on money: 1,240 to 980 when the battle clock ran out."
    )
    assert winner_phrase(state, {2: "alice"}) == "Seat 2 (alice) won"


def test_a_money_win_names_a_richer_seat_that_had_no_robots_left():
    state = final_state({1: 1500, 2: 1240, 3: 980, 4: 50}, {1: 0, 2: 1, 3: 4, 4: 5}, [2])
    assert decided_by(state) == (
        "Seat 2 won on money: 1,240 to 980 when the battle clock ran out."
        " Seat 1 had more money but no robots left."
    )


def test_a_shared_win_on_money():
    state = final_state({1: 900, 2: 900, 3: 400, 4: 400}, {1: 1, 2: 3, 3: 2, 4: 2}, [1, 2])
    assert decided_by(state) == (
        "Seats 1 and 2 shared the win on money: 900 each to 400 when the battle clock ran out."
    )
    assert winner_phrase(state) == "Seats 1 and 2 shared the win"


def test_the_last_seat_with_robots_left_wins_whatever_the_money():
    state = final_state(
        {1: 100, 3: 2000}, {1: 2, 3: 0}, [1], termination="elimination", clock_ms=431_000
    )
    assert places(state) == {1: (1, False), 3: (2, False)}
    assert decided_by(state, {1: "alice"}) == (
        "Seat 1 (alice) won as the last seat with robots left (2 robots), "
        "at 7:11 of the battle clock."
    )


@pytest.mark.parametrize(
    ("clock", "length", "text"),
    [
        (0, 600_000, "0:00 of 10:00"),
        (252_000, 600_000, "4:12 of 10:00"),
        (600_000, 600_000, "10:00 of 10:00"),
        (600_400, 600_000, "10:00 of 10:00"),
        (604_200, 600_000, "10:00 of 10:00 · the last turn ran 0:04 past the end"),
        (65_000, 60_000, "1:00 of 1:00 · the last turn ran 0:05 past the end"),
    ],
)
def test_the_battle_clock_never_reads_past_its_length(clock, length, text):
    assert battle_clock_text(clock, length) == text


def test_an_open_match_has_no_battle_clock_yet_and_its_poll_answers():
    """An open match has no board: its panel's clock is empty, never an error."""
    from games.templatetags.match_results import battle_clock

    assert battle_clock("", "") == ""
    assert battle_clock(None, 600_000) == ""


@pytest.mark.django_db
def test_the_poll_of_an_open_match_answers_without_a_clock():
    alice = UserFactory(username="alice")
    match = services.match_create(creator=alice, seat_count=2)
    response = client_for(alice).get(
        reverse("games:match-poll", args=[match.pk]) + "?v=stale&since=0",
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code in (200, 204, 304)


# --- pages ---------------------------------------------------------------------


def finished_match(
    state: dict[str, Any],
    seats: dict[int, Any],
    *,
    destroyed: dict[int, int] | None = None,
    public: bool = True,
    **settings: Any,
) -> Match:
    """A finished match in `state`; `seats` maps a seat number to a user or a bot name."""
    match = Match.objects.create(
        seat_count=len(seats),
        status=Match.Status.FINISHED,
        seed=7,
        state=state,
        initial_state=state,
        turn_number=state["turn"],
        winners=state["winners"],
        length_ms=state["length_ms"],
        finished_at=timezone.now(),
        public=public,
        **settings,
    )
    destroyed = destroyed or {}
    for number, who in seats.items():
        robots = [r for r in state["robots"] if r["seat"] == number]
        Seat.objects.create(
            match=match,
            number=number,
            user=None if isinstance(who, str) else who,
            bot=who if isinstance(who, str) else "",
            won=number in state["winners"],
            final_money=next(p["money"] for p in state["players"] if p["seat"] == number),
            counts={
                "money": next(p["money"] for p in state["players"] if p["seat"] == number),
                "mined": 10 * number,
                "robots_destroyed": destroyed.get(number, 0),
                "robots_lost": sum(1 for r in robots if not r["alive"]),
            },
        )
    return match


@pytest.fixture
def money_win(player: Any, opponent: Any) -> Match:
    """Alice (seat 1) 3rd, Bob (seat 2) wins on money, two bots."""
    state = final_state({1: 300, 2: 1240, 3: 980, 4: 50}, {1: 2, 2: 1, 3: 4, 4: 5}, [2])
    return finished_match(
        state,
        {1: player, 2: opponent, 3: "miner", 4: "random"},
        destroyed={2: 3, 3: 1},
        turn_seconds=600,
        title="Friday night",
    )


def _results_rows(html: str) -> list[list[str]]:
    """The results table's rows, each cell as its text (tags out, spaces squeezed)."""
    table = html.split('<table class="results">', 1)[1].split("</table>", 1)[0]
    body = table.split("<tbody>", 1)[1]
    rows = []
    for row in body.split("<tr")[1:]:
        cells = [c.split("</td>")[0].split(">", 1)[1] for c in row.split("<td")[1:]]
        rows.append([" ".join(re.sub(r"<[^>]*>", " ", c).split()) for c in cells])
    return rows


def test_the_finished_match_page_shows_places_money_robots_and_the_deciding_sentence(
    money_win, player
):
    html = client_for(player).get(reverse("games:match-detail", args=[money_win.pk])).text
    assert "The match is over." in html
    assert "You came 3rd." in html
    assert "Seat 2 (bob) won on money: 1,240 to 980 when the battle clock ran out." in html
    rows = _results_rows(html)
    assert rows == [
        [
            "1st (winner)",
            "Seat 2 bob 1 robot left · 20 helium mined · 3 robots destroyed · 4 robots lost",
            "1,240",
        ],
        [
            "2nd",
            "Seat 3 bot miner 4 robots left · 30 helium mined · 1 robot destroyed · 1 robot lost",
            "980",
        ],
        [
            "3rd",
            "Seat 1 alice (you) 2 robots left · 10 helium mined · 0 robots destroyed · "
            "3 robots lost",
            "300",
        ],
        [
            "4th",
            "Seat 4 bot random 5 robots left · 40 helium mined · 0 robots destroyed · "
            "0 robots lost",
            "50",
        ],
    ]


def test_a_spectator_sees_the_results_without_a_rematch_button(money_win, spectator):
    html = client_for(spectator).get(reverse("games:match-detail", args=[money_win.pk])).text
    assert "Seat 2 (bob) won on money" in html
    assert "You came" not in html and "You won" not in html
    assert reverse("games:match-rematch", args=[money_win.pk]) not in html
    assert "New match" in html


def test_the_page_of_a_last_seat_standing_win_says_so(player):
    state = final_state(
        {1: 100, 3: 2000}, {1: 2, 3: 0}, [1], termination="elimination", clock_ms=431_000
    )
    match = finished_match(state, {1: player, 3: "fighter"})
    html = client_for(player).get(reverse("games:match-detail", args=[match.pk])).text
    assert "You won." in html
    assert (
        "Seat 1 (alice) won as the last seat with robots left (2 robots), "
        "at 7:11 of the battle clock." in html
    )
    assert "7:11 of 10:00" in html


def test_the_match_page_clock_says_the_last_turn_ran_past_the_end(money_win, player):
    html = client_for(player).get(reverse("games:match-detail", args=[money_win.pk])).text
    assert "10:00 of 10:00 · the last turn ran 0:04 past the end" in html
    assert "10:04 of 10:00" not in html


def test_a_real_match_played_to_its_end_shows_its_results(player):
    match = services.match_create(
        creator=player, seat_count=2, bots=["random"], length_ms=2000, turn_seconds=60
    )
    for _ in range(500):  # the player passes, the bot plays, until the clock runs out
        drain(match, emails=False)
        if match.status == Match.Status.FINISHED:
            break
        services.orders_submit(match_id=match.pk, user=player, turn=match.turn_number, actions=[])
    assert match.status == Match.Status.FINISHED
    html = client_for(player).get(reverse("games:match-detail", args=[match.pk])).text
    decided = decided_by(match.state, {1: "alice", 3: "bot random"})
    assert decided in html
    assert len(_results_rows(html)) == 2
    mine = next(s for s in standings(match.state) if s.seat == 1)
    nobody = not match.state["winners"]
    assert result_phrase(mine, nobody_won=nobody) + "." in html


# --- rematch -------------------------------------------------------------------


def test_a_rematch_against_bots_keeps_seats_bots_and_settings_and_starts_from_a_new_seed(
    player,
):
    state = final_state({1: 900, 2: 300, 3: 200, 4: 100}, {1: 1, 2: 2, 3: 3, 4: 4}, [1])
    old = finished_match(
        state,
        {1: "miner", 2: player, 3: "fighter", 4: "random"},
        turn_seconds=900,
        title="Duel",
        public=False,
    )
    response = client_for(player).post(reverse("games:match-rematch", args=[old.pk]))
    new = Match.objects.exclude(pk=old.pk).get()
    assert response.status_code == 302
    assert response["Location"] == reverse("games:match-detail", args=[new.pk])
    assert new.status == Match.Status.RUNNING and new.seed is not None
    assert (new.seat_count, new.turn_seconds, new.length_ms, new.public, new.title) == (
        4,
        900,
        600_000,
        False,
        "Duel",
    )
    assert new.created_by == player
    seats = {s.number: (s.user, s.bot) for s in new.seats.all()}
    assert seats == {1: (None, "miner"), 2: (player, ""), 3: (None, "fighter"), 4: (None, "random")}


def test_a_rematch_with_other_people_seats_the_asker_and_leaves_their_seats_open(
    money_win, player, opponent
):
    client = client_for(opponent)
    response = client.post(reverse("games:match-rematch", args=[money_win.pk]))
    new = Match.objects.exclude(pk=money_win.pk).get()
    assert response["Location"] == reverse("games:match-detail", args=[new.pk])
    assert new.status == Match.Status.OPEN and new.seed is None
    seats = {s.number: (s.user, s.bot) for s in new.seats.all()}
    assert seats == {1: (None, ""), 2: (opponent, ""), 3: (None, "miner"), 4: (None, "random")}
    html = client.get(response["Location"]).text
    assert "it starts when the other players" in html
    # The other player joins and the rematch starts.
    services.seat_join(match_id=new.pk, user=player)
    new.refresh_from_db()
    assert new.status == Match.Status.RUNNING
    assert Seat.objects.get(match=new, user=player).number == 1


def test_the_second_player_to_ask_joins_the_first_ones_rematch_and_it_starts(
    money_win, player, opponent
):
    url = reverse("games:match-rematch", args=[money_win.pk])
    first = client_for(opponent).post(url)
    second = client_for(player).post(url)
    assert second["Location"] == first["Location"]
    new = Match.objects.exclude(pk=money_win.pk).get()
    assert new.status == Match.Status.RUNNING
    seats = {s.number: (s.user, s.bot) for s in new.seats.all()}
    assert seats == {1: (player, ""), 2: (opponent, ""), 3: (None, "miner"), 4: (None, "random")}


def test_asking_twice_gives_the_same_rematch(player):
    state = final_state({1: 900, 3: 300}, {1: 1, 3: 2}, [1])
    old = finished_match(state, {1: player, 3: "miner"})
    client = client_for(player)
    page = client.get(reverse("games:match-detail", args=[old.pk])).text
    assert "the same settings and bots, a new map, you in seat 1 again" in page
    assert "It starts at once." in page
    url = reverse("games:match-rematch", args=[old.pk])
    assert client.post(url)["Location"] == client.post(url)["Location"]
    assert Match.objects.count() == 2


def test_a_match_made_before_the_old_one_ended_or_with_other_bots_is_no_rematch(money_win, player):
    # Alice sits in both, and both have the old match's settings.
    before = services.match_create(creator=player, seat_count=4, bots=["", "miner", "random"])
    Match.objects.filter(pk=before.pk).update(turn_seconds=600, title="Friday night")
    Match.objects.filter(pk=money_win.pk).update(finished_at=timezone.now())
    other_bots = services.match_create(
        creator=player, seat_count=4, turn_seconds=600, title="Friday night", bots=["", "fighter"]
    )
    response = client_for(player).post(reverse("games:match-rematch", args=[money_win.pk]))
    new = Match.objects.exclude(pk__in=[money_win.pk, before.pk, other_bots.pk]).get()
    assert response["Location"] == reverse("games:match-detail", args=[new.pk])
    assert new.seats.get(number=1).user == player


def test_the_page_says_what_a_rematch_does(money_win, player):
    html = client_for(player).get(reverse("games:match-detail", args=[money_win.pk])).text
    assert reverse("games:match-rematch", args=[money_win.pk]) in html
    assert "you in seat 1 again" in html
    assert "The other players' seats (2) stay open" in html


def test_a_guest_gets_a_rematch_against_bots_but_not_one_with_other_people(money_win, player):
    from games.guests.models import Guest

    Guest.objects.create(user=player)
    response = client_for(player).post(reverse("games:match-rematch", args=[money_win.pk]))
    assert response.status_code == 403
    assert "Guests play against bots only." in response.text
    assert Match.objects.count() == 1
    state = final_state({1: 900, 3: 300}, {1: 1, 3: 2}, [1])
    bots_only = finished_match(state, {1: player, 3: "miner"})
    response = client_for(player).post(reverse("games:match-rematch", args=[bots_only.pk]))
    assert response.status_code == 302
    assert Match.objects.count() == 3


def test_a_rematch_is_refused_to_a_non_player_with_a_message(money_win, spectator):
    response = client_for(spectator).post(reverse("games:match-rematch", args=[money_win.pk]))
    assert response.status_code == 403
    assert "Only a player of this match can ask for a rematch." in response.text
    assert Match.objects.count() == 1


def test_a_rematch_is_refused_to_a_visitor_and_on_get(money_win, player):
    url = reverse("games:match-rematch", args=[money_win.pk])
    visitor = Client().post(url)
    assert visitor.status_code == 302 and "login" in visitor["Location"]
    assert client_for(player).get(url).status_code == 405
    assert Match.objects.count() == 1


def test_a_rematch_needs_the_csrf_token(money_win, player):
    client = client_for(player, enforce_csrf_checks=True)
    assert client.post(reverse("games:match-rematch", args=[money_win.pk])).status_code == 403
    assert Match.objects.count() == 1


def test_a_rematch_of_a_running_match_is_refused(running_match, player):
    response = client_for(player).post(reverse("games:match-rematch", args=[running_match.pk]))
    assert response.status_code == 409
    assert "A rematch is for a finished match." in response.text


def test_a_rematch_of_an_unknown_match_is_404(player):
    assert client_for(player).post(reverse("games:match-rematch", args=[999])).status_code == 404


# --- the lists -----------------------------------------------------------------


@pytest.fixture
def four_results(player: Any, opponent: Any) -> dict[str, Match]:
    """Four finished matches, each with alice and bob: alice wins, comes 2nd, comes
    3rd, and shares 1st with bob."""
    carol, dave = UserFactory(username="dora"), UserFactory(username="dave")
    money = {1: 900, 2: 600, 3: 300, 4: 100}
    left = {1: 1, 2: 1, 3: 1, 4: 1}
    order = {
        "won": [player, opponent, carol, dave],
        "2nd": [opponent, player, carol, dave],
        "3rd": [opponent, carol, player, dave],
    }
    matches = {
        key: finished_match(
            final_state(money, left, [1]), dict(zip((1, 2, 3, 4), users, strict=True))
        )
        for key, users in order.items()
    }
    matches["tie"] = finished_match(
        final_state({1: 900, 2: 900, 3: 300, 4: 100}, left, [1, 2]),
        {1: player, 2: opponent, 3: carol, 4: dave},
    )
    return matches


YOURS = {"won": "You won", "2nd": "You came 2nd", "3rd": "You came 3rd", "tie": "You drew 1st"}


def _row_of(html: str, match: Match) -> str:
    """The page's text from the match's link to the next link to a match."""
    link = f'href="{reverse("games:match-detail", args=[match.pk])}"'
    assert link in html
    return html.split(link, 1)[1].split('href="/matches/', 1)[0]


def test_the_lobby_says_you_won_came_2nd_3rd_or_drew(four_results, player):
    html = client_for(player).get(reverse("games:lobby")).text
    assert "winners:" not in html
    for key, words in YOURS.items():
        assert words in _row_of(html, four_results[key]), key


def test_the_archive_says_you_came_3rd_to_a_player_and_who_won_to_others(
    four_results, player, spectator
):
    html = client_for(player).get(reverse("games:archive")).text
    for key, words in YOURS.items():
        assert words in _row_of(html, four_results[key]), key
    html = Client().get(reverse("games:archive")).text
    assert "You " not in _row_of(html, four_results["3rd"])
    assert "Seat 1 (bob) won" in _row_of(html, four_results["3rd"])
    assert "Seats 1 (alice) and 2 (bob) shared the win" in _row_of(html, four_results["tie"])


def test_the_player_page_says_you_to_the_player_and_the_name_to_others(four_results, player):
    url = reverse("games:player", args=["alice"])
    html = client_for(player).get(url).text
    for key, words in YOURS.items():
        assert words in _row_of(html, four_results[key]), key
    html = Client().get(url).text
    expected = {
        "won": "alice won",
        "2nd": "alice came 2nd",
        "3rd": "alice came 3rd",
        "tie": "alice drew 1st",
    }
    for key, words in expected.items():
        assert words in _row_of(html, four_results[key]), key
