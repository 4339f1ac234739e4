"""The ladder end to end, with nothing but the bots' own requests: a live server, the
real Celery worker, and a real celery beat (embedded in a thread of this process)
running the site's ladder tasks on a short LADDER_INTERVAL_SECONDS. Two API bots,
each a thread with its own token speaking HTTP through examples/bot.py's client, put
themselves on the rock-paper-scissors test game's ladder, hold the event stream
open, play every turn the stream says is theirs, and at the end read their ratings
from the API. The test only waits, then reads the database."""

from __future__ import annotations

import importlib.util
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from api_support import token_for
from django.db import transaction

from games.compete.models import Kind, Rating, RatingChange
from games.ladder.models import LadderMatch, LadderSlot
from games.models import Match, Orders, Seat

pytestmark = [pytest.mark.worker, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

GAME = "rps"
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "bot.py"
WANTED = 3  # ladder matches each bot sees to the end


def example_client() -> Any:
    spec = importlib.util.spec_from_file_location("example_bot", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.Client


class LadderBot(threading.Thread):
    """A program on the ladder: on, then the stream, throwing on each of its turns."""

    def __init__(self, url: str, token: str, throw: str, seconds: float) -> None:
        super().__init__(daemon=True)
        self.client = example_client()(url, token, timeout=10.0)
        self.throw = throw
        self.until = time.monotonic() + seconds
        self.over: set[int] = set()
        self.played: set[int] = set()
        self.ratings: Any = None
        self.me: Any = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            status, body = self.client.call("PUT", f"/ladder/{GAME}/", {"on": True})
            assert status == 200 and body["on"], body
            while len(self.over) < WANTED and time.monotonic() < self.until:
                try:
                    self._listen()
                except OSError:
                    time.sleep(0.2)  # a dropped stream: connect again
            status, self.ratings = self.client.call("GET", f"/ratings/{GAME}/?limit=50")
            assert status == 200
            name = self.client.call("GET", f"/ladder/{GAME}/")[1]
            self.me = name
        except BaseException as error:  # noqa: BLE001 - the test reports it
            self.error = error

    def _listen(self) -> None:
        events: Iterator[Any] = self.client.events()
        try:
            for event in events:
                if time.monotonic() > self.until or len(self.over) >= WANTED:
                    return
                if event is None:
                    continue
                if event["type"] == "your_turn":
                    match = event["match"]
                    orders = {"seat": match["seat"], "turn": match["state"]["turn"]}
                    try:
                        self.client.call(
                            "POST",
                            f"/matches/{event['match_id']}/orders/",
                            {**orders, "throw": self.throw},
                        )
                        self.played.add(event["match_id"])
                    except Exception as error:  # a 409: the turn moved on
                        if getattr(error, "status", None) != 409:
                            raise
                elif event["type"] == "match_over":
                    self.over.add(event["match_id"])
        finally:
            events.close()  # type: ignore[attr-defined]


def test_two_api_bots_on_a_ladder_get_rated_matches_without_asking(
    celery_worker: Any, live_server: Any, ladder_beat: None, player: Any, opponent: Any,
    settings: Any,
) -> None:  # fmt: skip
    settings.API_RATE_LIMIT = 100_000
    bots = [
        LadderBot(live_server.url, token_for(player), "rock", 150.0),
        LadderBot(live_server.url, token_for(opponent), "paper", 150.0),
    ]
    for bot in bots:
        bot.start()
    for bot in bots:
        bot.join(170)
    for bot in bots:
        assert bot.error is None, repr(bot.error)
        assert len(bot.over) >= WANTED, (bot.over, bot.played)
    # The worker still plays on: read in one transaction (on SQLite it holds the
    # write lock, so nothing finishes while the test reads).
    with transaction.atomic():
        check_ladder(player, opponent, bots, settings)


def check_ladder(player: Any, opponent: Any, bots: list[LadderBot], settings: Any) -> None:
    ladder = LadderMatch.objects.filter(game=GAME)
    assert ladder.count() >= WANTED
    finished = Match.objects.filter(ladder__in=ladder, status=Match.Status.FINISHED)
    for user, bot in zip((player, opponent), bots, strict=True):
        mine = finished.filter(seats__user=user)
        assert set(mine.values_list("pk", flat=True)) >= bot.over & set(
            finished.values_list("pk", flat=True)
        )
        # It played its own turns: orders it sent, none the clock's.
        seats = Seat.objects.filter(match__in=mine, user=user)
        assert all(s.api for s in seats)
        sent = Orders.objects.filter(match__in=mine, submitted_by=user)
        assert sent.filter(source=Orders.Source.PLAYER).exists()
        # Rated: a change per seat of every finished ladder match; an API bot's rating.
        rating = Rating.objects.get(game=GAME, user=user)
        assert rating.kind == Kind.API_BOT
        assert rating.matches == mine.count() >= WANTED
        assert RatingChange.objects.filter(rating=rating).count() == rating.matches
        # What the bot read at the end through the API.
        assert bot.me["on"] is True
        assert {m["id"] for m in bot.me["matches"]} & bot.over
    for match in finished:
        assert match.rated and match.public
        assert RatingChange.objects.filter(match=match).count() == match.seat_count
    # Never more than two running per bot: the slots say so (unique per bot and number).
    assert all(
        n < settings.LADDER_MATCHES_PER_BOT
        for n in LadderSlot.objects.values_list("number", flat=True)
    )
    # The built-in bots played too, and were rated.
    assert Rating.objects.filter(game=GAME, kind=Kind.BUILTIN_BOT).exists()
