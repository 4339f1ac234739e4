"""The planted world: matches whose every robot hides a shield with a deflect, and
the rewrite that changes those hidden facts to make a second world.

The shields are raised by real orders through the services, so every place the
site stores them (state, resolutions, accepted orders, emails' rows) has them as
the site itself wrote them. The second world is made by the engine too: the same
turns replayed from the initial state with every hidden shield's deflect turned
and some shields played as plain moves to the same cell, and a different seed.
A seat that may not know these facts cannot tell the two worlds apart, so every
page and email it gets must be the same, byte for byte.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from django.apps import apps
from django.contrib.auth.models import User
from django.db import models

import engine
from games import services
from games.models import Match, Notification, Orders, Resolution, Turn, pass_orders

DIRECTIONS = ["N", "NE", "E", "SE", "S", "SW", "W", "NW"]
# Which of a seat's five robots shield in each of its first three turns, and
# whether the shield is raised in place (True) or after a move.
PLANTING = [[(0, True), (1, False)], [(2, False), (3, True)], [(4, False)]]

# Every column the rewrite changes. A JSON column outside this list that holds a
# hidden shield makes the test fail: a page could read it, and the second world
# would not differ there, so the differential crawl could not see that leak.
REWRITTEN = {
    ("games.match", "state"),
    ("games.match", "initial_state"),
    ("games.match", "record"),
    ("games.resolution", "orders"),
    ("games.resolution", "events"),
    ("games.resolution", "state"),
    ("games.orders", "orders"),
}


@dataclass
class Planted:
    """The users and matches of the planted world."""

    users: dict[str, User]
    running: Match  # four people, every robot shielded with a deflect
    private: Match  # two people, private, every robot shielded
    finished: Match  # two people, shields planted, played to the end
    open: Match  # waiting for players: no board yet
    newcomer: User  # an unverified email address, for allauth's confirmation key
    staff: User
    tokens: dict[str, str] = field(default_factory=dict)  # username -> API bearer token

    @property
    def live(self) -> list[Match]:
        return [self.running, self.private]

    def seat_of(self, user: User | None, match: Match) -> int | None:
        if user is None:
            return None
        seat = match.seats.filter(user=user).first()
        return seat.number if seat is not None else None


def drain(match: Match) -> None:
    """Do the worker's jobs in-process: resolve accepted turns, send pending emails."""
    while True:
        turn = Turn.objects.filter(match=match, status=Turn.Status.ACCEPTED).first()
        if turn is None or services.turn_resolve(match_id=match.pk, number=turn.number) is None:
            break
    pending = Notification.objects.filter(status=Notification.Status.PENDING)
    # Also those still waiting for their time ("Your turn" waits a while): as if it came.
    for pk, due in pending.values_list("pk", "send_after"):
        services.notification_send(notification_id=pk, now=due)
    match.refresh_from_db()


def _user_of(match: Match, seat: int) -> User:
    user = match.seats.get(number=seat).user
    assert user is not None
    return user


def _free_cell_towards_centre(state: dict[str, Any], robot: dict[str, Any]) -> list[int]:
    """A cell two steps from the robot towards the board's centre that the engine
    accepts for a shield (checked by the caller); the first free one of a few."""
    cx = 1 if robot["x"] < state["width"] // 2 else -1
    cy = 1 if robot["y"] < state["height"] // 2 else -1
    taken = {(r["x"], r["y"]) for r in state["robots"] if r["alive"]}
    for dx, dy in ((2 * cx, 2 * cy), (3 * cx, cy), (cx, 3 * cy), (4 * cx, 0), (0, 4 * cy)):
        cell = (robot["x"] + dx, robot["y"] + dy)
        if cell not in taken and 0 <= cell[0] < state["width"] and 0 <= cell[1] < state["height"]:
            return list(cell)
    raise AssertionError(f"no free cell for {robot['id']}")


def plant_shields(match: Match) -> None:
    """Three rounds in which every seat raises a shield with a deflect on each of its
    five robots, through orders_submit like a player's form or bot would."""
    seats = sorted(match.seats.values_list("number", flat=True))
    for plan in PLANTING:
        for _ in seats:
            state = match.state
            assert state is not None and not state["over"], "the match ended while planting"
            seat = int(state["to_move"])
            robots = [r for r in state["robots"] if r["seat"] == seat]
            actions: list[dict[str, Any]] = []
            trial = copy.deepcopy(state)
            for index, in_place in plan:
                robot = robots[index]
                action: dict[str, Any] = {
                    "robot": robot["id"],
                    "type": "shield",
                    # Unique within the seat: each robot its own direction.
                    "deflect": DIRECTIONS[(index + 2 * seat) % len(DIRECTIONS)],
                }
                if not in_place:
                    mover = next(r for r in trial["robots"] if r["id"] == robot["id"])
                    action["to"] = _free_cell_towards_centre(trial, mover)
                    mover["x"], mover["y"] = action["to"]
                actions.append(action)
            services.orders_submit(
                match_id=match.pk, user=_user_of(match, seat), turn=state["turn"], actions=actions
            )
            drain(match)
    assert_all_shielded(match)


