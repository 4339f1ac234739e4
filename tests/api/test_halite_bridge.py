"""examples/halite_bridge.py, end to end: a bot written for the 2016 Halite
environment (examples/halite2016_bot.py, which speaks only the 2016 text protocol
on its standard input and output) plays a whole Halite match on a live server,
with the real Celery worker resolving the turns, against a built-in bot.

Every turn of its seat is checked against the bot itself: given the map the seat
saw before that turn, the bot's own strategy gives exactly the moves the site
stored, so the map went out and the moves came back through the 2016 protocol
intact (run-length encoded owners, strengths, productions, the moves line)."""

from __future__ import annotations

import importlib.util
import json
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from api_support import token_for
from django.core.signals import request_started

import engine
from engine import match as engine_match
from engine.halite import hlt
from games import services
from games.models import Match, Orders, Seat

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
BRIDGE = EXAMPLES / "halite_bridge.py"
BOT = EXAMPLES / "halite2016_bot.py"


def _load(path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


bridge = _load(BRIDGE)
bot2016 = _load(BOT)

# With a drawn seed, about one 10 x 10 map in thirty ends within ten turns; a fixed
# seed plays the same 40-turn match on every run.
SEED = 4


@pytest.fixture
def fixed_seed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(services.matches.secrets, "randbelow", lambda _n: SEED)


def _bridge(
    live_server: Any, match_id: int, *options: str, bot: tuple[str, ...] = (str(BOT),)
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            str(BRIDGE),
            "--url",
            live_server.url,
            "--match",
            str(match_id),
            *options,
            "--",
            sys.executable,
            *bot,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )


class Requests:
    """Every request the live server takes while counting: (method, path)."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []

    def __call__(self, sender: Any, environ: dict[str, Any], **kwargs: Any) -> None:
        self.seen.append((environ["REQUEST_METHOD"], environ["PATH_INFO"]))

    def __enter__(self) -> Requests:
        request_started.connect(self)
        return self

    def __exit__(self, *exc: object) -> None:
        request_started.disconnect(self)

    def count(self, method: str, path: str) -> int:
        return self.seen.count((method, path))


def _whole_match(live_server: Any, player: Any, *options: str) -> tuple[dict[str, Any], Requests]:
    """A whole 10 x 10 match of the 2016 bot, through the bridge, against `grower`;
    every one of its turns checked against the bot's own choice."""
    created = services.match_create(
        creator=player,
        ruleset="halite",
        options={"width": 10, "height": 10},
        seat_count=2,
        bots=["grower"],
        api=True,
        turn_seconds=3600,
    )
    token = token_for(player, "bridge")
    with Requests() as requests:
        result = _bridge(
            live_server, created.pk, "--token", token, "--max-seconds", "100", *options
        )
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    match = Match.objects.get(pk=created.pk)
    assert match.status == Match.Status.FINISHED
    assert summary["status"] == "finished" and summary["seat"] == 1
    assert summary["name"] == "Halite2016ExampleBot"
    assert summary["winners"] == match.winners and summary["turns"] == match.state["turn"]

    # Every one of seat 1's turns came through the API: the bot's moves, as the bot
    # itself chooses them on the map it was sent.
    mine = Orders.objects.filter(match=match, seat=1)
    assert {o.source for o in mine} == {Orders.Source.PLAYER}
    assert mine.count() == summary["turns_played"]
    assert requests.count("POST", f"/api/v1/matches/{match.pk}/orders/") == mine.count()
    record = match.record
    assert engine_match.replay_check(record)["turns"] == match.state["turn"]
    state, moved = record["initial"], 0
    for turn in record["turns"]:
        ours = next((o for o in turn["orders"] if o["seat"] == 1), None)
        if ours is not None:
            chosen = bot2016.choose(1, state["production"], state["owner"], state["strength"])
            assert ours["moves"] == sorted([x, y, d] for x, y, d in chosen), state["turn"]
            moved += len(ours["moves"])
        state = engine.apply(state, turn["orders"]).state
    assert moved > 0
    assert len(record["turns"]) == summary["turns_played"] or 1 not in state["alive"]
    # The site's replay of the match is a Halite replay the 2016 format can carry.
    exported = hlt.export(record)
    assert exported.num_players == 2 and len(exported.frames) == match.state["turn"] + 1
    return summary, requests


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_2016_bot_plays_a_whole_match_on_the_site_waiting_on_the_event_stream(
    celery_worker: Any, live_server: Any, player: Any, settings: Any, fixed_seed: None
) -> None:
    settings.API_RATE_LIMIT = 10_000  # a turn a few tenths of a second long: no pacing here
    summary, requests = _whole_match(live_server, player, "--rate", "100000")
    # The stream said when each turn came: the match itself was looked at only
    # once the stream was open (and when it said a seat was out).
    assert requests.count("GET", "/api/v1/stream/") == 1
    assert requests.count("GET", f"/api/v1/matches/{summary['match']}/") <= 3
    assert summary["turns_played"] >= 10


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_without_the_stream_the_bridge_looks_at_the_match_every_poll(
    celery_worker: Any, live_server: Any, player: Any, settings: Any, fixed_seed: None
) -> None:
    settings.API_RATE_LIMIT = 10_000
    options = ("--poll-only", "--poll", "0.05", "--rate", "100000")
    summary, requests = _whole_match(live_server, player, *options)
    assert requests.count("GET", "/api/v1/stream/") == 0
    assert requests.count("GET", f"/api/v1/matches/{summary['match']}/") > summary["turns_played"]


@pytest.mark.django_db(transaction=True)
def test_the_bridge_refuses_a_match_of_another_game(live_server: Any, player: Any) -> None:
    created = services.match_create(
        creator=player, ruleset="helium3-remake", seat_count=2, bots=["random"], api=True
    )
    result = _bridge(live_server, created.pk, "--token", token_for(player))
    assert result.returncode == 1
    assert "not a game of Halite" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.django_db(transaction=True)
def test_the_bridge_waits_as_long_as_the_server_asks_when_it_is_rate_limited(
    live_server: Any, player: Any, settings: Any
) -> None:
    settings.API_RATE_LIMIT = 3
    settings.API_RATE_WINDOW_SECONDS = 1
    # A match waiting for a second player: the bridge looks until it gives up.
    created = services.match_create(creator=player, ruleset="halite", seat_count=2, api=True)
    options = ("--poll-only", "--poll", "0.01", "--rate", "100000", "--max-seconds", "2.5")
    started = time.monotonic()
    with Requests() as requests:
        result = _bridge(live_server, created.pk, "--token", token_for(player), *options)
    assert result.returncode == 1 and "did not end within 2.5 s" in result.stderr
    assert "rate limited: waiting 1 s as the server asks" in result.stderr
    assert time.monotonic() - started >= 2.5
    # Three requests a second at most, and one refused in each window: looking every
    # 0.01 s without waiting would have made some two hundred.
    assert 4 <= len(requests.seen) <= 20, len(requests.seen)
    assert Match.objects.get(pk=created.pk).status == Match.Status.OPEN


@pytest.mark.django_db(transaction=True)
def test_the_bridge_keeps_under_the_rate_it_is_given(live_server: Any, player: Any) -> None:
    created = services.match_create(creator=player, ruleset="halite", seat_count=2, api=True)
    options = ("--poll-only", "--poll", "0.01", "--rate", "300", "--max-seconds", "2")
    with Requests() as requests:
        result = _bridge(live_server, created.pk, "--token", token_for(player), *options)
    assert result.returncode == 1 and "rate limited" not in result.stderr
    # 300 a minute is one request every 0.2 s: some ten in two seconds, not two hundred.
    assert 5 <= len(requests.seen) <= 13, len(requests.seen)


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_the_bridge_takes_the_seat_back_from_the_stand_in_bot(
    celery_worker: Any, live_server: Any, player: Any, settings: Any
) -> None:
    settings.API_RATE_LIMIT = 10_000
    created = services.match_create(
        creator=player, ruleset="halite", seat_count=2, bots=["grower"], api=True
    )
    # As the clock leaves a seat that missed its turns (MISSED_TURNS_BEFORE_BOT).
    Seat.objects.filter(match=created, number=1).update(standin_bot="grower", missed_in_row=3)
    options = ("--token", token_for(player), "--rate", "100000", "--max-seconds", "4")
    result = _bridge(live_server, created.pk, *options)
    assert result.returncode == 1 and "did not end within 4 s" in result.stderr
    assert "turn 0: took the seat back from the stand-in bot" in result.stderr
    assert Seat.objects.get(match=created, number=1).standin_bot == ""
    mine = Orders.objects.filter(match=created, seat=1)
    assert mine.exists() and {o.source for o in mine} == {Orders.Source.PLAYER}


# A bot that reads its init, gives its name and answers the first map with this.
ANSWERING = (
    "import sys\n"
    "for _ in range(4): sys.stdin.readline()\n"
    "print('Broken', flush=True)\n"
    "sys.stdin.readline()\n"
    "print(sys.argv[1], flush=True)\n"
    "sys.stdin.readline()\n"
)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("bot", "said"),
    [
        (("-c", "import sys; sys.exit(3)"), "the bot has exited (status 3)"),
        (("-c", ANSWERING, "1 1 north"), "other than digits and spaces: '1 1 north'"),
        (("-c", ANSWERING, "1 1 -2"), "other than digits and spaces: '1 1 -2'"),
        (("-c", "import time; time.sleep(30)"), "the bot did not answer within 1 s"),
    ],
    ids=["exits", "words", "negative", "silent"],
)
def test_a_bot_that_breaks_the_protocol_stops_the_bridge_and_the_site_keeps_the_seat(
    live_server: Any, player: Any, bot: tuple[str, ...], said: str
) -> None:
    created = services.match_create(
        creator=player, ruleset="halite", seat_count=2, bots=["grower"], api=True
    )
    options = ("--token", token_for(player), "--init-seconds", "1", "--turn-seconds", "1")
    result = _bridge(live_server, created.pk, *options, bot=bot)
    assert result.returncode == 1, result.stderr
    assert "bridge stopped: " in result.stderr and said in result.stderr
    assert "Traceback" not in result.stderr
    match = Match.objects.get(pk=created.pk)
    assert match.status == Match.Status.RUNNING and match.state["turn"] == 0
    assert not Orders.objects.filter(match=match, seat=1).exists()


