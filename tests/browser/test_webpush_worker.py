"""The notification settings page's Web Push switch and the service worker, in the
system's full Chromium (its headless shell refuses notifications). The switch comes up off in a browser that has not opted in; the
worker registered at the root shows what the site pushes. The message is handed to
the worker through DevTools (ServiceWorker.deliverPushMessage): subscribing for
real would have Chromium ask Google's push service for an endpoint, traffic that
leaves the machine. The site's side of a real push is tests/games/test_webpush.py."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from browser_support import open_context
from playwright.sync_api import Browser, BrowserContext, Page, expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOWN = """async (tag) => {
  const registration = await navigator.serviceWorker.ready;
  const shown = await registration.getNotifications({ tag });
  return shown.map((n) => ({ title: n.title, body: n.body, tag: n.tag, data: n.data }));
}"""


def sign_in(page: Page, base: str, username: str) -> None:
    from game_factories import PASSWORD

    page.goto(f"{base}/accounts/login/")
    page.get_by_label("Login:").fill(username)
    page.get_by_label("Password:").fill(PASSWORD)
    page.get_by_role("button", name="Sign In").click()
    expect(page).not_to_have_url(re.compile(r"/accounts/login/"))


def test_the_switch_starts_off_and_the_worker_shows_a_pushed_your_turn(
    full_browser: Browser, live_server: Any
) -> None:
    # The full browser: Chromium's headless shell refuses every notification.
    context = open_context(full_browser)
    try:
        switch_and_worker(context.new_page(), context, live_server)
    finally:
        context.close()


def switch_and_worker(page: Page, context: BrowserContext, live_server: Any) -> None:
    from game_factories import UserFactory

    from games import services
    from games.webpush.models import PushNotice, PushSubscription
    from games.webpush.services import push_payload

    base = live_server.url
    context.grant_permissions(["notifications"], origin=base)
    player = UserFactory(username="pushed")
    opponent = UserFactory(username="pusher")
    sign_in(page, base, "pushed")

    page.goto(f"{base}/settings/notifications/")
    switch = page.locator("#webpush")
    expect(switch).to_have_attribute("data-webpush-state", "off", timeout=15_000)
    button = switch.get_by_role("button", name="Notify me in this browser")
    expect(button).to_be_enabled()
    expect(switch.locator("[data-webpush-says]")).to_have_text("This browser is not told.")
    assert not PushSubscription.objects.exists()

    # The site's message for a real turn of the player's.
    match = services.match_create(creator=player, seat_count=2, turn_seconds=3600)
    services.seat_join(match_id=match.pk, user=opponent)
    notice = PushNotice(user=player, match=match, turn_number=0)
    payload = push_payload(notice)

    cdp = context.new_cdp_session(page)
    registrations: list[dict[str, Any]] = []
    versions: list[dict[str, Any]] = []
    cdp.on(
        "ServiceWorker.workerRegistrationUpdated",
        lambda event: registrations.extend(event["registrations"]),
    )
    cdp.on("ServiceWorker.workerVersionUpdated", lambda event: versions.extend(event["versions"]))
    cdp.send("ServiceWorker.enable")
    page.evaluate(
        """async (url) => {
          await navigator.serviceWorker.register(url, { scope: "/" });
          await navigator.serviceWorker.ready;
        }""",
        "/push-sw.js",
    )
    # DevTools names the registration once the browser has it: wait for that event.
    for _ in range(300):
        scopes = [r for r in registrations if r["scopeURL"] == f"{base}/" and not r["isDeleted"]]
        if scopes:
            break
        page.wait_for_timeout(50)
    assert scopes, registrations
    registration = scopes[0]

    def activated() -> bool:
        return any(
            v["registrationId"] == registration["registrationId"] and v["status"] == "activated"
            for v in versions
        )

    # A message handed to a worker still activating can be dropped on a busy machine:
    # wait until DevTools says this registration's worker is activated.
    for _ in range(300):
        if activated():
            break
        page.wait_for_timeout(50)
    assert activated(), versions
    # What the worker showed, read in the same moment it is seen (the browser may
    # close a notification soon after). wait_for_function does not wait for a promise
    # to settle (a promise is truthy): the test asks again until one is shown. A
    # message the browser let go unshown is handed over again after 5 s (the same
    # tag: a second one replaces the first, never beside it).
    notices: list[dict[str, Any]] = []
    for attempt in range(300):
        if attempt % 100 == 0:
            cdp.send(
                "ServiceWorker.deliverPushMessage",
                {
                    "origin": base,
                    "registrationId": registration["registrationId"],
                    "data": json.dumps(payload),
                },
            )
        notices = page.evaluate(SHOWN, payload["tag"])
        if notices:
            break
        page.wait_for_timeout(50)
    [shown] = notices
    assert shown == {
        "title": payload["title"],
        "body": payload["body"],
        "tag": f"match-{match.pk}",
        "data": {"url": f"/matches/{match.pk}/"},
    }
