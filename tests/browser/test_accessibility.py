"""Every page of every game read by axe-core (tests/browser/vendor/axe-core, never a
CDN) for the WCAG 2 A and AA rules, colour contrast among them, in both themes on a
laptop and a phone: the platform's pages (home, lobby, the new match form of each
game, watch, archive, bots, a player's record, the account pages, the tokens), and
per game its rules page, a match as its player mid-match with the planner open, the
same match as a spectator, its setup step (the arena's build, Skyport's loadout), an
end screen and its replay. Each page checked is photographed on the way
(ci-artifacts/screenshots/a11y-*.jpg), and fails on a script error or on scrolling
sideways: these are the photographs of the platform's pages, which the tour of
test_screenshots.py does not take again.

One live server and one browser; the matches of a game are made once and every view
of them is checked in its four looks (two widths, two themes) before the next game's.
A page is opened once for each width, in the light theme, and read; then the theme
switch (the site's own, which changes the theme in place) turns it dark, and it is
read again once its colours have stopped changing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from browser_support import open_context, settle_board
from django.conf import settings
from django.test import Client
from game_factories import UserFactory
from playwright.sync_api import Browser, Page, ViewportSize, expect
from site_support import drain

import engine
from games import services
from games.models import Match, Seat
from games.services.tokens import token_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

AXE = Path(__file__).resolve().parent / "vendor" / "axe-core" / "axe.min.js"
# axe-core's tags for the WCAG 2.0 and 2.1 success criteria of levels A and AA: every
# rule in the light theme; in the dark one only the rules that read colours, as names,
# labels and landmarks do not change with the theme (and axe takes a second or more a page).
WCAG_AA = {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}
COLOURS = {"type": "rule", "values": ["color-contrast", "link-in-text-block"]}
VIEWPORTS: dict[str, ViewportSize] = {
    "laptop": {"width": 1280, "height": 900},
    "phone": {"width": 390, "height": 844},
}
THEMES = ("light", "dark")

RUN_AXE = """async only => {
  const result = await axe.run(document, {runOnly: only, resultTypes: ['violations']});
  return result.violations.map(v => ({
    id: v.id,
    nodes: v.nodes.map(n => ({
      target: n.target.join(' '),
      html: n.html.slice(0, 120),
      why: (n.any.concat(n.all, n.none).map(c => c.message).join('; ') || '').slice(0, 200),
    })),
  }));
}"""

# Transitions and one-off animations (a fade, a flash of a new turn) end before the
# page is read: a colour caught half way is neither theme's.
STILL = """() => document.getAnimations().every(a =>
  a.playState !== 'running' || a.effect.getTiming().iterations === Infinity)"""


# A legend's icons stand in its lines of text: one drawn larger than a line or two
# (an SVG without a size takes the whole width) pushes its words a screen apart.
BIG_ICONS = """() => [...document.querySelectorAll('.legend li > svg')]
  .filter(svg => svg.getBoundingClientRect().height > 32)
  .map(svg => `is ${Math.round(svg.getBoundingClientRect().height)} px tall: ${svg.outerHTML.slice(0, 90)}`)"""


# How far the page scrolls sideways: a phone's reader must never have to.
SIDEWAYS = "() => document.documentElement.scrollWidth - window.innerWidth"


def axe_violations(page: Page, only: dict[str, Any]) -> list[str]:
    """Each violation of the page as "rule: element: why". The pages of this module's
    contexts have axe-core from the start; another test's page is given it here."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.add_script_tag(path=str(AXE))
    found = page.evaluate(RUN_AXE, only)
    return [
        f"{v['id']}: {node['target']}: {node['why']} [{node['html']}]"
        for v in found
        for node in v["nodes"]
    ]


# The theme switch's own path: its select set and its change sent (the switch may sit
# in a closed menu on a phone, where a click could not reach it). Then the styles are
# worked out again, so that the transitions the new colours start are running before
# the page is asked whether anything still moves.
TO_THEME = """theme => {
  const select = document.querySelector('#theme-switch');
  if (select) {
    select.value = theme;
    select.dispatchEvent(new Event('change'));
  } else {
    document.documentElement.dataset.theme = theme;
  }
  getComputedStyle(document.body).color;
}"""


