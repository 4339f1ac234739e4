"""The registry of presentations: every game the engine knows is shown, each
registered game has every part of a presentation, and a ruleset without one (the
test rulesets) is shown generically, so its pages never fail."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.template.loader import render_to_string
from django.urls import reverse
from site_support import client_for, drain

import engine
from games import presentation, services
from games.models import Match, Resolution
from games.play import generic

# Games whose board script plans a turn with no hints from the server.
PLANNED_IN_THE_PAGE = {"halite"}


def test_every_ruleset_the_engine_knows_has_a_presentation_of_that_name():
    for name in engine.ruleset_names():
        assert presentation.get(name).name == name
    assert {"helium3", "helium3-remake", "halite"} <= set(presentation.names())


@pytest.mark.django_db
@pytest.mark.parametrize("name", presentation.names())
def test_a_registered_game_has_every_part_of_a_presentation(name):
    shown = presentation.get(name)
    assert shown.title == engine.ruleset(name).title
    assert len(re.findall(r"[.!?](\s|$)", shown.blurb)) == 2, shown.blurb
    assert str(shown.picture()).startswith('<svg class="game-picture"')
    state = engine.new_game(seed=2, ruleset=name)
    view = engine.view(state, 1)
    assert re.match(r'<svg class="board[ "]', str(shown.board(view, caption="A test")))
    hints = shown.hints(view)
    if name in PLANNED_IN_THE_PAGE:
        assert hints is None  # its board script plans alone: no server hints
    else:
        assert hints is not None and hints["seat"] == 1
    assert shown.hints(engine.view(state, None)) is None  # a spectator has no turn
    form = shown.orders_form(None, view=view)
    # A game that opens with a setup at once (Skyport's loadouts) asks no actions yet.
    actions = 0 if view.get("phase") == "loadout" else shown.max_actions
    assert str(form.rows()).count('<fieldset class="action"') == actions
    html = render_to_string(shown.rules_template, shown.rules_context())
    assert engine.ruleset(name).title in html
    assert shown.planner_script and shown.legend_template


def test_the_generic_board_lists_the_view_and_escapes_it():
    view = {"turn": 3, "note": "<script>alert(1)</script>", "pile": 7}
    html = str(generic.board(view, caption="Nim"))
    assert "<dt>pile</dt><dd><code>7</code></dd>" in html
    assert "<script>" not in html and "&lt;script&gt;" in html


def test_the_generic_sentences_tell_each_event_with_its_fields():
    events = [
        {"type": "took", "t_ms": 0, "duration_ms": 500, "n": 2},
        {"type": "match_over", "t_ms": 0, "duration_ms": 0},
    ]
    assert generic.sentences(events) == ["Took: n 2.", "Match over."]


@pytest.fixture
def nim_match(player: Any, opponent: Any) -> Match:
    match = services.match_create(
        creator=player, seat_count=2, turn_seconds=3600, ruleset="nim", options={"pile": 12}
    )
    services.seat_join(match_id=match.pk, user=opponent)
    match.refresh_from_db()
    assert match.status == Match.Status.RUNNING
    return match


@pytest.mark.django_db
def test_a_game_without_a_presentation_is_played_through_its_json_orders(
    nim_match, player, spectator
):
    client = client_for(player)
    url = reverse("games:match-detail", args=[nim_match.pk])
    html = client.get(url).content.decode()
    assert '<div class="board-text">' in html and "<dt>pile</dt><dd><code>12</code>" in html
    assert 'name="actions_json"' in html and 'name="robot_0"' not in html
    orders_url = reverse("games:match-orders", args=[nim_match.pk])
    bad = client.post(orders_url, {"turn": 0, "actions_json": "[1, 2"})
    assert bad.status_code == 400 and "not valid JSON" in bad.content.decode()
    refused = client.post(
        orders_url, {"turn": 0, "actions_json": json.dumps({"actions": [{"take": 5}]})}
    )
    assert refused.status_code == 400 and "Take 1, 2 or 3 stones." in refused.content.decode()
    sent = client.post(
        orders_url, {"turn": 0, "actions_json": json.dumps({"actions": [{"take": 2}]})}
    )
    assert sent.status_code == 302, sent.content.decode()[:1000]
    drain(nim_match, emails=False)
    assert Resolution.objects.get(match=nim_match, turn_number=0).orders["actions"] == [{"take": 2}]
    watched = client_for(spectator).get(url).content.decode()
    assert "<dt>pile</dt><dd><code>10</code>" in watched and "Took: n 2." in watched


@pytest.mark.django_db
def test_a_finished_game_without_a_presentation_replays_and_shows_its_movies(
    nim_match, player, opponent, spectator
):
    users = {1: player, 2: opponent}
    while nim_match.status != Match.Status.FINISHED:
        seat = nim_match.state["to_move"]
        services.orders_submit(
            match_id=nim_match.pk,
            user=users[seat],
            turn=nim_match.state["turn"],
            orders={"actions": [{"take": 3}]},
        )
        drain(nim_match, emails=False)
    watcher = client_for(spectator)
    replay = watcher.get(reverse("games:match-replay-page", args=[nim_match.pk]))
    assert replay.status_code == 200 and '<div class="board-text">' in replay.content.decode()
    movie = watcher.get(reverse("games:match-turn-movie", args=[nim_match.pk, 0]))
    assert movie.status_code == 200 and "Took: n 3." in movie.content.decode()
    page = watcher.get(reverse("games:match-detail", args=[nim_match.pk]))
    assert page.status_code == 200
