"""Orders in, resolution out: the services behind the order form and the worker."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction
from django.urls import reverse
from site_support import client_for, current_turn, drain

import engine
from games import services
from games.errors import Conflict, NotAPlayer, OrdersRejected
from games.models import Match, Orders, Resolution, Turn


def legal_move(match: Match, seat: int) -> dict:
    """A legal one-step move for one of `seat`'s robots, checked by the engine."""
    for robot in match.state["robots"]:
        if robot["seat"] != seat or not robot["alive"]:
            continue
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                action = {
                    "robot": robot["id"],
                    "type": "move",
                    "to": [robot["x"] + dx, robot["y"] + dy],
                }
                try:
                    engine.validate(
                        match.state,
                        {"seat": seat, "turn": match.state["turn"], "actions": [action]},
                    )
                except engine.EngineError:
                    continue
                return action
    raise AssertionError("no legal move found")


def legal_actions(match: Match, seat: int) -> list[dict]:
    """A real legal action list for `seat`, chosen by the engine's own random bot."""
    return engine.bot_orders("random", match.state, seat)["actions"]


def test_starting_a_full_match_stores_a_fresh_seed_and_the_first_deadline(running_match):
    match = running_match
    assert match.seed is not None
    assert match.initial_state == engine.new_game(seed=match.seed, seats=2)
    assert match.state == match.initial_state
    turn = current_turn(match)
    assert (turn.number, turn.seat, turn.status) == (0, 1, Turn.Status.WAITING)
    assert (turn.deadline_at - turn.started_at).total_seconds() == 3600


def test_two_matches_get_different_seeds(player, opponent):
    seeds = {
        services.match_create(creator=player, seat_count=2, bots=["random"]).seed for _ in range(3)
    }
    assert len(seeds) == 3


def test_accepted_orders_are_stored_as_given_and_resolved_once(running_match, player):
    actions = legal_actions(running_match, 1)
    row = services.orders_submit(match_id=running_match.pk, user=player, turn=0, actions=actions)
    assert row.orders == {"seat": 1, "turn": 0, "actions": actions}
    assert row.submitted_by == player and row.source == Orders.Source.PLAYER
    assert current_turn(running_match).status == Turn.Status.ACCEPTED

    first = services.turn_resolve(match_id=running_match.pk, number=0)
    second = services.turn_resolve(match_id=running_match.pk, number=0)

    assert first is not None and second is None
    assert Resolution.objects.filter(match=running_match).count() == 1
    running_match.refresh_from_db()
    assert running_match.state == engine.apply(running_match.initial_state, row.orders).state
    assert (running_match.turn_number, running_match.to_move) == (1, 3)
    assert current_turn(running_match).status == Turn.Status.WAITING


def test_illegal_orders_are_refused_and_nothing_is_stored(running_match, player):
    with pytest.raises(OrdersRejected) as refused:
        services.orders_submit(
            match_id=running_match.pk,
            user=player,
            turn=0,
            actions=[{"robot": "3-1", "type": "move", "to": [10, 10]}],
        )
    assert refused.value.code == "not_your_robot"
    assert refused.value.action == 0
    assert not Orders.objects.exists()
    assert current_turn(running_match).status == Turn.Status.WAITING


def test_orders_out_of_turn_or_for_a_stale_turn_are_conflicts(running_match, player, opponent):
    with pytest.raises(Conflict) as not_yours:
        services.orders_submit(match_id=running_match.pk, user=opponent, turn=0, actions=[])
    assert not_yours.value.code == "not_your_turn"
    with pytest.raises(Conflict) as stale:
        services.orders_submit(match_id=running_match.pk, user=player, turn=5, actions=[])
    assert stale.value.code == "stale_turn"
    assert not Orders.objects.exists()


def test_someone_without_a_seat_cannot_submit(running_match, spectator):
    with pytest.raises(NotAPlayer):
        services.orders_submit(match_id=running_match.pk, user=spectator, turn=0, actions=[])


def test_the_same_orders_twice_are_one_row_and_different_orders_are_refused(running_match, player):
    first = services.orders_submit(match_id=running_match.pk, user=player, turn=0, actions=[])
    again = services.orders_submit(match_id=running_match.pk, user=player, turn=0, actions=[])
    assert again.pk == first.pk
    with pytest.raises(Conflict) as conflict:
        services.orders_submit(
            match_id=running_match.pk, user=player, turn=0, actions=[legal_move(running_match, 1)]
        )
    assert conflict.value.code == "already_submitted"
    drain(running_match)
    # Still the same answer after the turn was resolved.
    assert (
        services.orders_submit(match_id=running_match.pk, user=player, turn=0, actions=[]).pk
        == first.pk
    )
    assert Orders.objects.filter(match=running_match).count() == 1


def test_the_database_allows_one_accepted_orders_row_per_turn(running_match, player):
    services.orders_submit(match_id=running_match.pk, user=player, turn=0, actions=[])
    with pytest.raises(IntegrityError), transaction.atomic():
        Orders.objects.create(
            match=running_match, turn_number=0, seat=1, orders={}, source=Orders.Source.ADMIN
        )


