"""The showcases: a public match between bots for every game, live on the home page.

Built-in bot seats move the moment their turn begins, so a match of bots would be
over in seconds. A showcase's seats are therefore held by house accounts (one per
seat and bot: a seat belongs to one user) and played the way any bot program plays
through the API: showcase_step, run by celery beat every few seconds, sends the
built-in bots' orders once the previous turn (or step) has had its time to play out
on the board (its turn_ms, at most PLAYED_MS), so that a spectator watches each
match in real time. The bots move only while a visitor may be watching
(`watched_until`, moved on by the home page), and a game's next match starts when
its last one ends.

Nothing here names a game: each game's showcase has the seats of its "Play now"
(games.catalog), played by its own bots (the engine's, the weakest left out), and
every seat shape is played, one seat at a time, all at once, or step by step.
"""

from __future__ import annotations

import logging
import re
from datetime import datetime, timedelta

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone

import engine
from games import catalog
from games.errors import ServiceError
from games.guests.models import Showcase
from games.models import AT_ONCE, Match, Orders, Resolution, Seat, Turn
from games.services import orders_submit, seat_numbers
from games.services.matches import match_start

log = logging.getLogger(__name__)

# The bot every game has that plays at random: a dull match to watch, so a game's
# showcase leaves it out when the game has any other.
WEAKEST = "random"
TITLE_PREFIX = "Showcase: "
_NUMBER_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight")
# The clock passes a turn nobody played for this long, so a showcase left alone for
# hours (nobody watching) still runs out and the next visitor gets a fresh one.
TURN_SECONDS = 15 * 60
# How long a visit to the home page keeps the bots playing.
WATCH_WINDOW = timedelta(minutes=15)
_WATCH_SLACK = timedelta(minutes=1)
# The most a turn takes to play on the match page at 1x. Helium 3's board (the
# pace page.js gives board.js) plays its events in at most 2.5 s and the idle rest of its
# battle time in 0.25 s; the other games' boards play a turn in its turn_ms, under
# a second. The bots wait that long, not a long turn's whole battle time (10 s and
# more): a spectator's board then moves at the bots' pace instead of standing still.
PLAYED_MS = 2500 + 250
_HOUSE_NAME = re.compile(r"^([a-z]+)-bot-(\d+)$")


def house_username(seat: int, bot: str) -> str:
    return f"{bot}-bot-{seat}"


def showcase_bots(ruleset: str) -> list[str]:
    """The bots of the seats of `ruleset`'s showcase, seat 1 first: the game's bots
    but the weakest, in turn, for as many seats as its "Play now" has."""
    names = engine.bot_names(ruleset)
    strong = [name for name in names if name != WEAKEST] or names
    return [strong[i % len(strong)] for i in range(catalog.play_now_seats(ruleset))]


def showcase_title(seats: int) -> str:
    words = _NUMBER_WORDS[seats] if seats < len(_NUMBER_WORDS) else str(seats)
    return f"{TITLE_PREFIX}{words} bots at play"


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


def house_bot(user: User | None, ruleset: str | None = None) -> str | None:
    """The built-in bot a house account plays (in `ruleset`'s showcase, else in any
    game's), or None if it is no house account."""
    if user is None or not _is_house(user):
        return None
    found = _HOUSE_NAME.match(user.get_username())
    if found is None:
        return None
    bot = found.group(1)
    games = [ruleset] if ruleset is not None else catalog.names()
    return bot if any(bot in showcase_bots(name) for name in games) else None


def _start(ruleset: str, now: datetime, watched_until: datetime) -> Match:
    bots = showcase_bots(ruleset)
    match = Match.objects.create(
        ruleset=ruleset,
        seat_count=len(bots),
        turn_seconds=TURN_SECONDS,
        public=True,
        title=showcase_title(len(bots)),
    )
    for number, bot in zip(seat_numbers(len(bots), ruleset), bots, strict=True):
        user = _house_user(house_username(number, bot))
        # api: driven like a bot program's seat (and so sent no email).
        Seat.objects.create(match=match, number=number, user=user, joined_at=now, api=True)
    # The map follows from the match's number, not from chance: every seat is a
    # bot, so the seed hides nothing, and a site (or a test) rebuilt the same way
    # shows the same showcase.
    match_start(match=match, now=now, seed=(match.pk * 2_654_435_761) % 2**31)
    Showcase.objects.create(
        match=match, ruleset=ruleset, created_at=now, watched_until=watched_until
    )
    return match


def _live_showcases() -> dict[str, Showcase]:
    # Without the replay columns (as big as the state): no caller needs them.
    rows = (
        Showcase.objects.filter(live=True)
        .select_related("match")
        .defer("match__initial_state", "match__record")
    )
    return {row.ruleset: row for row in rows}


def _current(ruleset: str, live: Showcase | None, now: datetime, watch: bool) -> tuple[Match, bool]:
    """`ruleset`'s live showcase match, started now if there is none (or it has
    ended); and whether its watch should move on (it was live already)."""
    unwatched = live.watched_until if live is not None else now
    watched_until = now + WATCH_WINDOW if watch else unwatched
    if live is not None and live.match.is_live:
        return live.match, watch and live.watched_until < watched_until - _WATCH_SLACK
    try:
        with transaction.atomic():
            if live is not None:
                Showcase.objects.filter(pk=live.pk, live=True).update(live=False)
            return _start(ruleset, now, watched_until), False
    except IntegrityError:
        # Another request started one at the same moment (one live row a game).
        return Showcase.objects.select_related("match").get(live=True, ruleset=ruleset).match, False


