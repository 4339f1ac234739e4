"""The lobby's use cases: create, play now, join, leave, come back; and the start."""

from __future__ import annotations

import secrets
import unicodedata
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

import engine
from games.errors import Conflict, NotAPlayer, ServiceError
from games.guests.selectors import is_guest, refuse_guest
from games.models import (
    SEATS_MAX,
    SEATS_MIN,
    TITLE_MAX,
    TURN_SECONDS_MAX,
    TURN_SECONDS_MIN,
    Match,
    NotificationKind,
    Seat,
)
from games.services.notifications import notify
from games.services.turns import turn_begin

# The bots "Play now" seats, in order of preference, when the engine has them.
PLAY_NOW_BOTS = ("miner", "fighter", "random")
LENGTH_MS_MIN = 1_000
LENGTH_MS_MAX = 3_600_000


def seat_numbers(
    seat_count: int, ruleset: str = "helium3", options: Mapping[str, Any] | None = None
) -> list[int]:
    """The engine's seat numbers for a match of this size (Helium 3 with 2 players:
    seats 1 and 3)."""
    try:
        state = engine.new_game(seed=0, seats=seat_count, ruleset=ruleset, options=options)
    except engine.EngineError as error:  # options that do not fit the seats (a Skyport map)
        raise ServiceError("bad_option", error.message) from None
    return [int(player["seat"]) for player in state["players"]]


def ruleset_seats(ruleset: str) -> tuple[int, ...]:
    """The seat counts a match of `ruleset` may have (none for an unknown name)."""
    return engine.ruleset(ruleset).seats if ruleset in engine.ruleset_names() else ()


def ruleset_default_seats(ruleset: str) -> int:
    """The seat count of a match of `ruleset` when none is asked for: the game's usual
    one (four for Helium 3, two for Halite); 4 for an unknown name, refused later."""
    if ruleset not in engine.ruleset_names():
        return 4
    return engine.ruleset(ruleset).default_seats


def ruleset_at_once(ruleset: str) -> bool:
    """Whether seats of `ruleset` give orders at once (all its turns, or its setup)."""
    if ruleset not in engine.ruleset_names():
        return False
    shape = engine.ruleset(ruleset).shape
    return shape.simultaneous or shape.setup


def ruleset_has_steps(ruleset: str) -> bool:
    """Whether a turn of `ruleset` is made of steps (each orders object one step)."""
    return ruleset in engine.ruleset_names() and engine.ruleset(ruleset).shape.steps


def match_options_clean(ruleset: str, options: Mapping[str, Any] | None) -> dict[str, Any]:
    """Every option of a new `ruleset` game, checked and with the defaults filled in;
    ServiceError (nothing created) on an unknown ruleset, option or a bad value."""
    if ruleset not in engine.ruleset_names():
        known = ", ".join(engine.ruleset_names())
        raise ServiceError("unknown_ruleset", f"There is no game {ruleset[:40]!r}; known: {known}.")
    try:
        return dict(engine.ruleset(ruleset).resolve_options(dict(options or {})))
    except engine.OptionError as error:
        raise ServiceError("bad_option", error.message) from None


def _game_in_sentence(ruleset: str) -> str:
    """A game's title inside a sentence: "Halite", "Helium 3", but "robot arena" (a
    title whose later words are lower case is a common noun, not a name)."""
    from games import catalog

    title = catalog.title(ruleset) if ruleset in catalog.names() else ruleset
    words = title.split()
    if len(words) > 1 and all(w.islower() for w in words[1:]):
        return title[:1].lower() + title[1:]
    return title