# ---------------------------------------------------------------- the 2016 protocol


def _state(owner: list[list[int]], strength: list[list[int]], turn: int = 7) -> dict[str, Any]:
    height, width = len(owner), len(owner[0])
    production = [[(x + y) % 16 for x in range(width)] for y in range(height)]
    return {
        "width": width,
        "height": height,
        "turn": turn,
        "owner": owner,
        "strength": strength,
        "production": production,
    }


@pytest.mark.parametrize("seed", range(6))
def test_a_map_line_reads_back_as_the_same_owners_and_strengths(seed: int) -> None:
    rng = random.Random(seed)
    width, height = rng.randint(10, 50), rng.randint(10, 50)
    # Long runs (a whole map of one owner included) and short ones.
    spread = [0, 0, 0, 0, 1, 2, 3] if seed % 3 else [0]
    owner = [[rng.choice(spread) for _ in range(width)] for _ in range(height)]
    strength = [[rng.randint(0, 255) for _ in range(width)] for _ in range(height)]
    line = bridge.map_line(_state(owner, strength))
    assert line.endswith(" ") and "\n" not in line
    assert bot2016.parse_map(line, width, height) == (owner, strength)


def test_the_init_lines_give_the_size_and_every_production_in_row_order() -> None:
    state = _state([[0] * 12 for _ in range(10)], [[5] * 12 for _ in range(10)])
    assert bridge.size_line(state) == "12 10 "
    values = [int(v) for v in bridge.productions_line(state).split()]
    assert values == [(x + y) % 16 for y in range(10) for x in range(12)]


