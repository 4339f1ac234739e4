"""What every fault test checks at the end, from the database and the mail folder:
every accepted submission resolved exactly once (the resolutions replay through the
engine to the stored state), no match stuck, no email sent twice."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from django.utils import timezone

import engine
from games import services
from games.models import AT_ONCE, Match, Notification, Orders, Resolution, Seat, Turn
from games.services.emails import render_notification

SEPARATOR = b"\n" + b"-" * 79 + b"\n"  # Django's file backend writes this after a message


def make_player(username: str) -> Any:
    return get_user_model().objects.create_user(username, f"{username}@example.com", password=None)


def session_for(user: Any) -> str:
    """A real session row for `user`, as a login would make: the web server reads it."""
    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value


def match_against_a_bot(player: Any, *, turn_seconds: int = 3600) -> Match:
    """Two seats: the player (seat 1, to move first) and the random bot (seat 3)."""
    match = services.match_create(
        creator=player, seat_count=2, turn_seconds=turn_seconds, bots=["random"]
    )
    match.refresh_from_db()
    assert match.status == Match.Status.RUNNING and match.to_move == 1
    return match


def legal_actions(match: Match, seat: int) -> list[dict[str, Any]]:
    """A legal action list for the seat, chosen by the engine's random bot."""
    match.refresh_from_db()
    return list(engine.bot_orders("random", match.state, seat)["actions"])


def sent_mail(mail_dir: Path) -> list[EmailMessage]:
    messages = []
    for path in sorted(mail_dir.glob("*.log")):
        for chunk in path.read_bytes().split(SEPARATOR):
            if chunk.strip():
                parsed = BytesParser(policy=policy.default).parsebytes(chunk)
                assert isinstance(parsed, EmailMessage)
                messages.append(parsed)
    return messages


def due_emails() -> Any:
    """Pending emails whose time has come ("Your turn" waits a while after its turn
    began, for a player who is away; these tests' players never open a page)."""
    return Notification.objects.filter(status="pending", send_after__lte=timezone.now())


def settled(sending_allowed: int | None = 0) -> bool:
    """Nothing left for the worker: no accepted turn, no pending email that is due,
    and no email being sent beyond `sending_allowed` (those whose sender was killed
    after claiming them; None: any number, for a test where a crash may leave some).
    A live worker's email is "sending" from its claim until the mail is out."""
    connection.close()  # a fresh connection: the server may have restarted
    accepted = Turn.objects.filter(
        status=Turn.Status.ACCEPTED, match__status=Match.Status.RUNNING
    ).exists()
    if accepted or due_emails().exists():
        return False
    if sending_allowed is None:
        return True
    return Notification.objects.filter(status="sending").count() <= sending_allowed


def wait_settled(timeout: float = 30.0, *, sending_allowed: int | None = 0) -> float:
    """Wait until settled (twice in a row, 0.3 s apart); the seconds it took."""
    start = time.monotonic()
    while True:
        if settled(sending_allowed):
            time.sleep(0.3)
            if settled(sending_allowed):
                return time.monotonic() - start
        if time.monotonic() - start > timeout:
            stuck = list(
                Turn.objects.filter(status=Turn.Status.ACCEPTED).values_list("match_id", "number")
            )
            pending = list(due_emails().values_list("pk", "kind"))
            sending = list(Notification.objects.filter(status="sending").values_list("pk", "kind"))
            raise AssertionError(
                f"not settled after {timeout}s: accepted turns {stuck}, pending emails {pending}, "
                f"emails being sent {sending} ({sending_allowed} allowed)"
            )
        time.sleep(0.1)


@dataclass
class Reconciled:
    matches: int
    resolutions: int
    emails: int
    sending: int