class Looks:
    """The browser pages of one width: a visitor's and a player's, each opened in the
    light theme (chosen before any page of the site is opened) and then turned dark.

    The widths share their pages: each user's one browser context and page serve
    both, set to this width before a page is opened. A context of its own per
    width cost a browser page process more and fetched every stylesheet, script and
    font again into its empty cache."""

    def __init__(
        self, browser: Browser, base: str, device: str, pages: dict[str, Page], errors: list[str]
    ) -> None:
        self.browser, self.base, self.device = browser, base, device
        self.pages = pages
        self.errors = errors  # the script errors of the pages, until read

    def page(self, user: Any = None) -> Page:
        key = user.username if user is not None else ""
        if key not in self.pages:
            context = open_context(self.browser, viewport=VIEWPORTS[self.device])
            context.add_init_script(f"localStorage.setItem('h3-theme', '{THEMES[0]}')")
            # axe-core given once to the context, which runs it in each page it opens
            # (every page of it is read): added to each page instead, its 650 kB went
            # from this process through the driver to the browser once a page.
            context.add_init_script(path=str(AXE))
            if user is not None:
                client = Client()
                client.force_login(user)
                cookie = client.cookies[settings.SESSION_COOKIE_NAME]
                context.add_cookies([{"name": cookie.key, "value": cookie.value, "url": self.base}])
            page = context.new_page()
            page.on("pageerror", lambda error: self.errors.append(str(error)))
            self.pages[key] = page
        page = self.pages[key]
        page.set_viewport_size(VIEWPORTS[self.device])
        return page


@contextmanager
def every_look(browser: Browser, base: str) -> Iterator[list[Looks]]:
    pages: dict[str, Page] = {}
    errors: list[str] = []
    looks = [Looks(browser, base, d, pages, errors) for d in VIEWPORTS]
    try:
        yield looks
    finally:
        for page in pages.values():
            page.context.close()


def check(
    look: Looks,
    path: str,
    name: str,
    folder: Path,
    user: Any = None,
    then: Callable[[Page], None] | None = None,
    status: int = 200,
) -> list[str]:
    """Open the page as `user` (a visitor for None), let its board settle, do `then`
    (open the planner), then in each theme photograph it and read it with axe: its
    violations, named."""
    page = look.page(user)
    response = page.goto(look.base + path)
    assert response is not None and response.status == status, (
        f"{name}: {response and response.status}"
    )
    if page.locator("#board-wrap svg.board").count():
        settle_board(page)
    # What a reader may unfold (a legend, the orders as JSON) is read unfolded too.
    page.evaluate(
        "() => document.querySelectorAll('main details').forEach(d => { d.open = true; })"
    )
    if then is not None:
        then(page)
    found: list[str] = []
    for theme in THEMES:
        if theme != THEMES[0]:
            page.evaluate(TO_THEME, theme)
        expect(page.locator("html")).to_have_attribute("data-theme", theme)
        page.wait_for_function(STILL, timeout=10_000, polling=100)
        shot = f"a11y-{name}-{look.device}-{theme}"
        page.evaluate("() => window.scrollTo(0, 0)")  # the bar at the top, not half way down
        # A JPEG: a page's whole length as PNG cost Chromium about 0.4 s of CPU to
        # encode and the driver to carry, against 0.25 s (and a third of the bytes).
        page.screenshot(path=str(folder / f"{shot}.jpg"), full_page=True, type="jpeg", quality=85)
        only = WCAG_AA if theme == "light" else COLOURS
        found += [f"{shot}: {v}" for v in axe_violations(page, only)]
        found += [f"{shot}: script error: {e}" for e in look.errors]
        found += [f"{shot}: a legend's icon {icon}" for icon in page.evaluate(BIG_ICONS)]
        sideways = page.evaluate(SIDEWAYS)
        if sideways > 1:
            found.append(f"{shot}: the page scrolls sideways by {sideways} px")
        look.errors.clear()
    return found


def played_to(match: Match, turns: int) -> Match:
    """Every person awaited passes (the engine's default orders) and the bots play,
    until `turns` turns were played or the match is over."""
    for _ in range(1000):
        drain(match, emails=False)
        assert match.state is not None
        if match.status == Match.Status.FINISHED or match.turn_number >= turns:
            return match
        awaited = engine.awaiting(match.state)
        for seat in Seat.objects.filter(match=match, number__in=awaited, user__isnull=False):
            assert seat.user is not None
            passing = engine.default_orders(match.state, seat.number)
            services.orders_submit(
                match_id=match.pk,
                user=seat.user,
                turn=match.turn_number,
                orders={k: v for k, v in passing.items() if k not in ("seat", "turn")},
            )
    raise AssertionError(f"match {match.pk} did not get to turn {turns}")


def click_first(*selectors: str) -> Callable[[Page], None]:
    """Open the planner: click the first of these selectors (in the order given) that
    matches an element shown and not disabled, once one of them does: waited for, as
    a turn's animation may still hide them. The click itself waits until it can land."""

    def open_planner(page: Page) -> None:
        usable = [page.locator(f"{s}:not([disabled])").filter(visible=True) for s in selectors]
        anyone = usable[0]
        for other in usable[1:]:
            anyone = anyone.or_(other)
        expect(anyone.first).to_be_visible(timeout=20_000)
        # The state is there: the first selector that has it, as given, is clicked (if
        # all went in the meantime, whichever comes back first).
        wanted = next((found for found in usable if found.count()), anyone)
        wanted.first.click()

    return open_planner


