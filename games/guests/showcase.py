"""The showcase: one public match between bots, live on the home page.

Built-in bot seats move the moment their turn begins, so a match of four bots
would be over in seconds. The showcase's seats are therefore held by house
accounts (one per seat: a seat belongs to one user) and played the way any bot
program plays through the API: showcase_step, run by celery beat every few
seconds, sends the built-in bot's orders once the previous turn has had its
battle time to play out on the board (its turn_ms), so that a spectator
watches the match in real time. The bots move only while a visitor may be watching
(`watched_until`, moved on by the home page), and the next match starts when
one ends.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone

import engine
from games.errors import ServiceError
from games.guests.models import Showcase
from games.models import Match, Resolution, Seat, Turn
from games.services import orders_submit, seat_numbers
from games.services.matches import match_start

log = logging.getLogger(__name__)

SEATS = 4
# The bots of seats 1..4 (random plays a seat whose bot the engine lacks).
SHOWCASE_BOTS = ("miner", "fighter", "miner", "fighter")
TITLE = "Showcase: four bots at play"
# The clock passes a turn nobody played for this long, so a showcase left alone for
# hours (nobody watching) still runs out and the next visitor gets a fresh one.
TURN_SECONDS = 15 * 60
# How long a visit to the home page keeps the bots playing.
WATCH_WINDOW = timedelta(minutes=15)
_WATCH_SLACK = timedelta(minutes=1)
# How long the match page takes to play a turn at 1x (board.js, Movie.pace): its
# events in at most 2.5 s, the idle rest of its battle time in 0.25 s. The bots wait
# that long, not the turn's whole battle time (10 s and more): a spectator's board
# then moves at the bots' pace instead of standing still most of the time.
PLAYED_MS = 2500 + 250


def house_username(seat: int, bot: str) -> str:
    return f"{bot}-bot-{seat}"


def _bot_names() -> list[str]:
    known = set(engine.bot_names())
    return [name if name in known else "random" for name in SHOWCASE_BOTS[:SEATS]]


def _house_user(username: str) -> User:
    user, created = User.objects.get_or_create(username=username, defaults={"email": ""})
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    elif not _is_house(user):
        # Sign-up refuses these names (games/guests/adapter.py); never lend a
        # person's account to the showcase.
        raise RuntimeError(f"{username!r} is a person's account, not a house bot")
    return user


def _is_house(user: User) -> bool:
    return not user.has_usable_password() and not user.email


def house_bot(user: User | None) -> str | None:
    """The built-in bot a house account plays, or None if it is no house account."""
    if user is None or not _is_house(user):
        return None
    for seat, bot in enumerate(_bot_names(), start=1):
        if user.get_username() == house_username(seat, bot):
            return bot
    return None


def _start(now: datetime, watched_until: datetime) -> Match:
    match = Match.objects.create(
        seat_count=SEATS, turn_seconds=TURN_SECONDS, public=True, title=TITLE
    )
    for number, bot in zip(seat_numbers(SEATS), _bot_names(), strict=True):
        user = _house_user(house_username(number, bot))
        # api: driven like a bot program's seat (and so sent no email).
        Seat.objects.create(match=match, number=number, user=user, joined_at=now, api=True)
    # The map follows from the match's number, not from chance: every seat is a
    # bot, so the seed hides nothing, and a site (or a test) rebuilt the same way
    # shows the same showcase.
    match_start(match=match, now=now, seed=(match.pk * 2_654_435_761) % 2**31)
    Showcase.objects.create(match=match, created_at=now, watched_until=watched_until)
    return match


def showcase_current(*, now: datetime | None = None, watch: bool = True) -> Match:
    """The live showcase match, started now if there is none (or it has ended).

    `watch`: a visitor is looking, so the bots play on for WATCH_WINDOW from now (a
    write at most once a minute); otherwise a new match keeps the old one's time.
    """
    now = now or timezone.now()
    # Without the replay columns (as big as the state): no caller needs them.
    live = (
        Showcase.objects.filter(live=True)
        .select_related("match")
        .defer("match__initial_state", "match__record")
        .first()
    )
    unwatched = live.watched_until if live is not None else now
    watched_until = now + WATCH_WINDOW if watch else unwatched
    if live is not None and live.match.is_live:
        if watch and live.watched_until < watched_until - _WATCH_SLACK:
            Showcase.objects.filter(pk=live.pk).update(watched_until=watched_until)
        return live.match
    try:
        with transaction.atomic():
            if live is not None:
                Showcase.objects.filter(pk=live.pk, live=True).update(live=False)
            return _start(now, watched_until)
    except IntegrityError:
        # Another request started one at the same moment (one live row at most).
        return Showcase.objects.select_related("match").get(live=True).match


def is_showcase(match: Match) -> bool:
    """Whether the match is (or was) a showcase: its turns wait for the house bots,
    who move within seconds, not for its clock's deadline.

    Read from the row alone, with no query (the match page and its poll ask it on
    every render): nobody creates the showcase, and no person's match is made
    without its creator, so a match without one that bears the showcase's title is
    the showcase's."""
    return match.created_by_id is None and match.title == TITLE


def showcase_step(*, now: datetime | None = None) -> bool:
    """Play the showcase's waiting turn if it is due. True if orders were sent.

    Due: the previous turn has played on a spectator's board since this turn began
    (its battle time, at most PLAYED_MS), and a visitor may be watching. A showcase
    that ended is replaced while watched.
    """
    now = now or timezone.now()
    live = (
        Showcase.objects.filter(live=True, watched_until__gte=now)
        .select_related("match")
        .defer("match__initial_state", "match__record")
        .first()
    )
    if live is None:
        return False
    match = live.match
    if not match.is_live:
        showcase_current(now=now, watch=False)  # the next match, for the same viewers
        return False
    turn = Turn.objects.filter(
        match=match, number=match.turn_number, status=Turn.Status.WAITING
    ).first()
    if turn is None or match.status != Match.Status.RUNNING:
        return False
    shown_ms = (
        Resolution.objects.filter(match=match, turn_number=turn.number - 1)
        .values_list("turn_ms", flat=True)
        .first()
    )
    if now < turn.started_at + timedelta(milliseconds=min(shown_ms or 0, PLAYED_MS)):
        return False
    seat = Seat.objects.select_related("user").get(match=match, number=turn.seat)
    bot = house_bot(seat.user)
    if bot is None or seat.user is None:
        log.error("showcase match %s: seat %s is no house seat", match.pk, seat.number)
        return False
    try:
        actions = engine.bot_orders(bot, match.state, seat.number)["actions"]
    except Exception:
        log.exception("showcase bot %r failed in match %s turn %s", bot, match.pk, turn.number)
        actions = []
    attempts: list[list[Any]] = [actions, []]
    for attempt in attempts:
        try:
            orders_submit(
                match_id=match.pk, user=seat.user, turn=turn.number, actions=attempt, api=True
            )
        except ServiceError as error:
            if error.status == 409:
                return False  # another step got there first
            log.warning("showcase match %s turn %s: %s", match.pk, turn.number, error.message)
            continue
        return True
    return False
