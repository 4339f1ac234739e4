"""Notification emails: a subject, a plain-text and an HTML template per kind."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from games import catalog, history, records, words
from games.models import AT_ONCE, Match, Notification, NotificationKind, Resolution, Seat
from games.services.unsubscribe import unsubscribe_token


def absolute(path: str) -> str:
    """A link to the site as it runs (settings.SITE_URL: `make run`'s port in
    development, the public address in production)."""
    return f"{settings.SITE_URL}{path}"


def duration_words(seconds: float) -> str:
    """A duration as people say it: "1 day", "15 minutes", "2 hours 30 minutes".

    The largest unit and, when not zero, the next one below it; what is smaller is
    dropped (rounded down: a time left never reads longer than it is).
    """
    if seconds < 0:
        raise ValueError(f"a duration cannot be negative: {seconds}")
    return words.seconds_words(int(seconds))


def seat_names(seats: list[Seat]) -> dict[int, str]:
    """Each seat's player as the emails name it: "alice", "bot miner"."""
    names = {}
    for seat in seats:
        if seat.bot:
            names[seat.number] = words.bot_label(seat.bot)
        elif seat.user is not None:
            names[seat.number] = seat.user.get_username()
    return names


def match_over_results(row: Notification) -> dict[str, Any]:
    """What "Match over" tells: the recipient's result ("You came 3rd"), the
    sentence of what decided the match, and every seat's place, player and score
    (the final state is public once the match is over); empty if it has none."""
    from games import presentation

    match = row.match
    final = match.state
    if match.status != Match.Status.FINISHED or not isinstance(final, dict):
        return {}
    seats = list(Seat.objects.filter(match=match).select_related("user"))
    names = seat_names(seats)
    mine = next((s.number for s in seats if s.user_id == row.user_id), None)
    table = records.standings(final)
    nobody_won = not any(s.won for s in table)
    rows = []
    for standing in table:
        place = records.ordinal(standing.place)
        rows.append(
            {
                "place": f"{place} (tie)" if standing.tied else place,
                "seat": standing.seat,
                "name": names.get(standing.seat, ""),
                "money": words.number(standing.money),
                "me": standing.seat == mine,
            }
        )
    you = next((s for s in table if s.seat == mine), None)
    players = final.get("players") or [{}]
    return {
        "mine": records.result_phrase(you, nobody_won=nobody_won) if you else "",
        "decided": presentation.get(match.ruleset).decided(final, names),
        "rows": rows,
        "score_name": "Money" if "money" in players[0] else "Score",
    }


# The turns a "Your turn" email tells at most (the seat's own last turn ends them).
SINCE_TURNS_MAX = 8


def since_your_turn(row: Notification) -> list[dict[str, Any]]:
    """The turns played since the recipient's last one, oldest first, each as its
    seat's copy of the events told in the game's sentences (never more than that
    seat may know while the match runs). In a game whose seats move at once every
    turn was the recipient's too: only the last one is told."""
    from games import presentation

    seat = Seat.objects.filter(match_id=row.match_id, user_id=row.user_id).first()
    if seat is None:
        return []
    match = row.match
    # One entry per turn, however many steps another seat's turn took (games/history.py).
    rows = Resolution.objects.filter(
        match_id=row.match_id,
        turn_number__lt=row.turn_number,
        turn_number__gte=row.turn_number - SINCE_TURNS_MAX,
    )
    fields = ("turn_number", "step", "seat", "turn_ms", "events")
    reader = history.Reader(match.ruleset, seat.number, over=False)
    turns = []
    for turn in history.entries(rows.order_by("turn_number", "step").only(*fields), reader)[::-1]:
        if turn["seat"] == seat.number:
            break
        lines = presentation.get(match.ruleset).sentences(turn["events"])
        turns.append({"number": turn["turn"], "seat": turn["seat"], "lines": lines})
        if turn["seat"] == AT_ONCE:
            break  # every seat moved in it, the recipient too: the last turn is the news
    return turns[::-1]


def render_notification(row: Notification) -> EmailMultiAlternatives:
    ctx: dict[str, Any] = dict(row.context)
    deadline = datetime.fromisoformat(ctx["deadline"]) if ctx.get("deadline") else None
    left = (deadline - timezone.now()).total_seconds() if deadline else None
    context = {
        "user": row.user,
        "match": row.match,
        "game": catalog.title(row.match.ruleset),
        "kind": row.kind,
        "kind_label": row.get_kind_display(),
        "turn_number": row.turn_number,
        "deadline": deadline,
        # In whole minutes once there is one: the seconds are gone when it is read.
        "time_left": duration_words(max(0.0, left if left < 60 else left - left % 60))
        if left is not None
        else "",
        "turn_time": duration_words(row.match.turn_seconds),
        "missed_limit": settings.MISSED_TURNS_BEFORE_BOT,
        "ctx": ctx,
        "since": since_your_turn(row) if row.kind == NotificationKind.YOUR_TURN else [],
        "results": match_over_results(row) if row.kind == NotificationKind.MATCH_OVER else {},
        "match_url": absolute(reverse("games:match-detail", args=[row.match_id])),
        "settings_url": absolute(reverse("games:notification-settings")),
        "unsubscribe_url": absolute(
            reverse("games:unsubscribe", args=[unsubscribe_token(user=row.user, kind=row.kind)])
        ),
    }
    base = f"games/email/{row.kind}"
    # One line whatever the template or the data holds: a header never takes a break.
    subject = " ".join(render_to_string(f"{base}_subject.txt", context).split())
    text = render_to_string(f"{base}.txt", context)
    html = render_to_string(f"{base}.html", context)
    message = EmailMultiAlternatives(
        subject=f"[{context['game']}] {subject}",  # the game's name: "[Helium 3 remake] ..."
        body=text,
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[row.user.email],
        headers={
            # RFC 8058: mail clients may unsubscribe with one POST to this URL.
            "List-Unsubscribe": f"<{context['unsubscribe_url']}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
        },
    )
    message.attach_alternative(html, "text/html")
    return message