def test_a_map_line_runs_over_row_ends() -> None:
    owner = [[1, 1, 0], [0, 0, 2], [2, 2, 2]]
    line = bridge.map_line(_state(owner, [[9, 8, 7], [6, 5, 4], [3, 2, 1]]))
    assert line == "2 1 3 0 4 2 9 8 7 6 5 4 3 2 1 "


def test_moves_are_read_as_the_2016_environment_read_them() -> None:
    read = bridge.parse_moves
    assert read("1 2 3 4 5 1 1 2 0 \r\n", 10, 10) == {(1, 2): 0, (4, 5): 1}  # last one wins
    assert read("1 1 2 10 0 3 2 2 4", 10, 10) == {(1, 1): 2}  # stops at a cell off the map
    assert read("1 1 2 3 3", 10, 10) == {(1, 1): 2}  # an unfinished triple is ignored
    assert read("", 10, 10) == {}
    for line in ("1 1 -2", "1 1 north", "1,1,2", "1 1 2\t"):
        with pytest.raises(bridge.BotError, match="digits and spaces"):
            read(line, 10, 10)
    with pytest.raises(bridge.BotError, match="not one"):
        read("1 1 " + "9" * 5000, 10, 10)


def test_orders_keep_the_seats_own_pieces_that_move() -> None:
    owner = [[1, 1, 2], [0, 1, 1], [2, 2, 1]] + [[0, 0, 0]] * 7
    state = _state([row + [0] * 7 for row in owner], [[10] * 10 for _ in range(10)])
    moves = {(0, 0): 2, (1, 0): 0, (2, 0): 3, (0, 1): 1, (1, 1): 7, (2, 1): 4, (2, 2): 1}
    orders = bridge.orders_for(moves, state, 1, bridge.ORDERS_MAX_BYTES)
    assert orders == {"seat": 1, "turn": 7, "moves": [[0, 0, 2], [2, 1, 4], [2, 2, 1]]}