# Per game: the seats and bots of its matches, the options of a short one (the end
# screen and the replay), the turn the mid-match page is at, whether its first turn is
# a setup step, and how a player opens the planner on the board.
GAMES: dict[str, dict[str, Any]] = {
    "helium3": {
        "bots": ["fighter"],
        "short": {"length_ms": 15_000},
        "mid": 3,
        "setup": False,
        "planner": click_first('#board-wrap svg.board g.rb[data-id^="1-"]'),
    },
    "helium3-remake": {
        "bots": ["prospector"],
        "short": {"rounds": 5},
        "mid": 3,
        "setup": False,
        "planner": click_first('#board-wrap svg.board g.rb[data-id^="1-"]'),
    },
    "halite": {
        "bots": ["grower"],
        "short": {"width": 10, "height": 10},
        # The match kept running to turn 4: on some 10 x 10 maps the grower takes all
        # of a passing player's ground by then.
        "options": {"width": 20, "height": 20},
        "mid": 4,
        "setup": False,
        "planner": click_first("#board-wrap svg.board .hl-piece.seat-1"),
    },
    "skyport": {
        "bots": ["prospector"],
        "short": {"rounds": 5},
        "mid": 3,
        "setup": True,
        "planner": click_first('[id^="sp-w-"]', "#sp-mine", '[id^="sp-d-"]'),
    },
    "arena": {
        "bots": ["hunter"],
        "short": {"rounds": 10},
        "mid": 3,
        "setup": True,
        "planner": click_first("#ar-shoot", "#ar-scan"),
    },
}


def submitted(fill: dict[str, str], button: str, shows: str) -> Callable[[Page], None]:
    """Fill a form by its labels (the browser's own checks off), send it, and wait for
    the page that answers to show `shows`: the errors, the message, the new token."""

    def send(page: Page) -> None:
        page.evaluate(
            "() => document.querySelectorAll('form').forEach(f => { f.noValidate = true; })"
        )
        for label, value in fill.items():
            page.get_by_label(label).fill(value)
        with page.expect_navigation():
            page.locator("main").get_by_role("button", name=button).click()
        expect(page.locator(shows).first).to_be_visible()

    return send


def report(found: list[str]) -> str:
    return f"{len(found)} accessibility violations:\n" + "\n".join(found)


@pytest.mark.slow
def test_the_platform_pages_pass_wcag_aa_in_both_themes_on_a_laptop_and_a_phone(
    live_server: Any, browser: Browser, screenshot_dir: Path
) -> None:
    player = UserFactory(username="vega")
    token_create(user=player, name="my bot")
    done = services.match_create(
        creator=player, seat_count=2, bots=["miner"], length_ms=15_000, title="Short duel"
    )
    played_to(done, 10_000)
    services.match_create(creator=player, seat_count=3, bots=["miner"], title="Open seat")
    # A match of bots, running: the watch page lists it.
    services.match_create(creator=player, seat_count=2, bots=["miner", "fighter"], title="Bots")
    visitor_pages = {
        "home": "/",
        "games": "/games/",
        "rules": "/rules/",
        "login": "/accounts/login/",
        "signup": "/accounts/signup/",
        "password-reset": "/accounts/password/reset/",
    }
    player_pages = {
        "lobby": "/",
        "watch": "/watch/",
        "archive": "/archive/",
        "bots": "/bots/",
        "player": f"/players/{player.username}/",
        "settings": "/settings/notifications/",
        "tokens": "/settings/tokens/",
        "email": "/accounts/email/",
        "password": "/accounts/password/change/",
        **{f"create-{game}": f"/matches/new/?game={game}" for game in GAMES},
    }
    found: list[str] = []
    with every_look(browser, live_server.url) as looks:
        for look in looks:
            for name, path in visitor_pages.items():
                found += check(look, path, name, screenshot_dir)
            for name, path in player_pages.items():
                found += check(look, path, name, screenshot_dir, user=player)
            # The pages with what a form answers: its errors, a new token, a refusal.
            found += check(
                look,
                "/accounts/login/",
                "login-refused",
                screenshot_dir,
                then=submitted(
                    {"Login:": "vega", "Password:": "not the password"},
                    "Sign In",
                    ".form-errors, .errorlist",
                ),
            )
            found += check(
                look,
                "/matches/new/?game=helium3",
                "create-errors",
                screenshot_dir,
                user=player,
                then=submitted(
                    {"Battle length (minutes)": "999"},
                    "Create the match",
                    ".field-errors, .errorlist",
                ),
            )
            found += check(
                look,
                "/settings/tokens/",
                "tokens-new",
                screenshot_dir,
                user=player,
                then=submitted({"Name": "laptop bot"}, "Create a token", ".new-token"),
            )
            found += check(look, "/matches/999999/", "not-found", screenshot_dir, status=404)
    assert not found, report(found)