def test_the_database_allows_one_resolution_per_turn(running_match, player):
    services.orders_submit(match_id=running_match.pk, user=player, turn=0, actions=[])
    resolution = services.turn_resolve(match_id=running_match.pk, number=0)
    with pytest.raises(IntegrityError), transaction.atomic():
        Resolution.objects.create(
            match=running_match,
            turn_number=0,
            seat=1,
            orders=resolution.orders,
            events=[],
            state=resolution.state,
            turn_ms=1,
        )


def test_bot_seats_move_without_waiting_for_anybody(player):
    match = services.match_create(
        creator=player, seat_count=4, turn_seconds=3600, bots=["random", "random", "random"]
    )
    services.orders_submit(match_id=match.pk, user=player, turn=0, actions=[])
    drain(match, emails=False)
    # Seats 2, 3 and 4 moved as soon as their turns began; it is seat 1 again.
    assert (match.turn_number, match.to_move) == (4, 1)
    sources = list(
        Orders.objects.filter(match=match).order_by("turn_number").values_list("source", flat=True)
    )
    assert sources == ["player", "bot", "bot", "bot"]
    bot_rows = Orders.objects.filter(match=match, source=Orders.Source.BOT)
    for row in bot_rows:
        before = Resolution.objects.get(match=match, turn_number=row.turn_number).orders
        assert before == row.orders


def test_a_match_of_bots_ends_with_winners_money_and_the_full_record(player):
    match = services.match_create(
        creator=player,
        seat_count=4,
        length_ms=15_000,
        bots=["random", "random", "random", "random"],
    )
    assert match.seats.filter(user__isnull=False).count() == 0
    drain(match)
    assert match.status == Match.Status.FINISHED
    assert match.state["over"] is True
    assert match.winners == match.state["winners"]
    assert match.final_money == {str(p["seat"]): p["money"] for p in match.state["players"]}
    record = match.record
    assert record["initial"] == match.initial_state and record["final"] == match.state
    assert (
        len(record["turns"])
        == match.state["turn"]
        == Resolution.objects.filter(match=match).count()
    )
    # The record replays to the same final state.
    state = record["initial"]
    for turn in record["turns"]:
        applied = engine.apply(state, turn["orders"])
        assert applied.events == turn["events"]
        state = applied.state
    assert state == record["final"]
    assert not Turn.objects.filter(match=match, status=Turn.Status.WAITING).exists()


def test_the_order_form_shows_engine_errors_and_stores_nothing(running_match, player):
    client = client_for(player)
    url = reverse("games:match-orders", args=[running_match.pk])
    response = client.post(
        url, {"turn": 0, "robot_0": "1-1", "type_0": "move", "x_0": 19, "y_0": 19}
    )
    assert response.status_code == 400
    assert not Orders.objects.exists()
    form = response.context["form"]
    assert form.errors["robot_0"]  # the engine's message sits next to the action
    assert "robot_0" in form.errors


def test_the_order_form_accepts_legal_orders_and_redirects(running_match, player):
    action = legal_move(running_match, 1)
    response = client_for(player).post(
        reverse("games:match-orders", args=[running_match.pk]),
        {
            "turn": 0,
            "robot_1": action["robot"],
            "type_1": "move",
            "x_1": action["to"][0],
            "y_1": action["to"][1],
        },
    )
    assert response.status_code == 302
    row = Orders.objects.get(match=running_match, turn_number=0)
    assert row.orders == {"seat": 1, "turn": 0, "actions": [action]}


def test_the_order_form_takes_the_actions_as_json_too(running_match, player):
    client = client_for(player)
    response = client.post(
        reverse("games:match-orders", args=[running_match.pk]),
        {"turn": 0, "actions_json": "[{not json"},
    )
    assert response.status_code == 400
    assert "not valid JSON" in response.content.decode()
    response = client.post(
        reverse("games:match-orders", args=[running_match.pk]),
        {"turn": 0, "actions_json": '[{"robot": "1-1", "type": "fly"}]'},
    )
    assert response.status_code == 400
    assert not Orders.objects.exists()
    response = client.post(
        reverse("games:match-orders", args=[running_match.pk]),
        {"turn": 0, "actions_json": "[]"},
    )
    assert response.status_code == 302
    assert Orders.objects.get().orders["actions"] == []


def test_the_turn_path_makes_a_fixed_small_number_of_queries(
    running_match, player, opponent, django_assert_max_num_queries
):
    """Every query on the path from accepted orders to the next player's turn costs
    the turn latency about a millisecond (docs/benchmarks.md); none may creep in.
    Submitting: lock, seat, claim, store (earlier orders are looked up only for a
    refusal, the seat reset only when there is something to reset). Resolving:
    lock, claim, orders, resolution, next turn, match, seat with its user and
    settings, the email row. The counts include the test's savepoints (two for
    each, and two more around the email row)."""
    for _ in range(3):  # and no more at a later turn
        match = Match.objects.get(pk=running_match.pk)
        user = player if match.to_move == 1 else opponent
        with django_assert_max_num_queries(6):
            services.orders_submit(match_id=match.pk, user=user, turn=match.turn_number, actions=[])
        with django_assert_max_num_queries(12):
            assert services.turn_resolve(match_id=match.pk, number=match.turn_number)
        assert Match.objects.get(pk=match.pk).turn_number == match.turn_number + 1
