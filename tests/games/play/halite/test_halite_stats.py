"""Each seat's territory, strength and production in the panel, with their charts over
the turns, on the match page and on the replay page: the figures are the stored
states', the charts have a line a seat through every turn, and a view costs a
constant number of queries whatever the turn."""

from __future__ import annotations

import json
import re
from html import unescape
from typing import Any

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from halite_support import halite_match, play_turns
from site_support import client_for

from games.models import Match, Resolution
from games.play.halite import stats

pytestmark = pytest.mark.django_db


def _expected(state: dict[str, Any]) -> dict[int, tuple[int, int, int]]:
    out = {}
    for seat in range(1, state["seats"] + 1):
        cells = [
            (state["strength"][y][x], state["production"][y][x])
            for y in range(state["height"])
            for x in range(state["width"])
            if state["owner"][y][x] == seat
        ]
        out[seat] = (len(cells), sum(s for s, _ in cells), sum(p for _, p in cells))
    return out


def _states(match: Match) -> list[dict[str, Any]]:
    rows = Resolution.objects.filter(match=match).order_by("turn_number")
    return [match.initial_state, *(r.state for r in rows)]


def _table(html: str) -> dict[int, tuple[int, int, int]]:
    section = re.search(r'<section class="hl-stats".*?</section>', html, re.S)
    assert section, "no figures panel"
    rows = re.findall(
        r'<tr data-hl-seat="(\d)">.*?data-kind="territory">(\d+)</td>'
        r'<td class="num" data-kind="strength">(\d+)</td>'
        r'<td class="num" data-kind="production">(\d+)</td>',
        section.group(0),
    )
    return {int(s): (int(t), int(st), int(p)) for s, t, st, p in rows}


def test_the_figures_are_each_seats_cells_strength_and_production():
    view = {
        "seats": 3,
        "owner": [[1, 0, 2], [1, 1, 0]],
        "strength": [[10, 99, 20], [5, 0, 7]],
        "production": [[3, 9, 4], [1, 2, 8]],
    }
    assert stats.figures(view) == {1: (3, 15, 6), 2: (1, 20, 4), 3: (0, 0, 0)}


def test_the_match_page_shows_the_figures_now_and_a_chart_line_a_seat_through_every_turn(
    player, opponent
):
    match = halite_match(player, opponent=opponent, size=10)
    play_turns(match, 6)
    match.refresh_from_db()
    html = client_for(player).get(reverse("games:match-detail", args=[match.pk])).content.decode()
    assert _table(html) == _expected(match.state)
    charts = re.findall(r'<svg class="hl-chart".*?</svg>', html, re.S)
    assert [re.search(r'data-kind="(\w+)"', c).group(1) for c in charts] == list(stats.KINDS)
    history = [_expected(s) for s in _states(match)]
    assert len(history) == match.state["turn"] + 1
    for chart in charts:
        kind = re.search(r'data-kind="(\w+)"', chart).group(1)
        index = stats.KINDS.index(kind)
        top = int(re.search(r'text-anchor="end">(\d+)</text>', chart).group(1))
        assert top >= max(h[s][index] for h in history for s in h)
        lines = re.findall(
            r'<polyline class="hl-line" data-seat="(\d)"[^>]*points="([^"]+)"', chart
        )
        assert [int(s) for s, _ in lines] == [1, 2]
        for seat, points in lines:
            ys = [int(p.split(",")[1]) for p in points.split()]
            assert len(ys) == len(history)
            # The line's height is the seat's figure after each turn, in the chart's scale.
            base = 10 * (stats.HEIGHT - stats.BOTTOM)
            scale = 10 * (stats.HEIGHT - stats.TOP - stats.BOTTOM) / top
            assert ys == [round(base - h[int(seat)][index] * scale) for h in history]
    # The charts say their figures in words too.
    assert "Territory of each seat over the turns" in html


def test_a_view_costs_the_same_few_queries_at_turn_2_and_turn_20(player, opponent):
    match = halite_match(player, opponent=opponent, size=10)
    counts = []
    for turns in (2, 18):
        play_turns(match, turns)
        match.refresh_from_db()
        cache.clear()
        with CaptureQueriesContext(connection) as cold:
            stats.panel(match, match.state)
        # The series kept: a later turn asks only for its new rows, and the same turn nothing.
        with CaptureQueriesContext(connection) as warm:
            stats.panel(match, match.state)
        counts.append((len(cold), len(warm)))
    assert counts[0] == counts[1] and counts[0][0] <= 2 and counts[0][1] == 0, counts
    play_turns(match, 1)
    match.refresh_from_db()
    with CaptureQueriesContext(connection) as later:
        html = stats.panel(match, match.state)
    assert len(later) == 1
    assert _table(str(html)) == _expected(match.state)


def test_the_replay_page_has_the_charts_and_every_turns_figures_for_its_scrubber(player):
    match = halite_match(player, size=10, turn_seconds=60, bots=["grower"])
    play_turns(match, 200)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    url = reverse("games:match-replay-page", args=[match.pk])
    html = client_for(player).get(url).content.decode()
    assert len(re.findall(r'<svg class="hl-chart"', html)) == 3
    packed = json.loads(unescape(re.search(r"data-series='([^']+)'", html).group(1)))
    states = _states(match)
    assert len(packed) == len(states)
    assert packed == [[list(_expected(s)[seat]) for seat in (1, 2)] for s in states]
    assert _table(html) == _expected(match.state)
