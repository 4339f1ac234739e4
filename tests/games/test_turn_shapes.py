"""Turns as the game shapes them, through the services, with the test rulesets of
tests/engine registered (conftest.test_rulesets): rps (every seat at once), race
(a setup phase at once, then one seat at a time) and dig (turns of several steps,
with private scan results). The worker's part runs in-process here (drain); the
real worker plays them in test_turn_shapes_worker.py.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.core.cache import caches
from django.utils import timezone
from site_support import client_for, drain

import engine
from games import selectors, services
from games.errors import Conflict, OrdersRejected, ServiceError
from games.models import AT_ONCE, Match, Orders, Resolution, Seat, Turn

pytestmark = pytest.mark.django_db


def _duel(player: Any, opponent: Any, ruleset: str, **options: Any) -> Match:
    match = services.match_create(
        creator=player, seat_count=2, ruleset=ruleset, options=options, turn_seconds=3600
    )
    services.seat_join(match_id=match.pk, user=opponent)
    match.refresh_from_db()
    assert match.status == Match.Status.RUNNING
    return match


def _throw(match: Match, user: Any, throw: str | None, turn: int | None = None) -> Orders:
    number = match.turn_number if turn is None else turn
    return services.orders_submit(
        match_id=match.pk, user=user, turn=number, orders={"throw": throw}
    )


def _expire(match: Match) -> None:
    Turn.objects.filter(match=match, number=match.turn_number).update(
        deadline_at=timezone.now() - timedelta(seconds=1)
    )


# --- creation ----------------------------------------------------------------------


def test_a_match_of_any_ruleset_keeps_its_options_with_the_defaults_filled_in(player, opponent):
    match = _duel(player, opponent, "dig", steps=2)
    assert (match.ruleset, match.options) == ("dig", {"steps": 2, "rounds": 4, "width": 9})
    assert match.state is not None and match.state["steps"] == 2
    assert [s.number for s in Seat.objects.filter(match=match)] == [1, 2]


def test_a_helium3_match_keeps_its_battle_length_as_its_option(player):
    match = services.match_create(creator=player, seat_count=2, length_ms=5000, bots=["random"])
    assert (match.ruleset, match.options, match.length_ms) == (
        "helium3",
        {"length_ms": 5000},
        5000,
    )
    assert match.state is not None and match.state["length_ms"] == 5000


@pytest.mark.parametrize(
    ("ruleset", "options", "seats", "code"),
    [
        ("rps", {"rounds": 0}, 2, "bad_option"),
        ("rps", {"rounds": "three"}, 2, "bad_option"),
        ("rps", {"colour": 1}, 2, "bad_option"),
        ("nonesuch", {}, 2, "unknown_ruleset"),
        ("rps", {}, 5, "bad_seats"),
    ],
)
def test_a_bad_ruleset_option_or_seat_count_is_refused_and_creates_nothing(
    player, ruleset, options, seats, code
):
    with pytest.raises(ServiceError) as refused:
        services.match_create(
            creator=player, seat_count=seats, ruleset=ruleset, options=options, bots=["random"]
        )
    assert refused.value.code == code
    assert refused.value.message
    assert not Match.objects.exists()


def test_bots_are_the_rulesets_own(player):
    with pytest.raises(ServiceError) as refused:
        services.match_create(creator=player, seat_count=2, ruleset="rps", bots=["fighter"])
    assert refused.value.code == "unknown_bot"
    services.match_create(creator=player, seat_count=2, ruleset="rps", bots=["rock"])


# --- simultaneous ------------------------------------------------------------------


def test_a_simultaneous_turn_waits_for_every_seat_then_resolves_with_a_list(player, opponent):
    match = _duel(player, opponent, "rps", rounds=2)
    turn = Turn.objects.get(match=match, number=0)
    assert (turn.seat, match.to_move) == (AT_ONCE, None)
    _throw(match, player, "rock")
    assert Turn.objects.get(pk=turn.pk).status == Turn.Status.WAITING
    assert drain(match) == 0 and not Resolution.objects.filter(match=match).exists()
    _throw(match, opponent, "scissors")
    assert Turn.objects.get(pk=turn.pk).status == Turn.Status.ACCEPTED
    assert drain(match) == 1
    resolution = Resolution.objects.get(match=match)
    assert resolution.seat == AT_ONCE
    assert resolution.orders == [
        {"throw": "rock", "seat": 1, "turn": 0},
        {"throw": "scissors", "seat": 2, "turn": 0},
    ]
    assert match.state is not None
    assert (match.state["turn"], match.state["scores"]) == (1, {"1": 1, "2": 0})
    assert Turn.objects.get(match=match, number=1).seat == AT_ONCE


def test_a_seat_replaces_its_orders_until_the_turn_resolves_and_a_repeat_is_the_same_row(
    player, opponent
):
    match = _duel(player, opponent, "rps", rounds=2)
    first = _throw(match, player, "rock")
    assert _throw(match, player, "rock").pk == first.pk  # the same post again
    replaced = _throw(match, player, "paper")
    assert replaced.pk == first.pk
    assert Orders.objects.get(match=match, seat=1).orders["throw"] == "paper"
    _throw(match, opponent, "rock")
    # Every seat's orders are in: the turn is being resolved, nothing is replaced now.
    with pytest.raises(Conflict) as late:
        _throw(match, player, "scissors", turn=0)
    assert late.value.code == "already_submitted"
    drain(match)
    assert match.state is not None and match.state["last"] == {"1": "paper", "2": "rock"}
    # After the turn, a repeat of the first turn's last post still answers as it did.
    assert _throw(match, player, "paper", turn=0).pk == first.pk
    with pytest.raises(Conflict) as stale:
        _throw(match, player, "rock", turn=0)
    assert stale.value.code == "stale_turn"


def test_orders_the_engine_refuses_are_not_stored(player, opponent):
    match = _duel(player, opponent, "rps")
    with pytest.raises(OrdersRejected):
        _throw(match, player, "lizard")
    assert not Orders.objects.filter(match=match).exists()


def test_a_seats_stored_orders_show_nowhere_to_the_other_seats_until_the_turn_resolves(
    player, opponent, spectator
):
    match = _duel(player, opponent, "rps", rounds=2)
    viewers = {opponent: 2, spectator: None, None: None}

    def shown() -> dict[Any, list[int]]:
        """How often each viewer's page, poll and history say "scissors" (the game's
        title says it too), drawn afresh."""
        for cache in caches.all():
            cache.clear()
        counts = {}
        for user, seat in viewers.items():
            client = client_for(user)
            pages = [f"/matches/{match.pk}/", f"/matches/{match.pk}/poll/?since=0&v=x"]
            counts[user] = [client.get(path).content.decode().count("scissors") for path in pages]
            counts[user].append(repr(selectors.match_history(match, seat)).count("scissors"))
        return counts

    before = shown()
    _throw(match, player, "scissors")
    assert shown() == before
    _throw(match, opponent, "paper")
    drain(match)
    after = shown()
    assert all(sum(after[user]) > sum(before[user]) for user in viewers)  # the state says it


def test_the_deadline_resolves_a_simultaneous_turn_with_the_default_orders_for_the_missing(
    player, opponent
):
    match = _duel(player, opponent, "rps", rounds=3)
    _throw(match, player, "rock")
    _expire(match)
    report = services.clock_sweep()
    assert report.passed == 1
    missing = Orders.objects.get(match=match, turn_number=0, seat=2)
    assert (missing.source, missing.orders["throw"]) == (Orders.Source.CLOCK, None)
    assert Seat.objects.get(match=match, number=2).missed_in_row == 1
    assert Seat.objects.get(match=match, number=1).missed_in_row == 0
    assert services.clock_sweep().passed == 0  # once
    drain(match)
    assert match.state is not None and match.state["scores"] == {"1": 0, "2": 0}
    assert Resolution.objects.get(match=match).orders[1]["throw"] is None


def test_a_seat_that_misses_three_simultaneous_turns_is_played_by_the_stand_in_bot(
    player, opponent, settings
):
    settings.STANDIN_BOT = "rock"
    match = _duel(player, opponent, "rps", rounds=5)
    for number in range(settings.MISSED_TURNS_BEFORE_BOT):
        _throw(match, player, "paper")
        _expire(match)
        assert services.clock_sweep().passed == 1
        drain(match)
        assert match.turn_number == number + 1
    seat = Seat.objects.get(match=match, number=2)
    assert (seat.missed_in_row, seat.standin_bot) == (settings.MISSED_TURNS_BEFORE_BOT, "rock")
    # From now on the stand-in's orders are there as the turn begins: the player's
    # complete the turn.
    standin = Orders.objects.get(match=match, turn_number=match.turn_number, seat=2)
    assert (standin.source, standin.orders["throw"]) == (Orders.Source.STANDIN, "rock")
    _throw(match, player, "paper")
    drain(match)
    assert match.state is not None and match.state["last"] == {"1": "paper", "2": "rock"}


def test_a_match_of_bots_at_once_plays_to_the_end_and_its_replay_has_a_list_per_turn(player):
    match = services.match_create(
        creator=player, seat_count=3, ruleset="rps", options={"rounds": 4},
        bots=["random", "rock", "random"],
    )  # fmt: skip
    drain(match)
    assert match.status == Match.Status.FINISHED
    assert match.record is not None and len(match.record["turns"]) == 4
    assert all(len(t["orders"]) == 3 for t in match.record["turns"])
    # The record replays to the final state, one apply per entry.
    state = match.record["initial"]
    for entry in match.record["turns"]:
        state = engine.apply(state, entry["orders"]).state
    assert state == match.record["final"] == match.state
    assert match.final_money == engine.scores(match.state)
    won = {s.number: s.won for s in Seat.objects.filter(match=match)}
    assert {n for n, w in won.items() if w} == set(match.state["winners"])


# --- a setup phase, then one seat at a time -------------------------------------------


def test_a_setup_phase_at_once_then_turns_one_seat_at_a_time(player, opponent):
    match = _duel(player, opponent, "race", target=5)
    assert Turn.objects.get(match=match, number=0).seat == AT_ONCE
    services.orders_submit(match_id=match.pk, user=opponent, turn=0, orders={"head_start": 3})
    services.orders_submit(match_id=match.pk, user=player, turn=0, orders={"head_start": 1})
    drain(match)
    assert match.state is not None and match.state["scores"] == {"1": 1, "2": 3}
    turn = Turn.objects.get(match=match, number=1)
    assert (turn.seat, match.to_move) == (1, 1)
    with pytest.raises(Conflict):
        services.orders_submit(match_id=match.pk, user=opponent, turn=1, orders={"add": 3})
    services.orders_submit(match_id=match.pk, user=player, turn=1, orders={"add": 3})
    drain(match)
    services.orders_submit(match_id=match.pk, user=opponent, turn=2, orders={"add": 2})
    drain(match)
    assert match.status == Match.Status.FINISHED and match.winners == [2]
    orders = [t["orders"] for t in match.record["turns"]]
    assert isinstance(orders[0], list) and isinstance(orders[1], dict)


# --- steps ------------------------------------------------------------------------


def _step(match: Match, user: Any, action: str, step_no: int | None = None) -> Orders:
    match.refresh_from_db()
    assert match.state is not None
    number = match.state["step"] if step_no is None else step_no
    return services.orders_submit(
        match_id=match.pk,
        user=user,
        turn=match.turn_number,
        orders={"action": action, "step_no": number},
    )


def test_each_step_is_resolved_in_the_request_and_its_scan_is_in_that_seats_view_only(
    player, opponent, spectator
):
    match = _duel(player, opponent, "dig", steps=3, rounds=1)
    row = _step(match, player, "scan")
    # Resolved before the answer: no worker needed.
    resolution = Resolution.objects.get(match=match, turn_number=0, step=0)
    assert (row.step, resolution.seat, resolution.orders) == (0, 1, row.orders)
    match.refresh_from_db()
    assert match.state is not None and match.state["step"] == 1
    mine = engine.view(match.state, 1)
    theirs = engine.view(match.state, 2)
    assert len(mine["scans"]["1"]) == 1 and "1" not in theirs["scans"]
    near = mine["scans"]["1"][0][1]
    history = {seat: selectors.match_history(match, seat) for seat in (1, 2, None)}
    assert history[1][0]["events"][0]["near"] == near
    assert history[1][0]["steps"][0]["events"][0]["near"] == near
    # The others learn of the turn once it has ended, as one entry without its steps.
    assert history[2] == history[None] == []
    assert Turn.objects.get(match=match, number=0).status == Turn.Status.WAITING
    _step(match, player, "end")
    match.refresh_from_db()
    for seat in (2, None):
        (turn,) = selectors.match_history(match, seat)
        assert "steps" not in turn and "near" not in repr(turn), seat


def test_a_repeated_step_is_recognised_and_a_stale_one_refused(player, opponent):
    match = _duel(player, opponent, "dig", steps=3)
    first = _step(match, player, "right")
    assert _step(match, player, "right", step_no=0).pk == first.pk
    with pytest.raises(Conflict) as stale:
        _step(match, player, "left", step_no=0)
    assert stale.value.code == "stale_turn"
    assert Orders.objects.filter(match=match).count() == 1


def test_the_turn_stays_open_until_the_seat_ends_it_then_the_next_seat_moves(player, opponent):
    match = _duel(player, opponent, "dig", steps=5)
    _step(match, player, "right")
    _step(match, player, "scan")
    _step(match, player, "end")
    match.refresh_from_db()
    assert (match.turn_number, match.to_move) == (1, 2)
    assert Turn.objects.get(match=match, number=0).status == Turn.Status.RESOLVED
    steps = list(Resolution.objects.filter(match=match).values_list("turn_number", "step"))
    assert steps == [(0, 0), (0, 1), (0, 2)]
    with pytest.raises(Conflict):
        _step(match, player, "scan")


def test_the_deadline_ends_a_turn_of_steps_with_the_default_orders(player, opponent):
    match = _duel(player, opponent, "dig", steps=4)
    _step(match, player, "scan")
    _expire(match)
    assert services.clock_sweep().passed == 1
    drain(match)
    assert (match.turn_number, match.to_move) == (1, 2)
    passed = Orders.objects.get(match=match, turn_number=0, step=1)
    assert (passed.source, passed.orders["action"]) == (Orders.Source.CLOCK, "end")


def test_a_bots_turn_of_steps_is_played_by_the_worker_step_by_step(player):
    match = services.match_create(
        creator=player, seat_count=2, ruleset="dig", options={"steps": 3, "rounds": 2},
        bots=["walker"],
    )  # fmt: skip
    _step(match, player, "end")
    drain(match)
    assert (match.turn_number, match.to_move) == (2, 1)
    bot_steps = Resolution.objects.filter(match=match, turn_number=1).order_by("step")
    assert bot_steps.count() >= 1
    assert all(r.seat == 2 for r in bot_steps)
    sources = set(
        Orders.objects.filter(match=match, turn_number=1).values_list("source", flat=True)
    )
    assert sources == {Orders.Source.BOT}
    # The record is one entry per apply, and replays.
    _step(match, player, "end")
    drain(match)
    assert match.status == Match.Status.FINISHED
    state = match.record["initial"]
    for entry in match.record["turns"]:
        state = engine.apply(state, entry["orders"]).state
    assert state == match.state


def test_both_seats_of_a_simultaneous_turn_get_the_order_form_and_post_it(player, opponent):
    from django.urls import reverse

    match = _duel(player, opponent, "rps", rounds=2)
    for user, throw in ((player, "rock"), (opponent, "paper")):
        client = client_for(user)
        page = client.get(reverse("games:match-detail", args=[match.pk]))
        assert page.context["page"].my_move and page.context["form"] is not None
        response = client.post(
            reverse("games:match-orders", args=[match.pk]),
            {"turn": 0, "actions_json": f'{{"throw": "{throw}"}}'},
        )
        assert response.status_code == 302, response.content[:500]
    assert Turn.objects.get(match=match, number=0).status == Turn.Status.ACCEPTED
    drain(match)
    assert match.state is not None and match.state["last"] == {"1": "rock", "2": "paper"}


def test_an_admin_pass_of_a_simultaneous_turn_passes_only_the_seats_without_orders(
    player, opponent
):
    match = _duel(player, opponent, "rps", rounds=2)
    _throw(match, opponent, "rock")
    services.turn_pass_now(match_id=match.pk, admin=None)
    drain(match)
    orders = Resolution.objects.get(match=match, turn_number=0).orders
    assert [o["throw"] for o in orders] == [None, "rock"]
    assert Orders.objects.get(match=match, seat=1, turn_number=0).source == Orders.Source.ADMIN
    # An admin's pass is not a missed turn.
    assert Seat.objects.get(match=match, number=1).missed_in_row == 0


def test_a_seat_handed_to_a_bot_by_an_admin_throws_in_the_current_simultaneous_turn(
    player, opponent
):
    match = _duel(player, opponent, "rps", rounds=2)
    _throw(match, player, "paper")
    services.seat_replace_with_bot(match_id=match.pk, seat_number=2, bot="rock", admin=None)
    drain(match)
    assert match.state is not None and match.state["last"] == {"1": "paper", "2": "rock"}


def test_the_lobby_and_the_badge_count_a_simultaneous_turn_until_the_seats_orders_are_in(
    player, opponent
):
    from games.context_processors import Frame

    match = _duel(player, opponent, "rps", rounds=2)

    def waiting_for(user: Any) -> tuple[bool, int]:
        mine = {m.pk: m.my_move for m in selectors.lobby_my_matches(user)}
        request = client_for(user).get("/").wsgi_request
        return mine[match.pk], Frame(request).count

    assert waiting_for(player) == (True, 1) and waiting_for(opponent) == (True, 1)
    _throw(match, player, "rock")
    assert waiting_for(player) == (False, 0) and waiting_for(opponent) == (True, 1)
