"""A routine refusal is one log line, as every other 4xx: somebody who does not play
posting a match's order form, or opening a private match's page, poll, movie or
history, is answered 403 and logged once, without the PermissionDenied's traceback
(the web log had forty of them after one run of the tests). A server error keeps its
traceback."""

from __future__ import annotations

import io
import logging
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from site_support import client_for

from games import services
from games.models import Match


@pytest.fixture
def private(player, opponent) -> Match:
    match = services.match_create(
        creator=player, seat_count=2, turn_seconds=3600, public=False, bots=["random"]
    )
    return match


@pytest.fixture
def public(player, opponent) -> Match:
    match = services.match_create(creator=player, seat_count=2, turn_seconds=3600)
    services.seat_join(match_id=match.pk, user=opponent)
    return match


def _refusal_lines(caplog: Any) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.levelno >= logging.WARNING]


def _assert_one_line(caplog: Any, path: str) -> None:
    lines = _refusal_lines(caplog)
    assert [(r.name, r.getMessage()) for r in lines] == [
        ("django.request", f"Forbidden (Permission denied): {path}")
    ]
    assert lines[0].exc_info is None and not lines[0].exc_text
    assert "Traceback" not in caplog.text


@pytest.mark.parametrize(
    "page",
    ["games:match-detail", "games:match-poll", "games:match-history", "games:match-turn-movie"],
)
def test_an_outsider_opening_a_private_matchs_page_is_one_log_line(
    private, spectator, caplog, page
):
    args = [private.pk, 0] if page == "games:match-turn-movie" else [private.pk]
    url = reverse(page, args=args)
    with caplog.at_level(logging.INFO):
        # The history is a fragment htmx asks for (a plain GET is sent to the page).
        response = client_for(spectator).get(url, headers={"HX-Request": "true"})
    assert response.status_code == 403
    _assert_one_line(caplog, url)


def test_an_outsider_posting_the_order_form_is_one_log_line(public, spectator, caplog):
    url = reverse("games:match-orders", args=[public.pk])
    with caplog.at_level(logging.INFO):
        response = client_for(spectator).post(url, {"turn": 0, "actions_json": "[]"})
    assert response.status_code == 403
    _assert_one_line(caplog, url)


def test_a_server_error_keeps_its_traceback(caplog, settings):
    """The other side of the rule: a 500 is still logged with its traceback."""
    from django.urls import path

    def broken(request: Any) -> Any:
        raise RuntimeError("broken on purpose")

    settings.ROOT_URLCONF = type("urls", (), {"urlpatterns": [path("broken/", broken)]})
    with caplog.at_level(logging.INFO):
        response = Client(raise_request_exception=False).get("/broken/")
    assert response.status_code == 500
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors and errors[0].exc_info is not None
    assert "Traceback" in caplog.text and "broken on purpose" in caplog.text


def test_a_suspicious_request_is_one_line_in_the_web_log(settings):
    """A 400 that Django's security log reports (a Host header the site does not
    serve) reaches the web log's handler as one line too, without a traceback."""
    handler = next(h for h in logging.getLogger().handlers if h.get_name() == "console")
    assert isinstance(handler, logging.StreamHandler)
    written = io.StringIO()
    previous = handler.setStream(written)
    try:
        response = Client().get(reverse("games:lobby"), headers={"Host": "elsewhere.example"})
    finally:
        handler.setStream(previous)
    assert response.status_code == 400
    lines = written.getvalue().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("Invalid HTTP_HOST header: 'elsewhere.example'.")
    assert "Traceback" not in written.getvalue()