def assert_all_shielded(match: Match) -> None:
    state = match.state
    assert state is not None
    bare = [r["id"] for r in state["robots"] if r["alive"] and not (r["shield"] and r["deflect"])]
    assert not bare, f"robots without a shield and a deflect: {bare}"


def _submit(match: Match, actions: list[dict[str, Any]]) -> None:
    """The seat to move sends these orders, and the worker's jobs run."""
    assert match.state is not None
    seat = int(match.state["to_move"])
    services.orders_submit(
        match_id=match.pk, user=_user_of(match, seat), turn=match.state["turn"], actions=actions
    )
    drain(match)


def _others_pass(state: dict[str, Any], seat: int) -> dict[str, Any]:
    """The state when `seat` is to move again, every other seat passing."""
    while state["to_move"] != seat:
        state = engine.apply(state, pass_orders(state["to_move"], state["turn"])).state
    return state


def _laser_at_a_shield(state: dict[str, Any], seat: int) -> tuple[str, str]:
    """A robot of `seat` and a direction such that, armed now and fired next turn, its
    laser is deflected by another seat's shield and destroys nothing."""
    for robot in (r for r in state["robots"] if r["seat"] == seat and r["alive"]):
        arm = {"robot": robot["id"], "type": "arm_laser"}
        armed = engine.apply(state, {"seat": seat, "turn": state["turn"], "actions": [arm]})
        later = _others_pass(armed.state, seat)
        for direction in DIRECTIONS:
            fire = {"robot": robot["id"], "type": "fire_laser", "direction": direction}
            orders = {"seat": seat, "turn": later["turn"], "actions": [fire]}
            kinds = [e["type"] for e in engine.apply(later, orders).events]
            if "deflected" in kinds and "destroyed" not in kinds:
                return robot["id"], direction
    raise AssertionError("no laser of this seat can reach another seat's shield")


def fire_at_a_shield(match: Match) -> None:
    """The seat to move arms a laser and, a round later, fires it at another seat's
    shielded robot: everybody sees the beam turn, which reveals that one shield and
    its deflect and spends it. Then every seat raises its spent shields again (in
    place, with a deflect), so when this returns every robot hides a shield again
    and the first seat is to move."""
    assert match.state is not None
    seat = int(match.state["to_move"])
    robot, direction = _laser_at_a_shield(match.state, seat)
    _submit(match, [{"robot": robot, "type": "arm_laser"}])
    while match.to_move != seat:
        _submit(match, [])
    _submit(match, [{"robot": robot, "type": "fire_laser", "direction": direction}])
    last = Resolution.objects.filter(match=match).order_by("-turn_number").first()
    assert last is not None and any(e["type"] == "deflected" for e in last.events)
    for _ in range(8 * match.seat_count):
        state = match.state
        assert state is not None
        bare = [
            r
            for r in state["robots"]
            if r["seat"] == state["to_move"] and r["alive"] and not r["shield"]
        ]
        if (
            not bare
            and state["to_move"] == seat
            and all(r["shield"] for r in state["robots"] if r["alive"])
        ):
            break
        _submit(
            match,
            [
                {
                    "robot": r["id"],
                    "type": "shield",
                    "deflect": DIRECTIONS[(int(r["id"].split("-")[1]) + 2 * r["seat"] + 3) % 8],
                }
                for r in bare[:2]
            ],
        )
    assert_all_shielded(match)


def hand_seat_to_bot(match: Match, seat: int) -> None:
    """The seat's player lets the clock pass its turns until the stand-in bot takes
    it over (and its player is emailed); the others pass. The bot has not moved
    yet when this returns, so the seat's shields are still up."""
    for _ in range(10 * len(match.seats.all())):
        if match.seats.get(number=seat).standin_bot:
            return
        turn = Turn.objects.get(match=match, number=match.turn_number)
        if turn.seat == seat:
            assert turn.deadline_at is not None
            services.turn_pass_on_deadline(
                match_id=match.pk, number=turn.number, now=turn.deadline_at
            )
        else:
            services.orders_submit(
                match_id=match.pk, user=_user_of(match, turn.seat), turn=turn.number, actions=[]
            )
        drain(match)
    raise AssertionError(f"seat {seat} of match {match.pk} was never handed to a bot")