@pytest.mark.parametrize("game", list(GAMES))
@pytest.mark.slow
def test_every_page_of_a_game_passes_wcag_aa_in_both_themes_on_a_laptop_and_a_phone(
    live_server: Any, browser: Browser, screenshot_dir: Path, game: str
) -> None:
    shape = GAMES[game]
    player = UserFactory(username="vega")
    made = {"creator": player, "seat_count": 2, "turn_seconds": 3600, "ruleset": game}
    made["bots"] = shape["bots"]
    start = services.match_create(**made, options=shape.get("options"))
    middle = played_to(services.match_create(**made, options=shape.get("options")), shape["mid"])
    assert middle.status != Match.Status.FINISHED
    end = played_to(services.match_create(**made, options=shape["short"]), 100_000)
    assert end.status == Match.Status.FINISHED
    slug = game.replace("helium3-", "")
    found: list[str] = []
    with every_look(browser, live_server.url) as looks:
        for look in looks:
            found += check(look, f"/games/{game}/", f"{slug}-rules", screenshot_dir)
            if shape["setup"]:
                found += check(
                    look, f"/matches/{start.pk}/", f"{slug}-setup", screenshot_dir, user=player
                )
            found += check(
                look,
                f"/matches/{middle.pk}/",
                f"{slug}-planner",
                screenshot_dir,
                user=player,
                then=shape["planner"],
            )
            found += check(look, f"/matches/{middle.pk}/", f"{slug}-spectator", screenshot_dir)
            found += check(look, f"/matches/{end.pk}/", f"{slug}-end", screenshot_dir, user=player)
            found += check(look, f"/matches/{end.pk}/replay/", f"{slug}-replay", screenshot_dir)
    assert not found, report(found)


def dialog_open(to: str) -> Callable[[Page], None]:
    """Open the challenge dialog from a player's page and wait for its form."""

    def open_dialog(page: Page) -> None:
        page.get_by_role("link", name=f"Challenge {to}").click()
        dialog = page.get_by_role("dialog", name=f"Challenge {to}")
        expect(dialog.get_by_label("Seats")).to_be_visible()

    return open_dialog


def test_the_competition_pages_pass_wcag_aa_in_both_themes_on_a_laptop_and_a_phone(
    live_server: Any, browser: Browser, screenshot_dir: Path
) -> None:
    """The challenges page (one challenge each way), the challenge form alone and as
    the dialog on a player's page, a leaderboard with its ladder matches, a profile
    with its rating chart, an invitation to a private match, and the tokens page with
    a bot on one ladder and taken off another."""
    import random

    from django.utils import timezone
    from site_support import play_out

    from games.compete.challenges import challenge_create
    from games.compete.invitations import invitation_path
    from games.ladder import services as ladder
    from games.ladder.models import LadderEntry

    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    UserFactory(username="carol")
    for _ in range(2):  # two rated matches: a chart with a line
        match = services.match_create(creator=alice, seat_count=2, length_ms=2000)
        services.seat_join(match_id=match.pk, user=bob)
        play_out(match)
    challenge_create(challenger=bob, to="alice", ruleset="helium3", seats=2)
    challenge_create(challenger=alice, to="carol", ruleset="halite", seats=2)
    private = services.match_create(creator=alice, seat_count=2, public=False, title="Private")
    token_create(user=alice, name="alice's bot")
    ladder.ladder_set(user=alice, game="helium3", on=True)
    ladder.ladder_set(user=alice, game="halite", on=True)
    LadderEntry.objects.filter(user=alice, game="halite").update(
        on=False, removed_at=timezone.now(), removed_reason="It missed its turns."
    )
    assert ladder.ladder_round(game="helium3", rng=random.Random(3))
    pages = {
        "challenges": ("/challenges/", alice, None),
        "challenge-form": ("/challenges/new/?to=bob", alice, None),
        "challenge-dialog": ("/players/bob/", alice, dialog_open("bob")),
        "leaderboard": ("/games/helium3/leaderboard/", alice, None),
        "leaderboard-visitor": ("/games/helium3/leaderboard/", None, None),
        "profile": ("/players/alice/", bob, None),
        "invitation": (invitation_path(private), bob, None),
        "tokens-ladder": ("/settings/tokens/", alice, None),
    }
    found: list[str] = []
    with every_look(browser, live_server.url) as looks:
        for look in looks:
            for name, (path, user, then) in pages.items():
                found += check(look, path, name, screenshot_dir, user=user, then=then)
    assert not found, report(found)
