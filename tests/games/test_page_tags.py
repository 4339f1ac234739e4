"""The match page's own tags give what Django's give: {% static_kept %} as {% static %},
{{ t|iso_time }} as {{ t|date:'c' }}, {% url_kept %} as {% url %} (also under
another script prefix), and a page rendered with the CSRF stand-in has the same
text as one rendered with a real token once both are taken out (games/frame.py)."""

from __future__ import annotations

import datetime as dt
import zoneinfo

import pytest
from django.template import Context, RequestContext, Template
from django.test import RequestFactory
from django.urls import set_script_prefix
from django.utils import timezone

from games import frame


def _render(text: str, **context: object) -> str:
    return Template(text).render(Context(context))


@pytest.mark.parametrize("path", ["games/page.js", "games/board.css", "games/a b&c.js"])
def test_static_kept_gives_what_static_gives(path: str) -> None:
    kept = _render("{% load kept_urls %}{% static_kept p %}", p=path)
    plain = _render("{% load static %}{% static p %}", p=path)
    assert kept == plain
    assert kept == _render("{% load kept_urls %}{% static_kept p %}", p=path)


@pytest.mark.parametrize(
    "value",
    [
        dt.datetime(2026, 3, 1, 12, 30, 5, 123456, tzinfo=dt.UTC),
        dt.datetime(2026, 7, 1, 0, 0, tzinfo=zoneinfo.ZoneInfo("Europe/Paris")),
        dt.datetime(2026, 1, 2, 3, 4, 5),  # naive
        dt.date(2026, 1, 2),
        None,
        "",
    ],
)
@pytest.mark.parametrize("zone", ["UTC", "America/New_York"])
def test_iso_time_gives_what_date_c_gives(value: object, zone: str) -> None:
    with timezone.override(zoneinfo.ZoneInfo(zone)):
        ours = _render("{% load match_results %}{{ v|iso_time }}", v=value)
        django = _render("{{ v|date:'c' }}", v=value)
    assert ours == django


@pytest.mark.django_db
@pytest.mark.parametrize("prefix", ["/", "/site/"])
def test_url_kept_gives_what_url_gives_under_each_script_prefix(prefix: str) -> None:
    request = RequestFactory().get("/")
    text = "{% load kept_urls %}{% url_kept 'games:match-poll' 7 %}|{% url 'games:match-poll' 7 %}"
    try:
        set_script_prefix(prefix)
        kept, plain = Template(text).render(RequestContext(request)).split("|")
    finally:
        set_script_prefix("/")
    assert kept == plain
    assert kept.startswith(prefix)


def test_the_csrf_stand_in_leaves_the_same_page_once_tokens_are_taken_out() -> None:
    text = '<form method="post">{% csrf_token %}<button>Go</button></form>'
    with_stand_in = _render(text, csrf_token=frame.CSRF_STANDIN)
    with_token = _render(text, csrf_token="a" * 64)
    assert "csrfmiddlewaretoken" in with_stand_in
    assert frame.without_csrf(with_stand_in.encode()) == frame.without_csrf(with_token.encode())
