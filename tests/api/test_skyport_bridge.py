"""examples/skyport_bridge.py, end to end: an AI written to the 2013 Skyport protocol
(line-based TCP, one JSON object a line: handshake, game start, loadout, gamestates,
actions, endturn) connects to the bridge on 127.0.0.1 and plays a whole Skyport match
on a live server, with the real Celery worker resolving the turns, against a built-in
bot.

The AI here is written from the protocol document alone: it knows nothing of the
site. Every one of its turns is checked against the match's record: the gamestate it
was sent is the state before that turn (map, positions, health, scores, the seat to
play first), and the orders the site stored are the actions it sent, translated."""

from __future__ import annotations

import importlib.util
import json
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from api_support import token_for

import engine
from games import services
from games.models import Match, Orders

BRIDGE = Path(__file__).resolve().parents[2] / "examples" / "skyport_bridge.py"


def _load(path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


bridge = _load(BRIDGE)

ROUNDS = 5
STEPS = {
    "up": (-1, -1),
    "down": (1, 1),
    "right-up": (-1, 0),
    "right-down": (0, 1),
    "left-up": (0, -1),
    "left-down": (1, 0),
}
CAMEL = {"right-up": "rightUp", "right-down": "rightDown", "left-up": "leftUp"}
CAMEL["left-down"] = "leftDown"


def _distance(dj: int, dk: int) -> int:
    return max(abs(dj), abs(dk)) if dj * dk >= 0 else abs(dj) + abs(dk)


def choose(gamestate: dict[str, Any], blunder: bool = False) -> list[dict[str, Any]]:
    """The 2013 AI's turn, from the gamestate alone (it is the first player): mine a
    resource it stands on, walk, then a mortar at a robot in reach, else a droid along
    its last step, else pass. With `blunder`, it first mines where nothing is."""
    data = gamestate["map"]["data"]
    size = gamestate["map"]["j-length"]
    me, *others = gamestate["players"]
    j, k = (int(x) for x in me["position"].split(","))
    taken = {tuple(int(x) for x in p["position"].split(",")) for p in others}
    out: list[dict[str, Any]] = []
    if blunder and data[j][k] not in "ERC":
        out.append({"type": "mine"})
    if data[j][k] in "ERC":
        out.append({"type": "mine"})
    last = "down"
    while len(out) < 2:
        free = [
            d
            for d, (dj, dk) in STEPS.items()
            if 0 <= j + dj < size
            and 0 <= k + dk < size
            and data[j + dj][k + dk] in "GERC"
            and (j + dj, k + dk) not in taken
        ]
        if not free:
            break
        rich = [d for d in free if data[j + STEPS[d][0]][k + STEPS[d][1]] in "ERC"]
        last = (rich or free)[0]
        out.append({"type": "move", "direction": last})
        j, k = j + STEPS[last][0], k + STEPS[last][1]
    if data[j][k] == "S":
        return [*out, {"type": "pass"}]
    for p in others:
        tj, tk = (int(x) for x in p["position"].split(","))
        if _distance(tj - j, tk - k) <= 2 and p["health"] > 0:
            return [*out, {"type": "mortar", "coordinates": f"{tj - j},{tk - k}"}]
    # A droid walk in the protocol's own spelling ("rightUp").
    return [*out, {"type": "droid", "sequence": [CAMEL.get(last, last)] * 3}]


def site_actions(sent: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The site's actions for what the AI sent: pass ends the turn, camel case spelled out."""
    out = []
    for a in sent:
        if a["type"] == "pass":
            break
        if a["type"] == "mortar":
            dj, dk = (int(x) for x in a["coordinates"].split(","))
            out.append({"type": "mortar", "target": [dj, dk]})
        elif a["type"] == "droid":
            spelled = {v: key for key, v in CAMEL.items()}
            out.append({"type": "droid", "sequence": [spelled.get(d, d) for d in a["sequence"]]})
        else:
            out.append(a)
    return out


class Ai2013:
    """A 2013 AI: connects, shakes hands, sends its loadout at the game start and its
    actions when it is first in a gamestate's players; keeps every message."""

    def __init__(
        self, port: int, name: str = "walker", *, blunder: bool = False, extra: bool = False
    ) -> None:
        self.name, self.blunder, self.extra = name, blunder, extra
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=60)
        self.received: list[dict[str, Any]] = []
        self.turns: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []
        self.thread = threading.Thread(target=self.run, daemon=True)

    def send(self, message: dict[str, Any]) -> None:
        self.sock.sendall(json.dumps(message).encode() + b"\n")

    def run(self) -> None:
        self.send({"message": "connect", "revision": 1, "name": self.name})
        with self.sock, self.sock.makefile("r", encoding="utf-8") as lines:
            for line in lines:
                message = json.loads(line)
                self.received.append(message)
                if message.get("message") != "gamestate":
                    continue
                if message["turn"] == 0:
                    self.send({"message": "loadout", "primary-weapon": "droid",
                               "secondary-weapon": "mortar"})  # fmt: skip
                elif message["players"][0]["name"] == self.name:
                    actions = choose(message, self.blunder)
                    self.turns.append((message, actions))
                    for action in actions:
                        self.send({"message": "action", **action})
                    if self.extra:  # one action past the turn's end
                        self.send({"message": "action", "type": "mine"})


def _start_bridge(live_server: Any, match_id: int, token: str, *options: str) -> Any:
    process = subprocess.Popen(
        [
            sys.executable, str(BRIDGE), "--url", live_server.url, "--match", str(match_id),
            "--token", token, "--listen", "127.0.0.1:0", "--rate", "100000", *options,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    assert process.stderr is not None
    first = process.stderr.readline()
    assert first.startswith("listening on 127.0.0.1:"), first + process.stderr.read()
    process.port = int(first.rsplit(":", 1)[1])
    return process


def _finish(process: Any) -> tuple[int, str, str]:
    out, err = process.communicate(timeout=150)
    return process.returncode, out, err


def _match(player: Any, **kwargs: Any) -> Match:
    return services.match_create(
        creator=player,
        ruleset="skyport",
        options={"rounds": ROUNDS},
        seat_count=2,
        bots=["prospector"],
        api=True,
        turn_seconds=3600,
        **kwargs,
    )


def _seats(orders: Any) -> list[int]:
    return [o["seat"] for o in (orders if isinstance(orders, list) else [orders])]


def _turns_of_seat_1(match: Match) -> int:
    """Seat 1's turns in a finished match: one a round, but a turn a dead seat
    skips (the bot's mortar can kill it; the rules skip its next turn)."""
    skipped = sum(
        1
        for turn in match.record["turns"]
        for event in turn["events"]
        if event["type"] == "skip" and event["seat"] == 1
    )
    return ROUNDS - skipped


def _states_before_each_turn(match: Match) -> dict[int, dict[str, Any]]:
    record = match.record
    state = record["initial"]
    before = {}
    for turn in record["turns"]:
        before[state["turn"]] = state
        state = engine.apply(state, turn["orders"]).state
    return before


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_2013_ai_plays_a_whole_match_on_the_site_through_the_bridge(
    celery_worker: Any, live_server: Any, player: Any, settings: Any
) -> None:
    settings.API_RATE_LIMIT = 10_000
    created = _match(player)
    process = _start_bridge(live_server, created.pk, token_for(player, "bridge"))
    ai = Ai2013(process.port)
    ai.thread.start()
    code, out, err = _finish(process)
    ai.thread.join(10)
    assert code == 0, err
    assert "Traceback" not in err
    summary = json.loads(out.strip().splitlines()[-1])
    match = Match.objects.get(pk=created.pk)
    assert match.status == Match.Status.FINISHED and match.state["round"] == ROUNDS
    assert summary["status"] == "finished" and summary["name"] == "walker"
    assert summary["seat"] == 1 and summary["winners"] == match.winners

    kinds = [m.get("message") for m in ai.received]
    assert kinds[0] == "connect" and ai.received[0]["status"] is True
    assert kinds[1] == "gamestate" and ai.received[1]["turn"] == 0  # the game start
    assert not [m for m in ai.received if "error" in m]

    # The loadout, then every turn of seat 1: the actions the AI sent, as orders.
    mine = list(Orders.objects.filter(match=match, seat=1).order_by("turn_number"))
    assert {o.source for o in mine} == {Orders.Source.PLAYER}
    assert mine[0].orders["loadout"] == ["droid", "mortar"]
    played = _turns_of_seat_1(match)
    assert len(mine) - 1 == len(ai.turns) == played == summary["turns_played"] - 1
    before = _states_before_each_turn(match)
    for orders, (told, sent) in zip(mine[1:], ai.turns, strict=True):
        assert told["turn"] == orders.turn_number
        assert orders.orders["actions"] == site_actions(sent), told["turn"]
        state = before[told["turn"]]
        assert told["map"]["data"] == [list(row) for row in state["tiles"]]
        me = told["players"][0]
        p1 = state["players"][0]
        assert me["position"] == f"{p1['j']},{p1['k']}"
        assert (me["health"], me["score"]) == (p1["health"], p1["score"])
        assert me["primary-weapon"]["name"] == "droid"
        assert me["secondary-weapon"]["name"] == "mortar"
    kinds_sent = {a["type"] for _, sent in ai.turns for a in sent}
    assert {"move", "droid"} <= kinds_sent

    # Every resolved turn was told: its actions with `from` (the bot's too), then
    # endturn; the gamestates went out in the order of the turns, one a turn at most.
    assert kinds.count("endturn") == len(match.record["turns"])
    moves = [m for m in ai.received if m.get("message") == "action"]
    assert {m["from"] for m in moves} == {"walker", "prospector"}
    bots_turns = [t for t in match.record["turns"] if _seats(t["orders"]) == [2]]
    told_moves = [m for m in moves if m["from"] == "prospector"]
    assert len(told_moves) == sum(
        1 for t in bots_turns for e in t["events"] if e["type"] in bridge.ACTION_EVENTS
    )
    turns = [m["turn"] for m in ai.received if m.get("message") == "gamestate"]
    assert turns == sorted(set(turns)) and turns[0] == 0


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_without_the_stream_the_bridge_looks_at_the_match_and_the_ai_still_plays(
    celery_worker: Any, live_server: Any, player: Any, settings: Any
) -> None:
    settings.API_RATE_LIMIT = 10_000
    created = _match(player)
    options = ("--poll-only", "--poll", "0.05")
    process = _start_bridge(live_server, created.pk, token_for(player, "bridge"), *options)
    ai = Ai2013(process.port)
    ai.thread.start()
    code, out, err = _finish(process)
    ai.thread.join(10)
    assert code == 0, err
    played = _turns_of_seat_1(Match.objects.get(pk=created.pk))
    assert json.loads(out.strip().splitlines()[-1])["turns_played"] == played + 1
    mine = Orders.objects.filter(match_id=created.pk, seat=1).exclude(turn_number=0)
    sent = [site_actions(actions) for _told, actions in ai.turns]
    assert [o.orders["actions"] for o in mine.order_by("turn_number")] == sent
    assert len(sent) == played
    # Without the stream no turn is told by its actions.
    assert not [m for m in ai.received if m.get("message") in ("action", "endturn")]


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_an_action_the_site_refuses_is_skipped_and_one_out_of_turn_discarded_as_in_2013(
    celery_worker: Any, live_server: Any, player: Any, settings: Any
) -> None:
    settings.API_RATE_LIMIT = 10_000
    created = _match(player)
    process = _start_bridge(live_server, created.pk, token_for(player, "bridge"))
    ai = Ai2013(process.port, blunder=True, extra=True)
    ai.thread.start()
    code, _out, err = _finish(process)
    ai.thread.join(10)
    assert code == 0, err
    errors = [m["error"] for m in ai.received if "error" in m]
    # The action sent past each turn's end (an attack or a pass ends it) was no turn's.
    late = [e for e in errors if e.startswith("not your turn, discarded: ")]
    assert len(ai.turns) - 1 <= len(late) <= len(ai.turns)
    errors = [e for e in errors if e not in late]
    assert all("Action 1" in e and e.endswith("(skipped)") for e in errors)
    mine = Orders.objects.filter(match_id=created.pk, seat=1).exclude(turn_number=0)
    skipped = 0
    for orders, (told, sent) in zip(mine.order_by("turn_number"), ai.turns, strict=True):
        j, k = (int(x) for x in told["players"][0]["position"].split(","))
        wanted = site_actions(sent)
        if told["map"]["data"][j][k] not in "ERC":  # the first mine was the blunder
            wanted, skipped = wanted[1:], skipped + 1
        assert orders.orders["actions"] == wanted
    assert skipped == len(errors) > 0


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("hello", "said"),
    [
        ({"message": "loadout"}, "You need to send a handshake first"),
        ({"message": "connect", "revision": 2, "name": "x"}, "revision 1"),
        ({"message": "connect", "revision": 1, "name": "a" * 16}, "1 to 15 letters"),
    ],
    ids=["no-handshake", "revision", "long-name"],
)
def test_a_bad_handshake_is_answered_with_an_error_and_stops_the_bridge(
    live_server: Any, player: Any, hello: dict[str, Any], said: str
) -> None:
    created = _match(player)
    process = _start_bridge(live_server, created.pk, token_for(player))
    with socket.create_connection(("127.0.0.1", process.port), timeout=20) as sock:
        sock.sendall(json.dumps(hello).encode() + b"\n")
        answer = json.loads(sock.makefile("r").readline())
    assert said in answer["error"]
    code, _out, err = _finish(process)
    assert code == 1 and "bridge stopped: bad handshake: " in err and said in err
    assert "Traceback" not in err
    assert not Orders.objects.filter(match_id=created.pk, seat=1).exists()


@pytest.mark.django_db(transaction=True)
def test_an_ai_that_sends_no_loadout_stops_the_bridge_and_the_site_keeps_the_seat(
    live_server: Any, player: Any
) -> None:
    created = _match(player)
    process = _start_bridge(live_server, created.pk, token_for(player), "--loadout-seconds", "1")
    with socket.create_connection(("127.0.0.1", process.port), timeout=20) as sock:
        hello = {"message": "connect", "revision": 1, "name": "mute"}
        sock.sendall(json.dumps(hello).encode() + b"\n")
        lines = sock.makefile("r")
        assert json.loads(lines.readline()) == {"message": "connect", "status": True}
        start = json.loads(lines.readline())
        assert start["message"] == "gamestate" and start["turn"] == 0
        # An action before the loadout is refused; then nothing more is sent.
        sock.sendall(b'{"message": "action", "type": "mine"}\nnot json\n')
        assert json.loads(lines.readline()) == {"error": "send your loadout first"}
        assert "not a JSON object" in json.loads(lines.readline())["error"]
        code, _out, err = _finish(process)
    assert code == 1 and "bridge stopped: the AI sent no loadout within 1 s" in err
    assert "Traceback" not in err
    match = Match.objects.get(pk=created.pk)
    assert match.status == Match.Status.RUNNING and match.state["turn"] == 0
    assert not Orders.objects.filter(match=match, seat=1).exists()


def test_the_listening_address_is_host_and_port() -> None:
    assert bridge.listen_address("127.0.0.1:54321") == ("127.0.0.1", 54321)
    assert bridge.listen_address(":0") == ("127.0.0.1", 0)
    for bad in ("54321x", "127.0.0.1", "127.0.0.1:70000", ""):
        with pytest.raises(ValueError, match="host:port"):
            bridge.listen_address(bad)


@pytest.mark.django_db(transaction=True)
def test_the_bridge_refuses_a_match_of_another_game(live_server: Any, player: Any) -> None:
    created = services.match_create(
        creator=player, ruleset="halite", seat_count=2, bots=["grower"], api=True
    )
    result = subprocess.run(
        [sys.executable, str(BRIDGE), "--url", live_server.url, "--match", str(created.pk),
         "--token", token_for(player), "--listen", "127.0.0.1:0"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 1
    assert "not a game of Skyport" in result.stderr and "listening" not in result.stderr


# ---------------------------------------------------------------- the 2013 protocol


def test_a_gamestate_has_the_map_by_j_columns_and_the_seat_to_play_first() -> None:
    state = engine.new_game(seed=3, seats=3, ruleset="skyport", options={"rounds": 5})
    names = {1: "ada", 2: "bob", 3: "cy"}
    start = bridge.gamestate(state, names, {})
    assert start["turn"] == 0 and [p["name"] for p in start["players"]] == ["ada", "bob", "cy"]
    assert start["map"]["data"][2][5] == state["tiles"][2][5]
    assert start["map"]["j-length"] == start["map"]["k-length"] == state["size"]
    loadouts = [{"seat": s, "turn": 0, "loadout": ["mortar", "laser"]} for s in (1, 2, 3)]
    state = engine.apply(state, loadouts).state
    state = engine.apply(state, [{"seat": 1, "turn": 1, "actions": []}]).state
    told = bridge.gamestate(state, names, {s: ["mortar", "laser"] for s in (1, 2, 3)})
    assert told["turn"] == state["turn"] == 2
    assert [p["name"] for p in told["players"]] == ["bob", "cy", "ada"]  # seat 2 plays
    bob = told["players"][0]
    assert bob["primary-weapon"] == {"name": "mortar", "level": 1}
    assert bob["secondary-weapon"] == {"name": "laser", "level": 1}
    p2 = state["players"][1]
    assert bob["position"] == f"{p2['j']},{p2['k']}" and bob["health"] == 100


def test_actions_are_read_as_the_protocol_writes_them() -> None:
    read = bridge.read_action
    assert read({"type": "move", "direction": "left-up"}) == {"type": "move",
                                                               "direction": "left-up"}  # fmt: skip
    assert read({"type": "pass"}) is None
    assert read({"type": "mortar", "coordinates": "3,-2"}) == {"type": "mortar", "target": [3, -2]}
    droid = read({"type": "droid", "sequence": ["up", "rightUp", "right-down", "leftDown"]})
    assert droid["sequence"] == ["up", "right-up", "right-down", "left-down"]
    for bad, said in [
        ({"type": "fly"}, "unknown action type"),
        ({"type": "move", "direction": "north"}, "not a direction"),
        ({"type": "mortar", "coordinates": "3;2"}, "coordinates"),
        ({"type": "mortar", "coordinates": [3, 2]}, "coordinates"),
        ({"type": "droid", "sequence": "up"}, "list of directions"),
        ({"type": "upgrade", "weapon": "sword"}, "upgrade names"),
    ]:
        with pytest.raises(ValueError, match=said):
            read(bad)
    assert bridge.read_loadout({"primary-weapon": "droid", "secondary-weapon": "laser"}) == [
        "droid",
        "laser",
    ]
    for weapons in (("laser", "laser"), ("laser", "sword"), ("laser", None)):
        with pytest.raises(ValueError):
            bridge.read_loadout({"primary-weapon": weapons[0], "secondary-weapon": weapons[1]})


def test_the_turns_events_go_back_as_the_2013_servers_action_messages() -> None:
    events = [
        {"type": "move", "seat": 2, "from": [3, 3], "to": [2, 3], "direction": "right-up"},
        {"type": "mine", "seat": 2, "at": [2, 3], "resource": "rubidium", "left": 1},
        {"type": "mortar", "seat": 2, "from": [2, 3], "target": [4, 2], "landed": True},
        {"type": "damage", "seat": 1, "by": 2, "at": [4, 2], "amount": 20, "points": 20},
        {"type": "droid", "seat": 1, "from": [4, 2], "path": [[3, 1], [3, 2]], "at": [3, 2]},
    ]
    lines = [json.loads(x) for x in bridge.action_messages(events, {1: "ada", 2: "bob"})]
    assert lines == [
        {"message": "action", "type": "move", "direction": "right-up", "from": "bob"},
        {"message": "action", "type": "mine", "from": "bob"},
        {"message": "action", "type": "mortar", "coordinates": "2,-1", "from": "bob"},
        {"message": "action", "type": "droid", "sequence": ["up", "right-down"], "from": "ada"},
    ]
