"""Small things every visitor meets: the site's icon, the name and domain its emails
greet with, and the admin's drawing of a match's full state."""

from __future__ import annotations

import json
import re
from xml.dom import minidom

import pytest
from django.apps import apps
from django.contrib.sites.models import Site
from django.contrib.staticfiles import finders
from django.test import Client
from django.urls import reverse

from games.admin import compact_json
from games.apps import site_from_settings
from games.models import Match


def test_favicon_ico_redirects_to_the_sites_svg_icon_which_is_served():
    client = Client()
    response = client.get("/favicon.ico")
    assert response.status_code == 302
    assert response["Location"].endswith("/games/favicon.svg")
    assert "max-age=86400" in response["Cache-Control"]
    path = finders.find("games/favicon.svg")
    assert path is not None
    svg = minidom.parse(path).documentElement
    assert svg.tagName == "svg" and svg.getAttribute("viewBox") == "0 0 32 32"
    # The site's mark, no one game's (it was Helium 3's moon).
    assert svg.getElementsByTagName("title")[0].firstChild.data == "Robot Turns"


@pytest.mark.django_db
def test_every_page_names_the_icon():
    html = Client().get(reverse("account_login")).content.decode()
    link = re.search(r'<link rel="icon" href="([^"]+)" type="image/svg\+xml">', html)
    assert link and link.group(1).endswith("/games/favicon.svg")


@pytest.fixture
def forget_the_site():
    """The Sites framework caches the row per process: a changed row must not outlive
    the test that changed it."""
    yield
    Site.objects.clear_cache()


@pytest.mark.django_db
def test_the_site_row_follows_the_settings_on_migrate(settings, forget_the_site):
    site = Site.objects.get_current()
    assert (site.name, site.domain) == ("Robot Turns", "127.0.0.1:8000")
    settings.SITE_NAME = "Moonbase"
    settings.SITE_URL = "https://moon.example.org"
    site_from_settings(apps=apps)
    site = Site.objects.get_current()
    assert (site.name, site.domain) == ("Moonbase", "moon.example.org")
    assert Site.objects.count() == 1


@pytest.mark.django_db
def test_the_confirmation_email_greets_from_the_sites_name(mailoutbox):
    response = Client().post(
        reverse("account_signup"),
        {
            "username": "flora",
            "email": "flora@example.org",
            "password1": "a long moon password",
            "password2": "a long moon password",
        },
    )
    assert response.status_code == 302
    body = mailoutbox[-1].body
    assert "Hello from Robot Turns!" in body
    assert "example.com!" not in body and "Thank you for using Robot Turns!" in body


@pytest.fixture
def staff(admin_user) -> Client:
    client = Client()
    client.force_login(admin_user)
    return client


def test_the_admin_draws_the_board_with_its_cells_and_robots(staff, running_match):
    state = running_match.state
    robot = next(r for r in state["robots"] if r["id"] == "3-1")
    robot.update(active=True, shield=True, deflect="SW")
    Match.objects.filter(pk=running_match.pk).update(state=state)
    html = staff.get(reverse("admin:games_match_change", args=[running_match.pk])).content.decode()
    board = re.search(
        r'<div class="admin-board" style="([^"]*)">(<svg class="board".*?</svg>)', html
    )
    assert board is not None
    assert "width:640px" in board.group(1)
    svg = board.group(2)
    helium = sum(1 for row in state["helium"] for amount in row if amount > 0)
    assert len(re.findall(r'<rect id="c\d+"', svg)) == helium > 0
    assert len(re.findall(r'<g id="rb-', svg)) == len(state["robots"])
    assert re.search(r'<g id="rb-3-1" class="[^"]*\bsd\b', svg)  # staff see the shield


def test_the_admin_shows_the_state_json_compactly_in_a_scrolling_box(staff, running_match):
    html = staff.get(reverse("admin:games_match_change", args=[running_match.pk])).content.decode()
    found = re.search(r'<pre class="state-json" style="([^"]*)">(.*?)</pre>', html, re.S)
    assert found is not None
    assert "max-height" in found.group(1) and "overflow:auto" in found.group(1)
    text = found.group(2).replace("&quot;", '"')
    assert json.loads(text) == running_match.state
    lines = text.splitlines()
    assert len(lines) < 100  # one number a line was thousands
    row = json.dumps(running_match.state["helium"][5])
    assert any(line.strip().rstrip(",") == row for line in lines)


def test_compact_json_keeps_rows_and_records_on_one_line_and_round_trips():
    value = {"b": [[1, 2], [3, 4]], "a": {"x": 1, "y": None}, "c": [], "d": [{"k": [1, 2]}] * 9}
    text = compact_json(value)
    assert json.loads(text) == value
    assert text.splitlines()[0] == "{"
    assert '  "a": {"x": 1, "y": null},' in text
    assert '  "b": [[1, 2], [3, 4]],' in text
