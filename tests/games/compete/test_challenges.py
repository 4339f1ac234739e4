"""Challenges through the services and the pages: accepting makes the match with the
challenge's terms and both players in it; declined, cancelled and expired challenges
change nothing else and cannot be answered again; the sweep expires each once and
emails a player who is away, once; who may challenge whom; the navigation's count."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine
from django.core import mail
from django.utils import timezone
from game_factories import UserFactory
from site_support import client_for, drain

from games import services
from games.compete import challenges
from games.compete.models import Challenge, ChallengePolicy, Rating
from games.errors import ServiceError
from games.models import Match, Seat

pytestmark = pytest.mark.django_db


def _rps(challenger: Any, to: Any, **kw: Any) -> Challenge:
    terms: dict[str, Any] = {"ruleset": "rps", "options": {"rounds": 1}, "seats": 2, **kw}
    return challenges.challenge_create(challenger=challenger, to=to.get_username(), **terms)


def _nothing_else_changed() -> None:
    assert Match.objects.count() == 0
    assert Rating.objects.count() == 0


def test_accepting_makes_the_match_with_the_terms_and_both_players_in_it(player, opponent):
    challenge = _rps(player, opponent, turn_seconds=600, public=False)
    assert challenge.status == "pending" and challenge.rated is True
    match = challenges.challenge_accept(challenge_id=challenge.pk, user=opponent)
    assert match.status == Match.Status.RUNNING
    assert (match.ruleset, match.options, match.turn_seconds) == ("rps", {"rounds": 1}, 600)
    assert match.rated is True and match.public is False
    seats = list(Seat.objects.filter(match=match).order_by("number"))
    assert [s.user for s in seats] == [player, opponent]
    challenge.refresh_from_db()
    assert challenge.status == "accepted" and challenge.match == match
    # Played to its end, it changes both ratings.
    for user, throw in ((player, "paper"), (opponent, "rock")):
        services.orders_submit(match_id=match.pk, user=user, turn=0, orders={"throw": throw})
    drain(match)
    assert match.status == Match.Status.FINISHED
    assert Rating.objects.filter(game="rps").count() == 2


def test_the_other_seats_are_the_challenges_bots_or_open(player, opponent):
    challenge = _rps(player, opponent, seats=4, bots=["rock", ""])
    assert challenge.bots == ["rock", ""] and challenge.rated is False  # a built-in bot
    match = challenges.challenge_accept(challenge_id=challenge.pk, user=opponent)
    seats = list(Seat.objects.filter(match=match).order_by("number"))
    assert [(s.user, s.bot) for s in seats] == [
        (player, ""),
        (opponent, ""),
        (None, "rock"),
        (None, ""),
    ]
    assert match.status == Match.Status.OPEN  # the open seat waits for anyone


@pytest.mark.parametrize("answer", ["decline", "cancel", "expire"])
def test_a_closed_challenge_changes_nothing_and_cannot_be_answered(player, opponent, answer):
    challenge = _rps(player, opponent)
    if answer == "decline":
        challenges.challenge_decline(challenge_id=challenge.pk, user=opponent)
    elif answer == "cancel":
        challenges.challenge_cancel(challenge_id=challenge.pk, user=player)
    else:
        later = timezone.now() + timedelta(days=1, seconds=1)
        assert challenges.challenges_sweep(now=later).expired == 1
        assert challenges.challenges_sweep(now=later).expired == 0  # once
    challenge.refresh_from_db()
    assert challenge.status == {"decline": "declined", "cancel": "cancelled"}.get(answer, "expired")
    for act in (challenges.challenge_accept, challenges.challenge_decline):
        with pytest.raises(ServiceError) as refused:
            act(challenge_id=challenge.pk, user=opponent)
        assert (refused.value.code, refused.value.status) == ("challenge_closed", 409)
    _nothing_else_changed()


def test_a_challenge_past_its_time_expires_when_answered_before_the_sweep(player, opponent):
    challenge = _rps(player, opponent)
    later = timezone.now() + timedelta(days=2)
    with pytest.raises(ServiceError) as refused:
        challenges.challenge_accept(challenge_id=challenge.pk, user=opponent, now=later)
    assert refused.value.code == "challenge_closed"
    challenge.refresh_from_db()
    assert challenge.status == "expired"
    _nothing_else_changed()


def test_only_the_challenged_answers_and_only_the_challenger_cancels(player, opponent, spectator):
    challenge = _rps(player, opponent)
    cases = [
        (challenges.challenge_accept, player, "not_challenged", 403),
        (challenges.challenge_decline, player, "not_challenged", 403),
        (challenges.challenge_cancel, opponent, "not_challenger", 403),
        (challenges.challenge_accept, spectator, "not_found", 404),
        (challenges.challenge_cancel, spectator, "not_found", 404),
    ]
    for act, user, code, status in cases:
        with pytest.raises(ServiceError) as refused:
            act(challenge_id=challenge.pk, user=user)
        assert (refused.value.code, refused.value.status) == (code, status)
    challenge.refresh_from_db()
    assert challenge.status == "pending"


@pytest.mark.parametrize(
    ("terms", "code"),
    [
        ({"to": "nobody-here"}, "unknown_player"),
        ({"to": "alice"}, "bad_player"),
        ({"seats": 9}, "bad_seats"),
        ({"seats": 2, "bots": ["rock"]}, "bad_seats"),
        ({"seats": 3, "bots": ["fighter"]}, "unknown_bot"),
        ({"options": {"rounds": 0}}, "bad_option"),
        ({"ruleset": "chess"}, "unknown_ruleset"),
        ({"turn_seconds": 5}, "bad_deadline"),
    ],
)
def test_bad_terms_are_refused_and_make_nothing(player, opponent, terms, code):
    given: dict[str, Any] = {"ruleset": "rps", "options": {"rounds": 1}, "seats": 2, "to": "bob"}
    with pytest.raises(ServiceError) as refused:
        challenges.challenge_create(challenger=player, **{**given, **terms})
    assert refused.value.code == code
    assert Challenge.objects.count() == 0


def test_a_player_may_turn_challenges_off_or_take_them_only_from_players_they_played(
    player, opponent, spectator
):
    challenges.policy_update(user=opponent, accept_from=ChallengePolicy.From.NOBODY, email=True)
    with pytest.raises(ServiceError) as refused:
        _rps(player, opponent)
    assert (refused.value.code, refused.value.status) == ("challenges_closed", 403)
    challenges.policy_update(user=opponent, accept_from=ChallengePolicy.From.PLAYED, email=True)
    with pytest.raises(ServiceError):
        _rps(player, opponent)
    match = services.match_create(creator=player, seat_count=2, ruleset="rps", turn_seconds=600)
    services.seat_join(match_id=match.pk, user=opponent)
    assert _rps(player, opponent).status == "pending"  # they have played now
    with pytest.raises(ServiceError):
        _rps(spectator, opponent)


def test_the_challenges_page_turns_challenges_off_and_refuses_a_bad_choice(player, opponent):
    page = client_for(opponent)
    saved = page.post("/challenges/", {"accept_from": "nobody"})
    assert saved.status_code == 302 and saved["Location"] == "/challenges/"
    policy = ChallengePolicy.objects.get(user=opponent)
    assert (policy.accept_from, policy.email) == ("nobody", False)
    with pytest.raises(ServiceError) as refused:
        _rps(player, opponent)
    assert refused.value.code == "challenges_closed"
    bad = page.post("/challenges/", {"accept_from": "martians", "email": "on"})
    assert bad.status_code == 400 and "accept_from" in bad.context["policy_form"].errors
    policy.refresh_from_db()
    assert (policy.accept_from, policy.email) == ("nobody", False)  # unchanged
    page.post("/challenges/", {"accept_from": "everyone", "email": "on"})
    assert _rps(player, opponent).status == "pending"
    assert ChallengePolicy.objects.get(user=opponent).email is True


def test_pending_challenges_out_are_capped(player, opponent):
    for _ in range(challenges.PENDING_MAX):
        _rps(player, opponent)
    with pytest.raises(ServiceError) as refused:
        _rps(player, opponent)
    assert (refused.value.code, refused.value.status) == ("too_many_challenges", 409)


def test_a_player_who_is_away_is_emailed_once_after_a_while(player, opponent, settings):
    settings.YOUR_TURN_EMAIL_AFTER_SECONDS = 300
    challenge = _rps(player, opponent)
    now = timezone.now()
    assert challenges.challenges_sweep(now=now).emailed == 0  # not yet: they may be here
    later = now + timedelta(seconds=301)
    assert challenges.challenges_sweep(now=later).emailed == 1
    assert challenges.challenges_sweep(now=later).emailed == 0
    assert len(mail.outbox) == 1
    sent = mail.outbox[0]
    assert sent.to == [opponent.email] and "alice challenges you" in sent.subject
    assert "/challenges/" in sent.body
    challenge.refresh_from_db()
    assert challenge.email == "sent"


def test_a_player_who_saw_the_challenge_or_is_playing_gets_no_email(player, opponent, spectator):
    seen = _rps(player, opponent)
    client_for(opponent).get("/challenges/")  # the list counts as seen
    match = services.match_create(creator=player, seat_count=2, ruleset="rps", turn_seconds=600)
    services.seat_join(match_id=match.pk, user=spectator)
    busy = _rps(opponent, spectator)
    client_for(spectator).get(f"/matches/{match.pk}/")  # at a match of theirs: not away
    later = timezone.now() + timedelta(hours=1)
    assert challenges.challenges_sweep(now=later).emailed == 0
    assert mail.outbox == []
    assert {c.email for c in Challenge.objects.filter(pk__in=[seen.pk, busy.pk])} == {"skipped"}


def test_a_player_who_switched_the_emails_off_gets_none(player, opponent):
    challenges.policy_update(user=opponent, accept_from="everyone", email=False)
    _rps(player, opponent)
    challenges.challenges_sweep(now=timezone.now() + timedelta(hours=1))
    assert mail.outbox == []


def test_the_navigation_counts_the_challenges_waiting_on_every_page(player, opponent):
    _rps(player, opponent)
    _rps(player, opponent)
    for path in ("/", "/games/", "/archive/", "/players/alice/"):
        page = client_for(opponent).get(path).content.decode()
        assert 'id="challenge-badge" class="badge" data-count="2"' in page, path
    page = client_for(player).get("/").content.decode()
    assert 'id="challenge-badge" class="badge" data-count="0" hidden' in page


def test_the_pages_answer_a_challenge_and_make_one(player, opponent):
    challenge = _rps(player, opponent)
    listed = client_for(opponent).get("/challenges/")
    assert listed.status_code == 200
    assert f'data-challenge="{challenge.pk}"' in listed.content.decode()
    accepted = client_for(opponent).post(f"/challenges/{challenge.pk}/accept/")
    match = Match.objects.get()
    assert accepted.status_code == 302 and accepted["Location"] == f"/matches/{match.pk}/"
    again = client_for(opponent).post(f"/challenges/{challenge.pk}/decline/", follow=True)
    assert "was accepted" in again.content.decode()
    made = client_for(opponent).post(
        "/challenges/new/",
        {
            **_form_defaults("halite"),
            "to": "alice",
            "seat_count": "3",
            "seat_3": "grower",
            "rated": "casual",
            "turn_seconds": "3600",
        },
    )
    assert made.status_code == 302, made.context["form"].errors
    new = Challenge.objects.get(challenger=opponent)
    assert (new.ruleset, new.seats, new.bots, new.rated) == ("halite", 3, ["grower"], False)
    assert new.challenged == player and new.turn_seconds == 3600


def _form_defaults(game: str) -> dict[str, str]:
    """The challenge form's fields as a browser sends them untouched."""
    from games.compete.challenge_forms import ChallengeForm

    form = ChallengeForm(game=game)
    data = {"game": game, "public": "on"}
    for name, field in form.fields.items():
        value = form.get_initial_for_field(field, name)
        if value not in (None, "", False) and name != "public":
            data[name] = str(value)
    return data


