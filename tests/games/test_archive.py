"""The archive of finished matches, the player pages and their records, and who
may see a public or a private match on the site."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from game_factories import UserFactory
from site_support import client_for, drain

import engine
from games import selectors, services
from games.models import Match, Seat
from games.records import seat_records


def _finish(match: Match) -> Match:
    """Play a match out: every person passes, the bots play."""
    for _ in range(500):
        drain(match, emails=False)
        if match.status == Match.Status.FINISHED:
            return match
        seat = Seat.objects.get(match=match, number=match.to_move)
        assert seat.user is not None
        services.orders_submit(
            match_id=match.pk, user=seat.user, turn=match.turn_number, actions=[]
        )
    raise AssertionError("the match did not finish")


@pytest.fixture
def staff(db: None) -> Any:
    return UserFactory(username="root", is_staff=True)


@pytest.fixture
def archive(player: Any, opponent: Any) -> dict[str, Match]:
    """Alice against a bot (public), Alice against Bob (public, people only), Bob
    against a bot (private)."""
    with_bot = services.match_create(
        creator=player, seat_count=2, bots=["random"], length_ms=2000, turn_seconds=60
    )
    people = services.match_create(creator=player, seat_count=2, length_ms=2000, turn_seconds=60)
    services.seat_join(match_id=people.pk, user=opponent)
    private = services.match_create(
        creator=opponent, seat_count=2, bots=["random"], length_ms=2000, public=False
    )
    people.refresh_from_db()
    matches = {"with_bot": with_bot, "people": people, "private": private}
    for day, match in zip((1, 2, 3), matches.values(), strict=True):
        _finish(match)
        Match.objects.filter(pk=match.pk).update(finished_at=datetime(2026, 3, day, 12, tzinfo=UTC))
    return matches


def _listed(client: Client, query: str = "") -> list[int]:
    response = client.get(reverse("games:archive") + query)
    assert response.status_code == 200
    return [m.pk for m in response.context["page"].object_list]


def test_the_archive_lists_finished_public_matches_to_anyone_newest_first(archive):
    assert _listed(Client()) == [archive["people"].pk, archive["with_bot"].pk]


def test_a_private_match_is_in_the_archive_of_its_players_and_staff_only(
    archive, player, opponent, spectator, staff
):
    private = archive["private"].pk
    assert private not in _listed(client_for(player))
    assert private not in _listed(client_for(spectator))
    assert private in _listed(client_for(opponent))
    assert private in _listed(client_for(staff))


def test_the_archive_filters_by_player_date_and_bots(archive, opponent):
    client = Client()
    ids = {name: m.pk for name, m in archive.items()}
    assert _listed(client, "?player=alice") == [ids["people"], ids["with_bot"]]
    assert _listed(client, "?player=BOB") == [ids["people"]]
    assert _listed(client_for(opponent), "?player=bob") == [ids["private"], ids["people"]]
    assert _listed(client, "?player=nobody") == []
    assert _listed(client, "?bots=yes") == [ids["with_bot"]]
    assert _listed(client, "?bots=no") == [ids["people"]]
    assert _listed(client, "?since=2026-03-02") == [ids["people"]]
    assert _listed(client, "?until=2026-03-01") == [ids["with_bot"]]
    assert _listed(client, "?since=2026-03-01&until=2026-03-02&player=alice&bots=yes") == [
        ids["with_bot"]
    ]


@pytest.mark.parametrize(
    "query",
    [
        "?since=yesterday",
        "?until=2026-13-45",
        "?bots=maybe",
        "?page=abc",
        "?page=999999",
        "?player=%00",
        "?player=" + "x" * 500,
        "?page=-1&bots=&since=",
    ],
)
def test_bad_filter_values_never_break_the_archive(archive, query):
    assert Client().get(reverse("games:archive") + query).status_code == 200


def test_the_archive_is_paginated_and_pages_keep_the_filters(player):
    state = engine.new_game(seed=1, seats=2)
    for _ in range(30):
        match = Match.objects.create(
            seat_count=2, status=Match.Status.FINISHED, seed=1, state=state, initial_state=state
        )
        Seat.objects.create(match=match, number=1, user=player)
        Seat.objects.create(match=match, number=3, bot="random")
    first = Client().get(reverse("games:archive") + "?player=alice")
    page = first.context["page"]
    assert len(page.object_list) == 25 and page.paginator.count == 30 and page.has_next()
    assert "player=alice&amp;page=2" in first.content.decode()
    second = Client().get(reverse("games:archive") + "?player=alice&page=2")
    assert len(second.context["page"].object_list) == 5
    assert not {m.pk for m in page.object_list} & {m.pk for m in second.context["page"].object_list}


def test_each_seat_stores_its_record_when_the_match_finishes(archive):
    for match in archive.values():
        resolutions = match.resolutions.order_by("turn_number")
        expected = seat_records(match.state, ((r.seat, r.events) for r in resolutions))
        for seat in match.seats.all():
            record = expected[seat.number]
            assert (seat.won, seat.final_money, seat.counts) == (
                record.won,
                record.final_money,
                record.counts,
            )
            assert seat.won == (seat.number in match.winners)
            robots = [r for r in match.state["robots"] if r["seat"] == seat.number]
            assert seat.counts["mined"] == sum(r["mined"] for r in robots)


def test_robots_destroyed_count_opponents_destroyed_in_the_seats_own_turns():
    def robot(rid: str, seat: int, alive: bool, mined: int = 0) -> dict[str, Any]:
        return {"id": rid, "seat": seat, "alive": alive, "mined": mined}

    final = {
        "players": [{"seat": 1, "money": 900}, {"seat": 3, "money": 100}],
        "robots": [
            robot("1-1", 1, False, 400),
            robot("1-2", 1, False),
            robot("1-3", 1, True, 1000),
            robot("3-1", 3, False),
            robot("3-2", 3, False, 200),
            robot("3-3", 3, True),
        ],
        "winners": [1],
    }
    destroyed = lambda rid: {"type": "destroyed", "robot": rid, "dropped": 0}  # noqa: E731
    turns = [
        (1, [{"type": "laser"}, destroyed("3-1"), destroyed("3-2"), destroyed("1-2")]),
        (3, [{"type": "kamikaze"}, destroyed("3-3"), destroyed("1-1")]),
    ]
    final["ruleset"] = "helium3"
    records = seat_records(final, turns)
    counts = {seat: r.counts for seat, r in records.items()}
    # Seat 1's laser took two of seat 3's robots and one of its own (not a win).
    assert (counts[1]["robots_destroyed"], counts[1]["robots_lost"]) == (2, 2)
    # Seat 3's kamikaze: its own robot does not count, seat 1's does.
    assert (counts[3]["robots_destroyed"], counts[3]["robots_lost"]) == (1, 2)
    assert (records[1].won, records[3].won) == (True, False)
    assert (counts[1]["mined"], counts[3]["mined"]) == (1400, 200)
    assert (records[1].final_money, records[3].final_money) == (900, 100)


def test_a_player_page_adds_up_the_record_of_the_matches_the_viewer_may_see(
    archive, opponent, staff
):
    url = reverse("games:player", args=["bob"])
    public = Client().get(url)
    assert public.status_code == 200
    record = public.context["record"]
    people_seat = archive["people"].seats.get(user=opponent)
    assert record.played == 1 and record.won == int(bool(people_seat.won))
    [helium3] = public.context["by_game"]
    totals = {t.field.key: t.value for t in helium3.totals}
    assert totals["mined"] == people_seat.counts["mined"]
    assert totals["robots_destroyed"] == people_seat.counts["robots_destroyed"]
    seats = Seat.objects.filter(user=opponent)
    for viewer in (opponent, staff):
        page = client_for(viewer).get(url)
        own = page.context["record"]
        assert own.played == 2
        assert own.won == sum(1 for s in seats if s.won)
        [helium3] = page.context["by_game"]
        totals = {t.field.key: t.value for t in helium3.totals}
        assert totals["mined"] == sum(s.counts["mined"] for s in seats)
        assert totals["robots_destroyed"] == sum(s.counts["robots_destroyed"] for s in seats)
    assert "Robots destroyed" in public.content.decode()


def test_an_unknown_player_page_is_404(db):
    assert Client().get(reverse("games:player", args=["nobody"])).status_code == 404


# --- who may watch a match on the site --------------------------------------------


@pytest.fixture
def private_running(player: Any, opponent: Any) -> Match:
    match = services.match_create(creator=player, seat_count=2, turn_seconds=3600, public=False)
    services.seat_join(match_id=match.pk, user=opponent)
    match.refresh_from_db()
    return match


@pytest.mark.parametrize(
    ("role", "status"),
    [("player", 200), ("opponent", 200), ("staff", 200), ("spectator", 403), ("outsider", 302)],
)
def test_a_private_running_match_is_seen_by_its_players_and_staff_only(
    private_running, player, opponent, spectator, staff, role, status
):
    user = {"player": player, "opponent": opponent, "staff": staff, "spectator": spectator}
    client = client_for(user.get(role))
    response = client.get(reverse("games:match-detail", args=[private_running.pk]))
    assert response.status_code == status
    if status == 302:
        assert response["Location"].startswith("/accounts/login/")
    if status == 200:
        seat = {"player": 1, "opponent": 3}.get(role)
        assert response.context["page"].view == engine.view(private_running.state, seat)


@pytest.mark.parametrize(
    ("role", "status"),
    [("player", 200), ("opponent", 200), ("staff", 200), ("spectator", 403), ("outsider", 302)],
)
def test_a_private_matchs_record_is_its_players_and_staffs(
    player, opponent, spectator, staff, role, status
):
    match = services.match_create(
        creator=player, seat_count=2, bots=["random"], length_ms=1000, public=False
    )
    _finish(match)
    user = {"player": player, "opponent": opponent, "staff": staff, "spectator": spectator}
    if role == "opponent":
        Seat.objects.filter(match=match, number=3).update(bot="", user=opponent)
    response = client_for(user.get(role)).get(reverse("games:match-replay", args=[match.pk]))
    assert response.status_code == status


def test_anyone_watches_a_public_match_without_logging_in_and_sees_no_shield(running_match):
    state = running_match.state
    robot = next(r for r in state["robots"] if r["seat"] == 3)
    robot.update(active=True, shield=True, deflect="NW")
    Match.objects.filter(pk=running_match.pk).update(state=state)
    response = Client().get(reverse("games:match-detail", args=[running_match.pk]))
    assert response.status_code == 200
    view = response.context["page"].view
    assert view == engine.view(state, None) and view["viewer"] is None
    assert all("shield" not in r and "deflect" not in r for r in view["robots"])


def test_a_private_open_match_is_joined_by_its_link_and_not_listed(player, spectator):
    match = services.match_create(creator=player, seat_count=2, public=False)
    lobby = client_for(spectator).get(reverse("games:lobby"))
    assert match not in lobby.context["open_matches"]
    assert (
        client_for(spectator).get(reverse("games:match-detail", args=[match.pk])).status_code == 200
    )
    client_for(spectator).post(reverse("games:match-join", args=[match.pk]))
    assert Seat.objects.get(match=match, number=3).user == spectator


def test_the_lobby_lists_another_players_private_finished_match_to_nobody_else(archive, player):
    finished = list(selectors.lobby_finished_matches(player))
    assert archive["private"] not in finished and archive["people"] in finished


@pytest.mark.parametrize(("checked", "public"), [({"public": "on"}, True), ({}, False)])
def test_the_create_form_has_a_public_checkbox(player, checked, public):
    data = {"seat_count": 2, "turn_seconds": 3600, "length_minutes": 10, **checked}
    client_for(player).post(reverse("games:match-create"), data)
    assert Match.objects.get().public is public
    assert client_for(player).get(reverse("games:match-create")).context["form"]["public"].initial


def test_play_now_matches_are_public(player):
    client_for(player).post(reverse("games:match-play-now"))
    assert Match.objects.get().public