def warn_of_the_deadline(match: Match) -> None:
    """The clock's quarter-time-left warning for the current turn, as the sweep sends it."""
    turn = Turn.objects.get(match=match, number=match.turn_number)
    assert turn.warn_at is not None
    assert services.deadline_warn(turn_id=turn.pk, now=turn.warn_at)
    drain(match)


def play_to_the_end(match: Match) -> None:
    """Everyone passes until the battle clock runs out."""
    for _ in range(1000):
        if match.status == Match.Status.FINISHED:
            return
        seat = int(match.to_move or 0)
        services.orders_submit(
            match_id=match.pk, user=_user_of(match, seat), turn=match.turn_number, actions=[]
        )
        drain(match)
    raise AssertionError(f"match {match.pk} did not end")


# --- the second world ---------------------------------------------------------------


def _revealed(rows: list[Resolution]) -> set[tuple[int, str]]:
    """(turn, robot) of every shield that a later hit revealed to everybody: a beam
    seen to stop or turn, a blast absorbed. Those are public; the rest stay hidden."""
    raised: dict[str, int] = {}
    revealed: set[tuple[int, str]] = set()
    for row in rows:
        for action in row.orders.get("actions", []):
            if action.get("type") == "shield":
                raised[action["robot"]] = row.turn_number
            else:  # any other action first clears what the robot had
                raised.pop(action.get("robot", ""), None)
        for event in row.events:
            if event["type"] in ("absorbed", "deflected") and event.get("robot") in raised:
                revealed.add((raised.pop(event["robot"]), event["robot"]))
    return revealed


def _alter(
    orders: dict[str, Any],
    state: dict[str, Any],
    flip: list[bool],
    public: set[tuple[int, str]],
) -> dict[str, Any]:
    """The same orders with every hidden shield's deflect turned and, every other
    time, a hidden shield that moves played as a plain move to the same cell.
    Shields in `public` (turn, robot) were revealed by a hit and stay as they were."""
    altered = copy.deepcopy(orders)
    at = {r["id"]: [r["x"], r["y"]] for r in state["robots"]}
    for i, action in enumerate(altered["actions"]):
        if action.get("type") != "shield" or (orders["turn"], action["robot"]) in public:
            continue
        moves = "to" in action and action["to"] != at.get(action["robot"])
        flip[0] = not flip[0]
        if moves and flip[0]:
            altered["actions"][i] = {
                k: v for k, v in action.items() if k not in ("type", "deflect")
            } | {"type": "move"}
        else:
            old = action.get("deflect")
            turn_by = 3 if old is not None else 0
            start = DIRECTIONS.index(old) if old is not None else 0
            action["deflect"] = DIRECTIONS[(start + turn_by) % len(DIRECTIONS)]
    return altered


def rewrite_hidden(match: Match, keep_seat: int | None) -> None:
    """Replace every fact `keep_seat` may not know with another, consistently in
    every row that stores it; its own seat's orders and shields stay as they were.

    The engine replays the altered turns, so states, events and clocks are the
    engine's own. Before anything is written, the engine's view and each turn's
    copy of the events for `keep_seat` are checked to be unchanged: if they were
    not, the second world would be one `keep_seat` could tell apart, and a
    difference in the crawl would be the test's fault, not a leak.
    """
    assert match.initial_state is not None and match.state is not None
    new_seed = int(match.initial_state["seed"]) + 7919
    state = copy.deepcopy(match.initial_state)
    state["seed"] = new_seed
    initial = copy.deepcopy(state)
    flip = [False]
    rows = list(Resolution.objects.filter(match=match).order_by("turn_number"))
    public = _revealed(rows)
    updates: list[tuple[Resolution, dict[str, Any], list[Any], dict[str, Any], int]] = []
    for row in rows:
        orders = row.orders if row.seat == keep_seat else _alter(row.orders, state, flip, public)
        applied = engine.apply(state, orders)
        over = bool(applied.state["over"])
        assert engine.events_view(applied.events, keep_seat, over=over) == engine.events_view(
            row.events, keep_seat, over=over
        ), f"turn {row.turn_number}: the rewrite changed what seat {keep_seat} sees"
        assert engine.view(applied.state, keep_seat) == engine.view(row.state, keep_seat), (
            f"turn {row.turn_number}: the rewrite changed seat {keep_seat}'s view"
        )
        assert applied.turn_ms == row.turn_ms
        updates.append((row, orders, applied.events, applied.state, applied.turn_ms))
        state = applied.state
    changed = sum(1 for row, orders, *_ in updates if orders != row.orders)
    assert changed or not any(r.seat != keep_seat for r in rows), "the rewrite changed nothing"
    for row, orders, events, new_state, _ms in updates:
        Resolution.objects.filter(pk=row.pk).update(orders=orders, events=events, state=new_state)
        Orders.objects.filter(match=match, turn_number=row.turn_number).update(orders=orders)
    pending = Orders.objects.filter(match=match, turn_number__gte=len(rows))
    for row in pending:  # accepted, not resolved yet
        if row.seat != keep_seat:
            row.orders = _alter(row.orders, state, flip, public)
            row.save(update_fields=["orders"])
    record = None
    if match.record is not None:
        record = {
            "initial": initial,
            "turns": [{"orders": o, "events": e} for _r, o, e, _s, _m in updates],
            "final": state,
        }
    Match.objects.filter(pk=match.pk).update(
        seed=new_seed, initial_state=initial, state=state, record=record
    )
    match.refresh_from_db()