def _and_list(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + f" and {items[-1]}"


def bot_unknown_message(name: str, ruleset: str) -> str:
    """Why `name` is no bot of `ruleset`, naming the game it is a bot of, if any, and
    this game's bots ("hunter is a robot arena bot; Halite's bots are grower and random")."""
    elsewhere = [
        _game_in_sentence(other)
        for other in engine.ruleset_names()
        if other != ruleset and name in engine.bot_names(other)
    ]
    shown = name[:40]
    said = (
        f"{shown} is a {_and_list(elsewhere)} bot"
        if elsewhere
        else (f"There is no built-in bot called {shown!r}")
    )
    game = _game_in_sentence(ruleset)
    own = engine.bot_names(ruleset)
    if not own:
        return f"{said}; {game} has no built-in bots."
    return f"{said}; {game}'s bots are {_and_list(own)}."


def match_title_clean(raw: str) -> str:
    """A match title as stored: one line (every run of white space, line breaks
    included, becomes one space), no other control characters, at most TITLE_MAX
    characters. Markup is kept as typed: pages and emails escape it."""
    text = "".join(ch for ch in " ".join(raw.split()) if unicodedata.category(ch) != "Cc")
    if len(text) > TITLE_MAX:
        raise ServiceError("bad_title", f"A match title has at most {TITLE_MAX} characters.")
    return text


def match_create(
    *,
    creator: User,
    seat_count: int = 4,
    turn_seconds: int = 24 * 3600,
    length_ms: int = 600_000,
    bots: Sequence[str] = (),
    public: bool = True,
    api: bool = False,
    title: str = "",
    ruleset: str = "helium3",
    options: Mapping[str, Any] | None = None,
    rated: bool | None = None,
) -> Match:
    """A new match of `ruleset` with its `options`, the creator in the first seat.

    bots[i] is the built-in bot for the (i + 2)-th seat, "" to leave it open for a
    person. With one bot name per seat the creator only watches: a match of bots.
    The match starts at once when no seat is left open. `public`: anyone may watch
    it; `api`: the creator's seat is driven through the bot API (no emails). The
    ruleset's own `length_ms` option, if it has one, is the battle length.
    `rated`: its end changes ratings (by default when no seat is a built-in bot's;
    never for a guest: see match_rated).
    """
    title = match_title_clean(title)
    match_options_clean(ruleset, None)  # an unknown ruleset is refused here
    rules = engine.ruleset(ruleset)
    if seat_count not in rules.seats or not SEATS_MIN <= seat_count <= SEATS_MAX:
        allowed = ", ".join(str(n) for n in rules.seats if SEATS_MIN <= n <= SEATS_MAX)
        raise ServiceError("bad_seats", f"A match of this game has {allowed} seats.")
    if not TURN_SECONDS_MIN <= turn_seconds <= TURN_SECONDS_MAX:
        raise ServiceError("bad_deadline", "The time per turn is from 1 minute to 3 days.")
    bad_length = ServiceError("bad_length", "The battle length is from 1 second to 1 hour.")
    if not LENGTH_MS_MIN <= length_ms <= LENGTH_MS_MAX:
        raise bad_length
    given = dict(options or {})
    if any(o.name == "length_ms" for o in rules.options):
        given.setdefault("length_ms", length_ms)
    values = match_options_clean(ruleset, given)
    length_ms = int(values.get("length_ms", length_ms))
    if not LENGTH_MS_MIN <= length_ms <= LENGTH_MS_MAX:
        raise bad_length
    watch_only = len(bots) == seat_count and all(bots)
    if len(bots) > seat_count or (len(bots) == seat_count and not watch_only):
        raise ServiceError("bad_bots", "More bots than seats left for them.")
    if not watch_only and not (len(bots) == seat_count - 1 and all(bots)):
        refuse_guest(creator)  # a seat left open for another person
    known = set(engine.bot_names(ruleset))
    for name in bots:
        if name and name not in known:
            raise ServiceError("unknown_bot", bot_unknown_message(name, ruleset))
    numbers = seat_numbers(seat_count, ruleset, values)
    rated = match_rated(creator=creator, bots=bots, asked=rated)
    now = timezone.now()
    with transaction.atomic():
        match = Match.objects.create(
            created_by=creator,
            seat_count=seat_count,
            turn_seconds=turn_seconds,
            length_ms=length_ms,
            public=public,
            title=title,
            ruleset=ruleset,
            options=values,
            rated=rated,
        )
        if watch_only:
            bot_for = list(bots)
        else:
            bot_for = list(bots) + [""] * (seat_count - 1 - len(bots))
            Seat.objects.create(
                match=match, number=numbers[0], user=creator, joined_at=now, api=api
            )
        for number, bot in zip(numbers[-len(bot_for) :], bot_for, strict=True):
            Seat.objects.create(match=match, number=number, bot=bot, joined_at=now if bot else None)
        if all(bot_for):
            match_start(match=match, now=now, started_by=creator)
        return match


def match_rated(*, creator: User, bots: Sequence[str], asked: bool | None) -> bool:
    """Whether a new match is rated (docs/compete.md): as asked, else rated when every
    seat is a person's or an API bot's and casual against built-in bots. A guest's
    match is never rated: asking for it is refused."""
    if is_guest(creator):
        if asked:
            raise ServiceError("guests_play_casual", "A guest's matches are never rated.")
        return False
    return not any(bots) if asked is None else asked


def match_play_now(*, user: User, ruleset: str = "helium3") -> Match:
    """One click: a public match of `ruleset` against built-in bots, started at once.

    It has the game's usual number of seats (four where it allows them) and its
    default options; the bots are the game's own, those not in PLAY_NOW_BOTS first
    and then those in it in its order (Helium 3: miner, fighter, random)."""
    match_options_clean(ruleset, None)  # an unknown ruleset is refused here
    rules = engine.ruleset(ruleset)
    allowed = [n for n in rules.seats if SEATS_MIN <= n <= SEATS_MAX]
    if not allowed:
        raise ServiceError("bad_seats", "This game cannot be played on this site.")
    seat_count = rules.default_seats if rules.default_seats in allowed else max(allowed)
    names = engine.bot_names(ruleset)
    preferred = [n for n in names if n not in PLAY_NOW_BOTS]
    preferred += [n for n in PLAY_NOW_BOTS if n in names]
    if not preferred:
        raise ServiceError("no_bots", "This game has no built-in bot to play against.")
    bots = [preferred[i % len(preferred)] for i in range(seat_count - 1)]
    return match_create(
        creator=user, seat_count=seat_count, bots=bots, public=True, ruleset=ruleset
    )


def match_start(
    *, match: Match, now: datetime, seed: int | None = None, started_by: User | None = None
) -> None:
    """Every seat is taken: a fresh seed (unless given), the initial state, the first turn.

    `started_by`: the player whose click started it (Play now, the last seat taken)
    is on its page already and gets no "Match started" email; the others do."""
    seed = secrets.randbelow(2**31) if seed is None else seed
    state = engine.new_game(
        seed=seed,
        seats=match.seat_count,
        length_ms=match.length_ms,
        ruleset=match.ruleset,
        options=match.options,
    )
    match.seed = seed
    match.initial_state = state
    match.state = state
    match.status = Match.Status.RUNNING
    match.started_at = now
    match.save(update_fields=["seed", "initial_state", "state", "status", "started_at"])
    players = Seat.objects.filter(match=match, user__isnull=False).select_related("user")
    if started_by is not None:
        players = players.exclude(user=started_by)
    for seat in players:
        notify(
            user=seat.user,
            match=match,
            kind=NotificationKind.MATCH_STARTED,
            context={"seat": seat.number},
        )
    turn_begin(match=match, now=now)


def seat_join(*, match_id: int, user: User, api: bool = False) -> Seat:
    """Take the lowest free seat of an open match; the last seat taken starts it.

    `api`: the seat is taken through the bot API, so it gets no emails.
    """
    refuse_guest(user)
    with transaction.atomic():
        match = Match.objects.select_for_update().get(pk=match_id)
        if match.status != Match.Status.OPEN:
            raise Conflict("not_open", "This match is not open for players any more.")
        if Seat.objects.filter(match=match, user=user).exists():
            raise Conflict("already_seated", "You already have a seat in this match.")
        now = timezone.now()
        for seat in Seat.objects.filter(match=match, user__isnull=True, bot="").order_by("number"):
            # Conditional: two people clicking "join" for one seat cannot both get it.
            taken = Seat.objects.filter(pk=seat.pk, user__isnull=True, bot="").update(
                user=user, joined_at=now, api=api
            )
            if taken == 1:
                break
        else:
            raise Conflict("full", "Every seat of this match is taken.")
        if not Seat.objects.filter(match=match, user__isnull=True, bot="").exists():
            match_start(match=match, now=now, started_by=user)
        return Seat.objects.get(pk=seat.pk)


def seat_leave(*, match_id: int, user: User) -> Match:
    """Give a seat back before the start. A match nobody sits in any more is aborted."""
    with transaction.atomic():
        match = Match.objects.select_for_update().get(pk=match_id)
        seat = Seat.objects.filter(match=match, user=user).first()
        if seat is None:
            raise NotAPlayer("not_a_player", "You do not have a seat in this match.")
        if match.status != Match.Status.OPEN:
            raise Conflict("started", "The match has started; a seat cannot be left now.")
        seat.user = None
        seat.joined_at = None
        seat.save(update_fields=["user", "joined_at"])
        if not Seat.objects.filter(match=match, user__isnull=False).exists():
            match.status = Match.Status.ABORTED
            match.finished_at = timezone.now()
            match.save(update_fields=["status", "finished_at"])
        return match


def seat_reclaim(*, match_id: int, user: User) -> Seat:
    """A player whose seat a stand-in bot took over plays it again from the next turn."""
    with transaction.atomic():
        match = Match.objects.select_for_update().get(pk=match_id)
        seat = Seat.objects.filter(match=match, user=user).first()
        if seat is None:
            raise NotAPlayer("not_a_player", "You do not have a seat in this match.")
        if not match.is_live:
            raise Conflict("not_running", "The match is not running.")
        if not seat.standin_bot:
            raise Conflict("not_handed_over", "Your seat is not played by a bot.")
        seat.standin_bot = ""
        seat.missed_in_row = 0
        seat.save(update_fields=["standin_bot", "missed_in_row"])
        return seat