def check_match(match: Match) -> int:
    """A match's rows agree with each other and with the engine. Its resolutions.

    Any turn shape: one orders row per seat of a turn at once (AT_ONCE), resolved
    as one list; one orders row and one resolution per step of a turn of steps.
    """
    turns = list(Turn.objects.filter(match=match).order_by("number"))
    orders: dict[tuple[int, int], list[Orders]] = {}
    for row in Orders.objects.filter(match=match).order_by("turn_number", "step", "seat"):
        orders.setdefault((row.turn_number, row.step), []).append(row)
    resolutions = {
        (r.turn_number, r.step): r
        for r in Resolution.objects.filter(match=match).order_by("turn_number", "step")
    }
    numbers = [t.number for t in turns]
    assert numbers == sorted(set(numbers)), f"match {match.pk}: turn rows {numbers}"
    resolved = [t.number for t in turns if t.status == Turn.Status.RESOLVED]
    by_turn = sorted({number for number, _ in resolutions})
    at_once = {t.number for t in turns if t.seat == AT_ONCE}
    # A turn of steps shows its steps as they come: the current turn may have some.
    open_turns = {numbers[-1]} if engine.ruleset(match.ruleset).shape.steps and numbers else set()
    assert set(resolved) <= set(by_turn) <= set(resolved) | open_turns, (
        f"match {match.pk}: resolutions vs resolved turns"
    )
    assert all(key in orders for key in resolutions), (
        f"match {match.pk}: a resolution without orders"
    )
    # No match stuck: a running match waits for a person, on its last turn, and
    # nothing accepted is left unresolved.
    if match.status == Match.Status.RUNNING:
        *done, current = turns
        assert all(t.status == Turn.Status.RESOLVED for t in done), f"match {match.pk}: {done}"
        assert current.status == Turn.Status.WAITING, f"match {match.pk}: {current} is not waiting"
        assert match.state is not None
        awaited = engine.awaiting(match.state)
        stored = {row.seat for row in orders.get((current.number, 0), [])}
        if current.seat == AT_ONCE:
            people = Seat.objects.filter(match=match, number__in=awaited, user__isnull=False)
            waiting_for = {s.number for s in people if not s.driver_bot} - stored
            assert waiting_for, f"match {match.pk}: a turn at once has every seat's orders"
            assert match.to_move is None
        else:
            if not engine.ruleset(match.ruleset).shape.steps:
                assert not stored, f"match {match.pk}: a waiting turn has orders"
            seat = Seat.objects.get(match=match, number=current.seat)
            assert seat.user_id is not None and not seat.driver_bot, (
                f"match {match.pk}: a bot waits"
            )
            assert match.to_move == current.seat
        assert match.turn_number == current.number
    elif match.status == Match.Status.FINISHED:
        assert all(t.status == Turn.Status.RESOLVED for t in turns)
    # Every resolution once, in order: replaying the stored orders from the initial
    # state gives exactly the stored states and events, ending in the match's state.
    state = match.initial_state
    for (number, step), resolution in sorted(resolutions.items()):
        rows = orders[(number, step)]
        if resolution.fallback_error is None:
            if number in at_once:
                assert resolution.seat == AT_ONCE
                assert resolution.orders == [row.orders for row in rows], f"{match.pk} {number}"
            else:
                assert [resolution.orders] == [row.orders for row in rows]
        applied = engine.apply(state, resolution.orders)
        assert applied.state == resolution.state, f"match {match.pk} turn {number} differs"
        assert applied.events == resolution.events
        state = resolution.state
    assert state == match.state, f"match {match.pk}: the stored state is not the replayed one"
    return len(resolutions)


def reconcile(mail_dir: Path, *, sending_allowed: int = 0) -> Reconciled:
    """Check every match and every email. `sending_allowed`: notifications whose
    sender was killed after claiming them; they stay unsent until their claim goes
    stale (EMAIL_CLAIM_STALE_SECONDS, minutes by default) and the sweep sends them."""
    connection.close()
    matches = list(Match.objects.exclude(status=Match.Status.OPEN))
    resolutions = sum(check_match(match) for match in matches)

    rows = list(Notification.objects.select_related("user", "match"))
    by_status = Counter(row.status for row in rows)
    assert not due_emails().exists() and by_status["failed"] == 0, by_status
    assert by_status["sending"] <= sending_allowed, by_status

    mail = sent_mail(mail_dir)
    sent = Counter((str(m["To"]), str(m["Subject"])) for m in mail)
    twice = {key: n for key, n in sent.items() if n > 1}
    assert not twice, f"emails sent more than once: {twice}"
    expected = {
        (row.user.email, render_notification(row).subject): row.status
        for row in rows
        if row.status in ("sent", "sending")
    }
    for row in rows:
        if row.status == "sent":
            key = (row.user.email, render_notification(row).subject)
            assert sent[key] == 1, f"notification {row.pk} ({row.kind}) sent {sent[key]} times"
    unknown = [key for key in sent if key not in expected]
    assert not unknown, f"emails without a notification row: {unknown}"
    return Reconciled(len(matches), resolutions, len(mail), by_status["sending"])