def test_the_challenge_form_shows_the_refusal_beside_the_player(player, opponent):
    page = client_for(player).post(
        "/challenges/new/",
        {**_form_defaults("halite"), "to": "nobody-here"},
    )
    assert page.status_code == 400
    assert "There is no player" in page.content.decode()
    assert Challenge.objects.count() == 0
    part = client_for(player).get("/challenges/new/?to=bob&game=halite&part=1")
    assert part.status_code == 200 and b"<html" not in part.content
    assert b'name="option_width"' in part.content and b'value="bob"' in part.content


def test_a_profile_offers_a_challenge_to_others_only(player, opponent):
    theirs = client_for(player).get("/players/bob/").content.decode()
    assert "/challenges/new/?to=bob" in theirs and 'id="challenge-dialog"' in theirs
    mine = client_for(player).get("/players/alice/").content.decode()
    assert "challenge-dialog" not in mine


def test_an_invitation_link_seats_whoever_opens_it_until_the_match_starts(
    player, opponent, spectator
):
    match = services.match_create(
        creator=player, seat_count=2, ruleset="rps", turn_seconds=600, public=False
    )
    from games.compete.invitations import invitation_path

    # The link is signed with the time: the page's and this one, made in the same
    # second (a busy machine once crossed a second between them).
    with time_machine.travel(datetime.now(UTC), tick=False):
        page = client_for(player).get(f"/matches/{match.pk}/").content.decode()
        link = invitation_path(match)
    assert "Invite players" in page
    assert link in page
    opened = client_for(opponent).get(link)
    assert opened.status_code == 200 and "Take a seat" in opened.content.decode()
    assert Seat.objects.filter(match=match, user=opponent).count() == 0  # a look takes none
    taken = client_for(opponent).post(link)
    assert taken.status_code == 302 and taken["Location"] == f"/matches/{match.pk}/"
    match.refresh_from_db()
    assert match.status == Match.Status.RUNNING
    used = client_for(spectator).get(link)
    assert used.status_code == 409
    assert "Every seat of this match was taken" in used.content.decode()
    assert client_for(spectator).post(link).status_code == 409
    assert not Seat.objects.filter(match=match, user=spectator).exists()
    bad = client_for(spectator).get(link[:-3] + "xx/")
    assert bad.status_code == 404 and "not valid" in bad.content.decode()
    public = services.match_create(creator=player, seat_count=2, ruleset="rps")
    assert "Invite players" not in client_for(player).get(f"/matches/{public.pk}/").content.decode()


