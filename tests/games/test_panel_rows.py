"""The panel's table rows joined in Python (games/panel_rows.py) are the text the
template's loops wrote: the loops are kept here as they were and rendered by
Django beside the function, on awkward rows and on real pages of every game."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from django.template import engines
from django.urls import reverse
from django.utils.safestring import mark_safe

from games import catalog, panel_rows, selectors, services
from games.models import Match, Seat
from tests.games.site_support import client_for

# The panel's loops as the template had them (with the text around them).
SEATS_LOOP = """{% load site_words %}<tbody>
    {% for p in page.money %}
      <tr class="{% if p.seat == v.to_move and not v.over %}to-move{% endif %}{% if seat and p.seat == seat.number %} me{% endif %}" data-seat="{{ p.seat }}">
        <td><svg viewBox="-14 -14 28 28" class="key s{{ p.seat }}" aria-hidden="true"><use href="#g-s{{ p.seat }}"/></svg> {{ p.seat }}<span class="to-move-mark"><span class="vh"> (to move)</span> ◀</span></td>
        <td>{{ p.who }}{% if seat and p.seat == seat.number %} (you){% endif %}{% if p.winner %} <strong class="winner-mark">winner</strong>{% endif %}</td>
        <td class="num money">{{ p.money|number }}</td>
        {% if "robots" in v %}<td class="num robots">{{ p.robots }}</td>{% endif %}
      </tr>
    {% endfor %}
    </tbody>"""
ROBOTS_LOOP = """{% load site_words %}<tbody>
      {% for r in page.my_robots %}
        <tr data-robot="{{ r.id }}"><td>{{ r.id }}</td><td>({{ r.x }}, {{ r.y }})</td>
          <td>{% if r.active %}active{% else %}inactive{% endif %}{% if r.armed %}, {{ r.armed }} armed{% endif %}{% if r.shield %}, shield{% if r.deflect %} {{ r.deflect }}{% endif %}{% endif %}</td>
          <td class="num">{{ r.mined|number }}</td></tr>
      {% endfor %}
      </tbody>"""
SEATS_NOW = "<tbody>\n    {{ page.seat_rows }}\n    </tbody>"
ROBOTS_NOW = "<tbody>\n      {{ page.robot_rows }}\n      </tbody>"


def _loops(page: Any, view: Any, seat: Any) -> tuple[str, str]:
    django = engines["django"]
    context = {"page": page, "v": view, "seat": seat}
    return (
        django.from_string(SEATS_LOOP).render(context),
        django.from_string(ROBOTS_LOOP).render(context),
    )


def _rows(money: list[Any], robots: list[Any], view: Any, number: int | None) -> tuple[str, str]:
    page = SimpleNamespace(
        seat_rows=panel_rows.seat_rows(money, view, number),
        robot_rows=panel_rows.robot_rows(robots),
    )
    django = engines["django"]
    return (
        django.from_string(SEATS_NOW).render({"page": page}),
        django.from_string(ROBOTS_NOW).render({"page": page}),
    )


MONEY = [
    {"seat": 1, "money": 10198, "who": "ann", "winner": False, "robots": 3},
    {"seat": 2, "money": "?", "who": "<b>&\"o'</b>", "winner": True, "robots": "?"},
    {"seat": 3, "money": -4100, "who": "bot fighter", "winner": False, "robots": "out"},
    {"seat": 4, "money": 2.5, "who": "", "winner": True, "robots": 0},
    {"seat": 5, "money": None, "who": "x", "winner": False, "robots": None},
]
ROBOTS = [
    {
        "id": "1-1",
        "x": 3,
        "y": 4,
        "active": True,
        "armed": 2,
        "shield": True,
        "deflect": "NE",
        "mined": 12000,
    },
    {"id": "1-<2>", "x": 0, "y": 19, "active": False, "armed": 0, "shield": True, "mined": 0},
    {"id": "1-3", "x": None, "active": 1, "armed": "a&b", "shield": False, "deflect": "S"},
    {"id": 7},
]


@pytest.mark.parametrize(
    "view",
    [
        {"to_move": 1, "over": False, "robots": []},
        {"to_move": 2, "over": True, "robots": []},
        {"to_move": 3},
        {"awaiting": [1, 2], "over": False},
        {},
        None,
    ],
)
@pytest.mark.parametrize("number", [None, 1, 2, 9])
def test_the_rows_are_the_loops_text(view: Any, number: int | None) -> None:
    seat = None if number is None else SimpleNamespace(number=number)
    page = SimpleNamespace(money=MONEY, my_robots=ROBOTS)
    assert _rows(MONEY, ROBOTS, view, number) == _loops(page, view, seat)


def test_no_rows() -> None:
    page = SimpleNamespace(money=[], my_robots=[])
    assert _rows([], [], {"to_move": 1}, 1) == _loops(page, {"to_move": 1}, None)


@pytest.mark.django_db
@pytest.mark.parametrize("ruleset", catalog.names())
def test_every_game_s_page_has_the_loops_rows(ruleset: str, player: Any, opponent: Any) -> None:
    match = services.match_create(creator=player, seat_count=2, ruleset=ruleset)
    services.seat_join(match_id=match.pk, user=opponent)
    match.refresh_from_db()
    assert match.status == Match.Status.RUNNING
    seats = list(Seat.objects.filter(match=match).select_related("user"))
    for seat in (*seats, None):
        page = selectors.match_page(match, seat, seats=seats)
        expected = _loops(page, page.view, seat)
        assert _rows(page.money, page.my_robots, page.view, seat.number if seat else None) == (
            expected
        )
        assert expected[0].count("<tr") == len(page.money) > 0
    # And in the page itself.
    body = client_for(player).get(reverse("games:match-detail", args=[match.pk])).content.decode()
    page = selectors.match_page(match, seats[0], seats=seats)
    seats_text, robots_text = _loops(page, page.view, seats[0])
    assert seats_text in body
    if page.my_robots:
        assert robots_text in body


HISTORY_LOOP = """<ol class="turns">
  {% for t in page.recent_turns %}
    <li class="turn" data-turn="{{ t.number }}">
      <h3>Turn {{ t.number }}{% if t.seat %} · seat {{ t.seat }}{% endif %}
        <button type="button" class="replay-turn" data-turn="{{ t.number }}" hidden>Replay<span class="vh"> turn {{ t.number }}</span></button></h3>
      <ul>{{ t.lines_html }}</ul>
    </li>
  {% empty %}
    <li>No turn resolved yet.</li>
  {% endfor %}
  </ol>"""
HISTORY_NOW = '<ol class="turns">\n  {{ rows }}\n  </ol>'


@pytest.mark.parametrize(
    "turns",
    [
        [],
        [
            {"number": 12, "seat": 3, "lines_html": mark_safe("<li>Robot 3-1 moved.</li>")},
            {"number": 11, "seat": None, "lines_html": "<li>not safe & escaped</li>"},
            {"number": 10, "seat": 0, "lines_html": mark_safe("")},
            {"number": 9, "seat": "<2>"},
            {"seat": 1, "lines_html": mark_safe("<li>x</li>")},
        ],
    ],
)
def test_the_history_items_are_the_loop_s_text(turns: list[Any]) -> None:
    django = engines["django"]
    expected = django.from_string(HISTORY_LOOP).render(
        {"page": SimpleNamespace(recent_turns=turns)}
    )
    assert django.from_string(HISTORY_NOW).render({"rows": panel_rows.turn_rows(turns)}) == expected


@pytest.mark.django_db
def test_a_page_s_history_has_the_loop_s_items(player: Any, opponent: Any) -> None:
    match = services.match_create(creator=player, seat_count=2, bots=["fighter"])
    for _ in range(3):
        number = match.turn_number
        services.orders_submit(match_id=match.pk, user=player, turn=number, actions=[])
        services.turn_resolve(match_id=match.pk, number=number)
        match.refresh_from_db()
    seats = list(Seat.objects.filter(match=match).select_related("user"))
    for seat in (seats[0], None):
        page = selectors.match_page(match, seat, seats=seats)
        assert len(page.recent_turns) >= 3
        expected = engines["django"].from_string(HISTORY_LOOP).render({"page": page})
        assert f'<ol class="turns">\n  {page.turn_rows()}\n  </ol>' == expected
    body = client_for(player).get(reverse("games:match-detail", args=[match.pk])).content.decode()
    page = selectors.match_page(match, seats[0], seats=seats)
    assert engines["django"].from_string(HISTORY_LOOP).render({"page": page}) in body
