"""The admin's match page as staff see it in a browser: the board drawn at a size one
can read, the state's JSON in a box of limited height, and the site's icon."""

from __future__ import annotations

from typing import Any

import pytest
from browser_support import open_context
from django.conf import settings
from django.test import Client
from game_factories import UserFactory
from playwright.sync_api import Browser, expect

from games import services

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_staff_see_the_board_drawn_and_the_json_in_a_short_scrolling_box(
    live_server: Any, browser: Browser
) -> None:
    alice = UserFactory(username="alice")
    match = services.match_create(creator=alice, seat_count=4, bots=["random"] * 3)
    staff = UserFactory(username="root")
    staff.is_staff = staff.is_superuser = True
    staff.save()
    client = Client()
    client.force_login(staff)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME]
    context = open_context(browser, viewport={"width": 1280, "height": 900})
    context.add_cookies([{"name": cookie.key, "value": cookie.value, "url": live_server.url}])
    page = context.new_page()
    page.goto(f"{live_server.url}/admin/games/match/{match.pk}/change/")

    board = page.locator(".admin-board svg.board")
    expect(board).to_be_visible()
    box = board.bounding_box()
    assert box is not None and 500 <= box["width"] <= 640 and box["height"] > 500, box
    cell = page.locator(".admin-board svg.board .he rect").first.bounding_box()
    assert cell is not None and cell["width"] > 20, cell

    json_box = page.locator("pre.state-json")
    shown = json_box.bounding_box()
    assert shown is not None and shown["height"] <= 32 * 16, shown  # 32em at most
    scroll = json_box.evaluate("el => el.scrollHeight")
    assert scroll < 3000, scroll  # one number a line was 18,680 px

    icon = page.request.get(f"{live_server.url}/favicon.ico")
    assert icon.ok and icon.headers["content-type"].startswith("image/svg+xml")
    context.close()
