"""Bad input gets a clear 4xx and changes nothing: never a 500."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from site_support import client_for

from games import services
from games.models import Match, Orders

BIG = str(10**30)


@pytest.mark.parametrize(
    "data",
    [
        {},
        {"turn": "abc"},
        {"turn": BIG},
        {"turn": "-1"},
        {"turn": "0", "robot_0": "9-9", "type_0": "move", "x_0": "1", "y_0": "1"},
        {"turn": "0", "robot_0": "1-1", "type_0": "teleport"},
        {"turn": "0", "robot_0": "1-1", "type_0": "move", "x_0": BIG, "y_0": BIG},
        {"turn": "0", "robot_0": "1-1", "type_0": "move", "x_0": "3"},
        {"turn": "0", "robot_0": "1-1", "type_0": "fire_missile"},
        {"turn": "0", "robot_0": "1-1", "type_0": "fire_laser", "direction_0": "UP"},
        {"turn": "0", "actions_json": "{}"},
        {"turn": "0", "actions_json": "[1, 2]"},
        {"turn": "0", "actions_json": '[{"robot": "1-1", "type": "move", "to": [1e400, -1]}]'},
        {"turn": "0", "actions_json": '[{"robot": "1-1", "type": "move", "to": "here"}]'},
        {"turn": "0", "actions_json": '[{"robot": [], "type": {}}]'},
        {"turn": "0", "actions_json": "[" * 5000},
        {"turn": "0", "actions_json": "[" * 4000 + "]" * 4000},
        {"turn": "0", "actions_json": "\x00"},
    ],
)
def test_garbage_orders_get_a_4xx_and_store_nothing(running_match, player, data):
    response = client_for(player).post(reverse("games:match-orders", args=[running_match.pk]), data)
    assert 400 <= response.status_code < 500
    assert not Orders.objects.exists()
    assert Match.objects.get(pk=running_match.pk).state == running_match.state


@pytest.mark.parametrize("match_id", ["0", BIG])
def test_absurd_match_ids_are_404(player, match_id):
    client = client_for(player)
    assert client.get(f"/matches/{match_id}/").status_code == 404
    assert client.post(f"/matches/{match_id}/join/").status_code == 404


def test_garbage_create_input_is_a_400(player):
    response = client_for(player).post(
        reverse("games:match-create"),
        {"seat_count": BIG, "turn_seconds": BIG, "length_minutes": BIG, "seat_2": "\x00"},
    )
    assert response.status_code == 400
    assert not Match.objects.exists()


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
actions = (
    st.lists(
        st.fixed_dictionaries(
            {"robot": st.sampled_from(["1-1", "1-2", "3-1", "x"]) | json_values},
            optional={
                "type": st.sampled_from(["move", "mine", "shield", "fire_laser", "kamikaze"])
                | json_values,
                "to": st.lists(st.integers(-3, 25), min_size=2, max_size=2) | json_values,
                "target": json_values,
                "direction": st.sampled_from(["N", "SE"]) | json_values,
                "path": json_values,
            },
        ),
        max_size=3,
    )
    | json_values
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(payload=actions)
def test_any_json_in_the_order_form_is_answered_without_a_server_error(player, opponent, payload):
    match = services.match_create(creator=player, seat_count=2, bots=["random"])
    client = client_for(player)
    response = client.post(
        reverse("games:match-orders", args=[match.pk]),
        {"turn": 0, "actions_json": json.dumps(payload)},
    )
    assert response.status_code in (302, 400, 409)
    stored = Orders.objects.filter(match=match).exists()
    assert stored == (response.status_code == 302)


# --- any request, generated: never a 5xx, and a refusal changes nothing ---------------

huge = st.integers(min_value=-(10**40), max_value=10**40)
scalars = (
    st.none()
    | st.booleans()
    | huge
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=12)  # any unicode, NUL included
)
any_json = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=16,
)
cells = st.lists(st.integers(-2, 22) | huge, min_size=0, max_size=3)
generated_action = st.fixed_dictionaries(
    {"robot": st.sampled_from(["1-1", "1-5", "3-1", "9-9", ""]) | any_json},
    optional={
        "type": st.sampled_from(
            [
                "move",
                "mine",
                "arm_missile",
                "arm_laser",
                "shield",
                "fire_missile",
                "fire_laser",
                "kamikaze",
                "teleport",
            ]  # fmt: skip
        )
        | any_json,
        "to": cells | any_json,
        "target": cells | any_json,
        "path": st.lists(cells, max_size=4) | any_json,
        "direction": st.sampled_from(["N", "SE", "up", ""]) | any_json,
        "deflect": st.sampled_from(["NW", "x"]) | any_json,
        "extra": any_json,
    },
)
generated_actions = st.lists(generated_action, max_size=4) | any_json
# Bodies nobody would send by hand: thousands of actions, deep nesting, huge numbers.
MANY_ACTIONS = json.dumps([{"robot": "1-1", "type": "mine"}] * 3000)
DEEP = "[" * 50_000 + "]" * 50_000
HUGE_NUMBER = "1" + "0" * 5000


def many_actions_orders() -> str:
    return json.dumps({"turn": 0, "actions": [{"robot": "1-1", "type": "mine"}] * 3000})


def snapshot(match: Match) -> tuple:
    """Everything a submission may change."""
    match.refresh_from_db()
    return (
        match.state,
        match.status,
        match.turn_number,
        list(match.turns.values_list("number", "status", "deadline_at", "accepted_at")),
        list(match.seats.values_list("number", "missed_in_row", "standin_bot", "api")),
        list(Orders.objects.filter(match=match).values_list("turn_number", "orders")),
    )


# Close to real orders: some are accepted, some are stale or not this seat's.
near_valid = st.fixed_dictionaries(
    {
        "turn": st.sampled_from([0, 0, 0, 1, 7]),
        "actions": st.lists(
            st.sampled_from(
                [
                    {"robot": "1-1", "type": "mine"},
                    {"robot": "1-2", "type": "kamikaze"},
                    {"robot": "3-1", "type": "mine"},
                    {"robot": "1-1", "type": "move", "to": [0, 0]},
                ]
            ),  # fmt: skip
            max_size=3,
        ),
    },
    optional={"seat": st.sampled_from([1, 3])},
)
form_posts = st.fixed_dictionaries(
    {},
    optional={
        "turn": st.sampled_from(["0", "1", "-1", "", " 0 ", "0.0", "١", BIG, "1e3"])
        | huge.map(str)
        | st.text(max_size=10),
        "actions_json": generated_actions.map(lambda a: json.dumps(a))
        | near_valid.map(lambda body: json.dumps(body["actions"]))
        | st.sampled_from([MANY_ACTIONS, DEEP, HUGE_NUMBER, "[" * 600 + "]" * 600, "\x00"])
        | st.text(max_size=40),
        **{
            f"{field}_{i}": values
            for i in range(3)
            for field, values in (
                ("robot", st.sampled_from(["1-1", "1-2", "3-1", ""]) | st.text(max_size=8)),
                ("type", st.sampled_from(["move", "mine", "fire_laser", ""]) | st.text(max_size=8)),
                ("x", st.sampled_from(["0", "3", "19", "-1", BIG, ""]) | st.text(max_size=6)),
                ("y", st.sampled_from(["0", "3", "19", "-1", BIG, ""]) | st.text(max_size=6)),
                ("direction", st.sampled_from(["N", "SW", "", "north"]) | st.text(max_size=6)),
            )
        },
    },
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=form_posts)
def test_any_order_form_post_gets_no_server_error_and_a_refused_one_changes_nothing(player, data):
    match = services.match_create(creator=player, seat_count=2, bots=["random"])
    before = snapshot(match)
    response = client_for(player).post(reverse("games:match-orders", args=[match.pk]), data)
    event(f"answered {response.status_code}")
    assert response.status_code in (302, 400, 409), response.status_code
    if response.status_code == 302:
        stored = Orders.objects.get(match=match)
        assert (stored.turn_number, stored.source) == (0, Orders.Source.PLAYER)
    else:
        assert snapshot(match) == before


api_bodies = (
    near_valid.map(lambda body: json.dumps(body).encode())
    | st.fixed_dictionaries(
        {},
        optional={
            "turn": st.just(0) | huge | any_json,
            "actions": generated_actions,
            "seat": st.just(1) | st.just(3) | any_json,
            "extra": any_json,
        },
    ).map(lambda body: json.dumps(body).encode())
    | any_json.map(lambda body: json.dumps(body).encode())
    | st.binary(max_size=40)  # not even UTF-8
    | st.sampled_from(
        [
            DEEP.encode(),
            HUGE_NUMBER.encode(),
            b'{"turn": 0, "actions": ' + DEEP.encode() + b"}",
            many_actions_orders().encode(),
            b"",
            b"null",
            b'{"turn": 1e999, "actions": []}',
            b'{"turn": NaN, "actions": []}',
            '{"turn": 0, "actions": [{"robot": "\u0000"}]}'.encode(),
        ]
    )  # fmt: skip
)


@pytest.fixture
def api_client(player, settings):
    from django.core.cache import cache
    from django.test import Client

    from games.services.tokens import token_create

    settings.API_RATE_LIMIT = 10_000  # the rate limit is not what these requests test
    cache.clear()
    return Client(headers={"Authorization": f"Bearer {token_create(user=player, name='fuzz')[1]}"})


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(body=api_bodies)
def test_any_api_orders_body_gets_no_server_error_and_a_refused_one_changes_nothing(
    player, api_client, body
):
    match = services.match_create(creator=player, seat_count=2, bots=["random"])
    before = snapshot(match)
    response = api_client.post(
        f"/api/v1/matches/{match.pk}/orders/", body, content_type="application/json"
    )
    event(f"answered {response.status_code}")
    assert response.status_code in (202, 400, 403, 409, 413), (response.status_code, body[:200])
    answer = response.json()
    if response.status_code == 202:
        stored = Orders.objects.get(match=match)
        assert answer["orders"] == stored.orders and stored.turn_number == 0
    else:
        assert set(answer) == {"error"} and isinstance(answer["error"]["code"], str)
        assert snapshot(match) == before


create_posts = st.fixed_dictionaries(
    {},
    optional={
        "seat_count": st.sampled_from(["2", "4", "5", "0", BIG, ""]) | st.text(max_size=6),
        "turn_seconds": st.sampled_from(["60", "86400", "59", BIG]) | st.text(max_size=6),
        "length_minutes": st.sampled_from(["10", "0.01", "60.01", "NaN", BIG])
        | st.text(max_size=8),
        **{
            f"seat_{i}": st.sampled_from(["", "random", "miner", "nobody"]) | st.text(max_size=8)
            for i in range(1, 6)
        },
    },
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=create_posts)
def test_any_match_create_post_gets_no_server_error_and_a_refused_one_creates_nothing(player, data):
    before = Match.objects.count()
    response = client_for(player).post(reverse("games:match-create"), data)
    event(f"answered {response.status_code}")
    assert response.status_code in (302, 400), response.status_code
    assert Match.objects.count() == before + (response.status_code == 302)