def showcase_current(
    ruleset: str = engine.rulesets.DEFAULT, *, now: datetime | None = None, watch: bool = True
) -> Match:
    """`ruleset`'s live showcase match, started now if there is none (or it has ended).

    `watch`: a visitor is looking, so the bots play on for WATCH_WINDOW from now (a
    write at most once a minute); otherwise a new match keeps the old one's time.
    """
    now = now or timezone.now()
    live = (
        Showcase.objects.filter(live=True, ruleset=ruleset)
        .select_related("match")
        .defer("match__initial_state", "match__record")
        .first()
    )
    match, stale = _current(ruleset, live, now, watch)
    if stale:
        Showcase.objects.filter(live=True, ruleset=ruleset).update(watched_until=now + WATCH_WINDOW)
    return match


def showcases_current(*, now: datetime | None = None) -> dict[str, Match]:
    """Every game's live showcase match, the ones missing started now, all watched
    from now (the home page's visit): {ruleset: match}, in the catalog's order. A
    game whose showcase cannot start is left out (and logged), the others shown."""
    now = now or timezone.now()
    live = _live_showcases()
    found: dict[str, Match] = {}
    stale: list[str] = []
    for ruleset in catalog.names():
        try:
            found[ruleset], moved = _current(ruleset, live.get(ruleset), now, True)
        except Exception:
            log.exception("the showcase of %s could not be started", ruleset)
            continue
        if moved:
            stale.append(ruleset)
    if stale:  # one write for every game whose watch moves on
        Showcase.objects.filter(live=True, ruleset__in=stale).update(
            watched_until=now + WATCH_WINDOW
        )
    return found


def is_showcase(match: Match) -> bool:
    """Whether the match is (or was) a showcase: its turns wait for the house bots,
    who move within seconds, not for its clock's deadline.

    Read from the row alone, with no query (the match page and its poll ask it on
    every render): nobody creates a showcase, and no person's match is made
    without its creator, so a match without one whose title is a showcase's is
    a showcase."""
    return match.created_by_id is None and match.title.startswith(TITLE_PREFIX)


def showcase_step(*, now: datetime | None = None) -> bool:
    """Play every live showcase's waiting turn (or step) that is due. True if orders
    were sent in any.

    Due: the previous turn or step has played on a spectator's board since it was
    resolved (its turn_ms, at most PLAYED_MS), and a visitor may be watching. A
    showcase that ended is replaced while watched.
    """
    now = now or timezone.now()
    watched = (
        Showcase.objects.filter(live=True, watched_until__gte=now)
        .select_related("match")
        .defer("match__initial_state", "match__record")
        .order_by("pk")
    )
    sent = False
    for live in watched:
        try:
            sent = _step(live.match, now) or sent
        except Exception:
            # One game's trouble must not stop the others' bots.
            log.exception("showcase match %s could not move", live.match_id)
    return sent


def _due(match: Match, turn: Turn, now: datetime) -> bool:
    """Whether the last turn (or step) has had its time on the board."""
    last = (
        Resolution.objects.filter(match=match)
        .order_by("-pk")
        .values_list("turn_number", "turn_ms", "created_at")
        .first()
    )
    if last is None:
        return now >= turn.started_at  # nothing before it to show
    number, shown_ms, made = last
    # A step of this very turn: its own time counts from when it was made.
    since = made if number == turn.number else turn.started_at
    return now >= since + timedelta(milliseconds=min(shown_ms, PLAYED_MS))


def _step(match: Match, now: datetime) -> bool:
    if not match.is_live:
        showcase_current(match.ruleset, now=now, watch=False)  # the next, for the same viewers
        return False
    turn = Turn.objects.filter(
        match=match, number=match.turn_number, status=Turn.Status.WAITING
    ).first()
    if turn is None or match.status != Match.Status.RUNNING or match.state is None:
        return False
    if not _due(match, turn, now):
        return False
    awaited = engine.awaiting(match.state)
    if turn.seat == AT_ONCE:
        given = set(
            Orders.objects.filter(match=match, turn_number=turn.number, step=0).values_list(
                "seat", flat=True
            )
        )
        playing = [number for number in awaited if number not in given]
    else:
        playing = awaited[:1]  # one seat at a time; a step, one step at a time
    sent = False
    seats = Seat.objects.select_related("user").filter(match=match, number__in=playing)
    for seat in seats.order_by("number"):
        outcome = _play(match, turn, seat)
        if outcome is None:
            return sent  # another step got there first
        sent = outcome or sent
    return sent


def _play(match: Match, turn: Turn, seat: Seat) -> bool | None:
    """Send a house seat's bot's orders (a pass if they are refused): True if sent,
    None if another step sent this turn's first."""
    bot = house_bot(seat.user, match.ruleset)
    if bot is None or seat.user is None:
        log.error("showcase match %s: seat %s is no house seat", match.pk, seat.number)
        return False
    state = match.state
    try:
        orders = engine.bot_orders(bot, state, seat.number)
    except Exception:
        log.exception("showcase bot %r failed in match %s turn %s", bot, match.pk, turn.number)
        orders = engine.default_orders(state, seat.number)
    for attempt in (orders, engine.default_orders(state, seat.number)):
        given = {k: v for k, v in attempt.items() if k not in ("seat", "turn")}
        try:
            orders_submit(
                match_id=match.pk, user=seat.user, turn=turn.number, orders=given, api=True
            )
        except ServiceError as error:
            if error.status == 409:
                return None
            log.warning("showcase match %s turn %s: %s", match.pk, turn.number, error.message)
            continue
        return True
    return False