def test_an_invitation_asks_a_stranger_to_sign_in_and_seats_no_guest(player, spectator):
    from django.test import Client

    from games.compete.invitations import invitation_path
    from games.guests.models import Guest

    match = services.match_create(
        creator=player, seat_count=2, ruleset="rps", turn_seconds=600, public=False
    )
    link = invitation_path(match)
    anonymous = Client().get(link)
    assert anonymous.status_code == 302 and "login" in anonymous["Location"]
    Guest.objects.create(user=spectator)
    refused = client_for(spectator).post(link)
    assert refused.status_code == 403
    assert not Seat.objects.filter(match=match, user=spectator).exists()
    match.refresh_from_db()
    assert match.status == Match.Status.OPEN


def test_an_invitation_to_a_match_called_off_says_it_expired(player, opponent):
    match = services.match_create(
        creator=player, seat_count=2, ruleset="rps", turn_seconds=600, public=False
    )
    from games.compete.invitations import invitation_path

    link = invitation_path(match)
    services.seat_leave(match_id=match.pk, user=player)
    page = client_for(opponent).get(link)
    assert page.status_code == 409 and "called off" in page.content.decode()
    assert client_for(UserFactory(username="dora")).get(link).status_code == 409


def test_the_challenge_form_offers_a_match_of_two_first(player, opponent):
    """The game's own default may be four seats (Helium 3); a challenge is between two
    unless the challenger asks for more."""
    from games.compete.challenge_forms import ChallengeForm
    from games.forms import MatchCreateForm

    assert MatchCreateForm(game="helium3")["seat_count"].initial == 4
    form = ChallengeForm(game="helium3")
    assert form["seat_count"].initial == 2
    page = client_for(player).get("/challenges/new/?to=bob&game=helium3").content.decode()
    assert '<option value="2" selected>2 players</option>' in page