def test_a_whole_map_of_moves_fits_in_one_post() -> None:
    # Imported here: the API's schema lists the rulesets registered when it is first
    # imported, and the test rulesets are registered when the session starts.
    from games.api import matches as matches_api

    size = 50
    owner = [[1] * size for _ in range(size)]
    strength = [[255] * size for _ in range(size)]
    moves = {(x, y): 4 for y in range(size) for x in range(size)}
    orders = bridge.orders_for(moves, _state(owner, strength), 1, bridge.ORDERS_MAX_BYTES)
    assert len(orders["moves"]) == size * size
    assert len(json.dumps(orders)) <= matches_api.ORDERS_MAX_BYTES == bridge.ORDERS_MAX_BYTES


def test_whatever_a_bot_answers_the_orders_are_ones_the_engine_accepts() -> None:
    state = engine.new_game(seed=4, seats=3, ruleset="halite", options={"width": 12, "height": 11})
    for _ in range(6):  # a few turns in, so that seats own several cells
        orders = [engine.bot_orders("random", state, s) for s in engine.awaiting(state)]
        state = engine.apply(state, orders).state
    rng = random.Random(4)
    for seat in engine.awaiting(state):
        words = [str(rng.randint(0, 13)) for _ in range(3 * 200)]
        moves = bridge.parse_moves(" ".join(words), state["width"], state["height"])
        orders = bridge.orders_for(moves, state, seat, bridge.ORDERS_MAX_BYTES)
        engine.check(state, orders)


def test_orders_too_large_for_one_post_keep_the_strongest_pieces() -> None:
    # The site takes a whole 50 x 50 map of moves; a smaller --max-bytes still works.
    limit = 16_384
    size = 50
    owner = [[1] * size for _ in range(size)]
    strength = [[(x * 7 + y * 13) % 256 for x in range(size)] for y in range(size)]
    moves = {(x, y): 2 for y in range(size) for x in range(size)}
    orders = bridge.orders_for(moves, _state(owner, strength), 1, limit)
    body = json.dumps(orders, separators=(",", ":"))
    assert len(body) <= limit < len(json.dumps([[x, y, 2] for x, y in moves]))
    kept = {(x, y) for x, y, _d in orders["moves"]}
    weakest_kept = min(strength[y][x] for x, y in kept)
    assert all(strength[y][x] <= weakest_kept for x, y in set(moves) - kept)
    assert orders["moves"] == sorted(orders["moves"])