# --- the remake: one seat's hidden shields and deflects ---------------------------------

REMAKE = "helium3-remake"


def _legal(state: dict[str, Any], seat: int, actions: list[dict[str, Any]]) -> bool:
    try:
        engine.check(state, {"seat": seat, "turn": state["turn"], "actions": actions})
    except engine.EngineError:
        return False
    return True


def _shield_after_a_move(
    state: dict[str, Any], seat: int, planned: list[dict[str, Any]], robot: dict[str, Any]
) -> dict[str, Any]:
    """A shield raised after a move of up to two cells towards the board's centre, to
    the first cell the engine accepts after the actions `planned` before it."""
    cx = 1 if robot["x"] < state["width"] // 2 else -1
    cy = 1 if robot["y"] < state["height"] // 2 else -1
    for dx, dy in ((2, 2), (2, 1), (1, 2), (2, 0), (0, 2), (1, 1), (1, 0), (0, 1)):
        action = {
            "robot": robot["id"],
            "type": "shield",
            "to": [robot["x"] + dx * cx, robot["y"] + dy * cy],
        }
        if _legal(state, seat, [*planned, action]):
            return action
    raise AssertionError(f"no cell for {robot['id']} to shield on")


def hide_in_remake(match: Match, seat: int, *, rewritten: bool, pending: bool) -> None:
    """In a remake match, `seat` hides shields and deflects on its next turns, through
    orders_submit as a player's form or bot would (remake.md: a shield takes no
    direction; a `deflect` action on a later turn points it).

    Its first turn: vehicle 1 raises a shield in place, vehicles 2 and 3 after a move,
    vehicle 4 in place. Its second: vehicles 1 and 3 point their shields. With
    `pending`, its third (vehicle 3 pointed again) is accepted and not yet resolved;
    without, the next seat is to move. Every other seat arms a laser on each of its
    vehicles on its first turn, so that its planner aims beams at the hidden
    shields, and passes after that.

    `rewritten` plays what no other seat can tell apart: every deflect in another
    direction, vehicle 2 moving to the same cell without a shield, vehicle 4 not
    acting at all (`public_record` checks that the engine agrees).
    """
    armed: set[int] = set()

    def others_play() -> None:
        while match.to_move != seat:
            assert match.state is not None and not match.state["over"]
            other = int(match.state["to_move"])
            vehicles = [r for r in match.state["robots"] if r["seat"] == other and r["alive"]]
            arm = [{"robot": r["id"], "type": "arm_laser"} for r in vehicles]
            _submit(match, [] if other in armed else arm)
            armed.add(other)

    def point(robot: dict[str, Any], index: int) -> dict[str, Any]:
        turned = DIRECTIONS[(index + (3 if rewritten else 0)) % len(DIRECTIONS)]
        return {"robot": robot["id"], "type": "deflect", "direction": turned}

    assert match.state is not None and match.state["ruleset"] == REMAKE
    others_play()
    state = match.state
    one, two, three, four = sorted(
        (r for r in state["robots"] if r["seat"] == seat), key=lambda r: r["id"]
    )[:4]
    first = [{"robot": one["id"], "type": "shield"}]
    first.append(_shield_after_a_move(state, seat, first, two))
    first.append(_shield_after_a_move(state, seat, first, three))
    first.append({"robot": four["id"], "type": "shield"})
    if rewritten:
        first = [first[0], {**first[1], "type": "move"}, first[2]]
    _submit(match, first)
    others_play()
    _submit(match, [point(one, 3), point(three, 1)])
    if pending:
        others_play()
        assert match.state is not None
        services.orders_submit(
            match_id=match.pk, user=_user_of(match, seat), turn=match.state["turn"],
            actions=[point(three, 6)],
        )  # fmt: skip
        match.refresh_from_db()


