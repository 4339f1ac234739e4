"""The site's frame in a real browser: the theme switch (system, light, dark) is kept
from page to page and applied before the first paint; the badge and the tab title
count the matches waiting for the player's move, and the match page's poll updates
both; the lobby, the new match form, the archive and the settings photographed in
both themes on a laptop and a phone (ci-artifacts/screenshots/look-*.png), none of
them scrolling sideways."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from browser_support import open_context
from django.conf import settings
from django.test import Client
from game_factories import UserFactory
from playwright.sync_api import Browser, Page, expect
from site_support import drain

from games import services

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LAPTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
DARK_BG = "rgb(14, 18, 27)"  # --bg of the dark theme (games/static/games/site.css)
LIGHT_BG = "rgb(245, 244, 239)"


def signed_in(browser: Browser, user: Any, base: str, **options: Any) -> Page:
    client = Client()
    client.force_login(user)
    context = open_context(browser, **options)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME]
    context.add_cookies([{"name": cookie.key, "value": cookie.value, "url": base}])
    return context.new_page()


def background(page: Page) -> str:
    return page.evaluate("() => getComputedStyle(document.body).backgroundColor")


@pytest.fixture
def table(live_server: Any) -> dict[str, Any]:
    """alice has two matches waiting for her move, one waiting for bob's, an open one
    and a finished one; the archive has a few finished bot matches."""
    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    for title in ("Sea of Tranquillity", ""):
        services.match_create(
            creator=alice, seat_count=4, bots=["fighter", "miner", "random"], title=title
        )
    theirs = services.match_create(creator=bob, seat_count=2, title="Friendly")
    services.seat_join(match_id=theirs.pk, user=alice)
    services.match_create(creator=alice, seat_count=3, bots=["miner"])
    for bots in (["fighter", "miner", "random", "random"], ["miner", "fighter"]):
        done = services.match_create(creator=bob, seat_count=len(bots), length_ms=15_000, bots=bots)
        drain(done, emails=False)
    return {"alice": alice, "bob": bob, "theirs": theirs}


def test_the_theme_switch_is_kept_across_pages_and_the_system_choice_followed(
    live_server: Any, page: Page, table: dict[str, Any]
):
    base, browser = live_server.url, page.context.browser
    assert browser is not None
    page = signed_in(browser, table["alice"], base, viewport=LAPTOP, color_scheme="light")
    page.goto(f"{base}/")
    switch = page.locator("#theme-switch")
    expect(switch).to_be_visible()
    expect(switch).to_have_value("system")
    expect(page.locator("html")).not_to_have_attribute("data-theme", re.compile("."))
    assert background(page) == LIGHT_BG

    switch.select_option("dark")
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    assert background(page) == DARK_BG
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Archive").click()
    expect(page).to_have_url(re.compile("/archive/$"))
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    expect(page.locator("#theme-switch")).to_have_value("dark")
    assert background(page) == DARK_BG
    # The head's inline script sets it before the first paint: without the site's
    # script file (blocked here) the page is dark all the same.
    page.route("**/site.js", lambda route: route.abort())
    page.reload()
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    assert background(page) == DARK_BG
    page.unroute("**/site.js")
    page.reload()

    page.locator("#theme-switch").select_option("light")
    page.goto(f"{base}/watch/")
    expect(page.locator("html")).to_have_attribute("data-theme", "light")
    assert background(page) == LIGHT_BG

    # Back to the system's choice, in a browser whose system is dark.
    page.locator("#theme-switch").select_option("system")
    page.context.close()
    dark_system = signed_in(browser, table["alice"], base, viewport=LAPTOP, color_scheme="dark")
    dark_system.goto(f"{base}/archive/")
    expect(dark_system.locator("html")).not_to_have_attribute("data-theme", re.compile("."))
    assert background(dark_system) == DARK_BG
    dark_system.context.close()


def test_the_badge_and_the_tab_title_count_the_matches_waiting_and_the_poll_updates_them(
    live_server: Any, page: Page, table: dict[str, Any]
):
    base, browser = live_server.url, page.context.browser
    assert browser is not None
    page = signed_in(browser, table["alice"], base, viewport=LAPTOP)
    page.goto(f"{base}/")
    badge = page.locator("#move-badge")
    expect(badge).to_be_visible()
    expect(badge.locator("[aria-hidden=true]")).to_have_text("2")
    expect(page).to_have_title("(2) Lobby · Robot Turns")
    expect(page.get_by_role("link", name=re.compile(r"^Play 2 matches waiting"))).to_be_visible()
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Archive").click()
    expect(page).to_have_title("(2) Archive · Robot Turns")

    # bob moves in the match where alice waited for him: her open match page's poll
    # brings the new count, and the tab title follows.
    theirs = table["theirs"]
    page.goto(f"{base}/matches/{theirs.pk}/")
    expect(page).to_have_title(re.compile(r"^\(2\) Match \d+ · Helium 3: Friendly"))
    services.orders_submit(match_id=theirs.pk, user=table["bob"], turn=0, actions=[])
    drain(theirs, emails=False)
    expect(page.locator("#move-badge [aria-hidden=true]")).to_have_text("3", timeout=15_000)
    expect(page).to_have_title(re.compile(r"^\(3\) Match \d+ · Helium 3: Friendly"))
    page.context.close()

    # bob, with nothing waiting for him, has no count at all.
    bob = signed_in(browser, table["bob"], base, viewport=LAPTOP)
    bob.goto(f"{base}/archive/")
    expect(bob.locator("#move-badge")).to_be_hidden()
    expect(bob).to_have_title("Archive · Robot Turns")
    bob.context.close()


PAGES = {
    "lobby": "/",
    "create": "/matches/new/",
    "archive": "/archive/",
    "settings": "/settings/notifications/",
}


@pytest.mark.parametrize("size", ["laptop", "phone"])
def test_the_main_pages_in_both_themes_on_a_laptop_and_a_phone(
    live_server: Any, page: Page, table: dict[str, Any], screenshot_dir: Path, size: str
):
    base, browser = live_server.url, page.context.browser
    assert browser is not None
    viewport = LAPTOP if size == "laptop" else PHONE
    page = signed_in(browser, table["alice"], base, viewport=viewport, color_scheme="light")
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    for theme in ("light", "dark"):
        page.goto(f"{base}/")
        page.locator("#theme-switch").select_option(theme)
        for name, path in PAGES.items():
            page.goto(base + path)
            expect(page.locator("html")).to_have_attribute("data-theme", theme)
            expect(page.locator("h1")).to_be_visible()
            sideways = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
            assert sideways <= 0, f"{name} scrolls {sideways} px sideways at {viewport['width']} px"
            page.screenshot(
                path=str(screenshot_dir / f"look-{name}-{theme}-{size}.png"), full_page=True
            )
    # The form shows only the seats the match will have.
    page.goto(f"{base}/matches/new/")
    page.get_by_label("Seats").select_option("2")
    expect(page.get_by_label("Second seat")).to_be_visible()
    expect(page.get_by_label("Third seat")).to_be_hidden()
    page.get_by_label("Seats").select_option("4")
    expect(page.get_by_label("Fourth seat")).to_be_visible()
    page.locator(".chip", has_text="5 min").click()
    expect(page.get_by_label("Battle length (minutes)")).to_have_value("5")
    expect(page.locator(".chip", has_text="5 min")).to_have_attribute("aria-pressed", "true")
    if size == "phone":
        # The user menu opens without the page widening, and every item is reachable.
        page.locator("details.user-menu > summary").click()
        menu = page.locator("details.user-menu > ul")
        for item in ("Settings", "API tokens", "Email", "Password", "My record"):
            expect(menu.get_by_role("link", name=item)).to_be_visible()
        expect(menu.get_by_role("button", name=re.compile("^Log out"))).to_be_visible()
        box = menu.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
        page.screenshot(path=str(screenshot_dir / "look-user-menu-dark-phone.png"))
        page.keyboard.press("Escape")
        expect(menu).to_be_hidden()
    assert not errors, errors
    page.context.close()


# Every link, menu button and control of the header, each as the page lays it out:
# the ones that are not inside the window (or not shown at all) by name. A link in a
# closed menu is reached through its button, which is checked instead.
HEADER_OUT_OF_REACH = """() => {
  const out = [];
  const controls = document.querySelectorAll(
    '.site-header a, .site-header summary, .site-header select, .site-header button');
  for (const el of controls) {
    const menu = el.closest('details');
    if (menu && !menu.open && el.tagName !== 'SUMMARY') continue;
    const name = (el.getAttribute('aria-label') || el.textContent || el.id).trim().replace(/\\s+/g, ' ');
    const r = el.getBoundingClientRect(), style = getComputedStyle(el);
    if (r.width < 1 || r.height < 1 || style.visibility === 'hidden') { out.push(name + ': not shown'); continue; }
    if (r.left < 0 || r.top < 0 || r.right > innerWidth + 0.5 || r.bottom > innerHeight + 0.5)
      out.push(`${name}: at ${Math.round(r.left)},${Math.round(r.top)}-${Math.round(r.right)},${Math.round(r.bottom)}`);
  }
  return out;
}"""


def _out_of_reach(page: Page) -> list[str]:
    # The theme switch shows once the site's script runs (it does nothing without it).
    expect(page.locator(".theme-switch")).to_be_visible()
    return page.evaluate(HEADER_OUT_OF_REACH)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_every_header_item_is_inside_a_phones_window_on_every_page(
    live_server: Any, browser: Browser, screenshot_dir: Path, theme: str
) -> None:
    from allauth.account.models import EmailAddress, EmailConfirmationHMAC

    base = live_server.url
    player = UserFactory(username="wanderer")
    mine = services.match_play_now(user=player, ruleset="helium3")
    newcomer = UserFactory(username="newcomer", email="newcomer@example.com")
    EmailAddress.objects.filter(user=newcomer).update(verified=False)
    address = EmailAddress.objects.get(user=newcomer, email=newcomer.email)
    confirm_key = EmailConfirmationHMAC(address).key
    visitor_pages = {
        "home": "/",
        "match as a spectator": f"/matches/{mine.pk}/",
        "games": "/games/",
        "log in": "/accounts/login/",
        "sign up": "/accounts/signup/",
        "password reset": "/accounts/password/reset/",
        "email sent": "/accounts/confirm-email/",
        "email confirm": f"/accounts/confirm-email/{confirm_key}/",
    }
    player_pages = {
        "lobby": "/",
        "match": f"/matches/{mine.pk}/",
        "watch": "/watch/",
        "email": "/accounts/email/",
        "password": "/accounts/password/change/",
    }
    options = {"viewport": PHONE, "color_scheme": theme}
    visitor = open_context(browser, **options).new_page()
    member = signed_in(browser, player, base, **options)
    found: dict[str, list[str]] = {}
    for page, pages in ((visitor, visitor_pages), (member, player_pages)):
        for name, path in pages.items():
            page.goto(base + path)
            expect(page.locator("main")).to_be_visible()
            assert background(page) == (DARK_BG if theme == "dark" else LIGHT_BG), name
            out = _out_of_reach(page)
            if out:
                found[name] = out
    assert found == {}
    # A visitor's header offers both ways in; a player's menu opens inside the window.
    visitor.goto(f"{base}/accounts/login/")
    header = visitor.locator(".site-header")
    expect(header.get_by_role("link", name="Log in")).to_be_visible()
    expect(header.get_by_role("link", name="Sign up")).to_be_visible()
    visitor.screenshot(path=str(screenshot_dir / f"look-header-log-in-{theme}-phone.png"))
    member.goto(f"{base}/accounts/email/")
    member.locator("details.user-menu > summary").click()
    expect(member.locator("details.user-menu > ul")).to_be_visible()
    assert _out_of_reach(member) == []
    member.screenshot(path=str(screenshot_dir / f"look-header-menu-{theme}-phone.png"))
    visitor.context.close()
    member.context.close()