def reseed(match: Match, seed: int) -> None:
    """Another seed in every stored copy of a running match's state (the match's seed,
    its first and current states, each resolution's state). No seat may know the seed
    while the match runs, and nothing after the start depends on it but the bots."""
    assert match.record is None and match.initial_state is not None and match.state is not None
    for pk, state in Resolution.objects.filter(match=match).values_list("pk", "state"):
        Resolution.objects.filter(pk=pk).update(state={**state, "seed": seed})
    Match.objects.filter(pk=match.pk).update(
        seed=seed,
        initial_state={**match.initial_state, "seed": seed},
        state={**match.state, "seed": seed},
    )
    match.refresh_from_db()


def public_record(match: Match, seat: int | None) -> list[Any]:
    """All that the engine lets `seat` (None: a spectator) know of a match as stored: its
    views of the first and the current state and of each resolution's state, its copy
    of each turn's events, each turn's length."""
    assert match.initial_state is not None and match.state is not None
    over = bool(match.state["over"])
    record: list[Any] = [engine.view(match.initial_state, seat), engine.view(match.state, seat)]
    for row in Resolution.objects.filter(match=match).order_by("turn_number", "step"):
        events = engine.events_view(row.events, seat, over=over, ruleset=match.ruleset)
        record.append(
            [row.turn_number, row.seat, row.turn_ms, engine.view(row.state, seat), events]
        )
    return record


# --- where hidden facts are stored ------------------------------------------------------


def _robot_seat(robot_id: Any) -> int | None:
    try:
        return int(str(robot_id).split("-", 1)[0])
    except ValueError:
        return None


def secrets_in(
    value: Any, allowed: set[int], path: str = "$", *, keys: bool = True
) -> Iterator[str]:
    """Where a JSON value holds what only other seats may know: a shield or deflect
    on a robot of a seat not in `allowed`, such a seat's shielded event, its shield
    order or (the remake's) deflect order, or the seed of a running match. Finished
    states ("over") are public.

    `keys`: a robot of another seat may not even carry the keys (docs/protocol.md: a
    view leaves them out), as for what the site sends; otherwise only a raised
    shield or a set deflect counts, as for the full states the database keeps.
    """
    if isinstance(value, dict):
        if value.get("over") is True and "robots" in value:
            return
        if "robots" in value and "helium" in value and "seed" in value:
            yield f"{path}.seed"
        kind = value.get("type")
        if "id" in value and "seat" in value and "x" in value and value["seat"] not in allowed:
            for key in ("shield", "deflect"):
                if (key in value) if keys else bool(value.get(key)):
                    yield f"{path}.{key} (robot {value['id']})"
        elif kind == "shielded":
            seat = value.get("seat", _robot_seat(value.get("robot")))
            if seat not in allowed:
                yield f"{path} (shielded event of robot {value.get('robot')})"
        elif (
            kind in ("shield", "deflect")
            and "robot" in value
            and _robot_seat(value["robot"]) not in allowed
        ):
            yield f"{path} ({kind} order of robot {value['robot']})"
        for key, item in value.items():
            yield from secrets_in(item, allowed, f"{path}.{key}", keys=keys)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from secrets_in(item, allowed, f"{path}[{i}]", keys=keys)


def stored_secrets(live: list[Match]) -> set[tuple[str, str]]:
    """Every (model, JSON column) of the whole database that holds a hidden fact of a
    running match (rows of other matches are not looked at; rows tied to no match are)."""
    live_ids = {m.pk for m in live}
    found: set[tuple[str, str]] = set()
    for model in apps.get_models():
        columns = [f.name for f in model._meta.concrete_fields if isinstance(f, models.JSONField)]
        if not columns:
            continue
        label = model._meta.label_lower
        match_field = "pk" if model is Match else ("match_id" if _has_match(model) else None)
        rows = model._default_manager.all()
        if match_field == "pk":
            rows = rows.filter(pk__in=live_ids)
        elif match_field == "match_id":
            rows = rows.filter(match_id__in=live_ids)
        for row in rows.values(*columns):
            for column, value in row.items():
                if next(secrets_in(value, set(), keys=False), None) is not None:
                    found.add((label, column))
    return found


def _has_match(model: type[models.Model]) -> bool:
    return any(
        f.name == "match" and getattr(f, "related_model", None) is Match
        for f in model._meta.concrete_fields
    )
