"""Web Push: "your turn" reaches a player's browser when they are away, as the email
does; it is signed with the site's VAPID key and encrypted for that browser alone.

The push service here is a small HTTP server on 127.0.0.1 that does what a real one
does with a message: it checks the VAPID JWT against the key in its header (and the
audience against its own origin) and refuses what fails; the "browser" behind it
holds a P-256 key pair and an auth secret made here, and decrypts the aes128gcm body
with them. No browser test: Chromium's pushManager.subscribe asks Google's push
service for an endpoint, which is traffic leaving the machine; the page's switch
and the endpoints it calls are tested here instead.
"""

from __future__ import annotations

import base64
import json
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import http_ece
import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from django.conf import settings
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from site_support import client_for, drain

from games import catalog, services
from games.errors import ServiceError
from games.models import Match, Notification, NotificationKind, Turn
from games.webpush.endpoints import endpoint_check
from games.webpush.keys import vapid_current
from games.webpush.models import PushNotice, PushSubscription, VapidKey
from games.webpush.services import webpush_send, webpush_sweep
from games.webpush.tasks import webpush_send_task


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@pytest.fixture(autouse=True)
def only_the_local_push_service(settings: Any) -> None:
    """The site may send to 127.0.0.1 and nowhere else."""
    settings.WEBPUSH_ENDPOINT_HOSTS = ["127.0.0.1"]


# --- the browser and its push service ----------------------------------------------


@dataclass
class Browser:
    """What a browser makes when it subscribes: a key pair and an auth secret."""

    key: ec.EllipticCurvePrivateKey = field(
        default_factory=lambda: ec.generate_private_key(ec.SECP256R1())
    )
    auth: bytes = field(default_factory=lambda: os.urandom(16))

    def subscription(self, endpoint: str, vapid_key: str | None = None) -> dict[str, Any]:
        point = self.key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        data: dict[str, Any] = {
            "endpoint": endpoint,
            "expirationTime": None,
            "keys": {"p256dh": b64url(point), "auth": b64url(self.auth)},
        }
        if vapid_key is not None:
            data["key"] = vapid_key
        return data


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    claims: dict[str, Any]
    vapid_key: str  # the public key the JWT was signed with
    payload: dict[str, Any]


class PushService:
    """A push service on 127.0.0.1: it verifies, decrypts for the browser subscribed
    at /push/<name>, records, and answers `status` (201, or 404/410 for a gone one)."""

    def __init__(self) -> None:
        self.browsers: dict[str, Browser] = {}
        self.received: list[Received] = []
        self.refused: list[str] = []
        self.status = 201
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                try:
                    received = service.open(self.path, dict(self.headers.items()), body)
                except (AssertionError, InvalidSignature, ValueError, KeyError) as error:
                    service.refused.append(repr(error))
                    self.send_response(401)
                    self.end_headers()
                    return
                if service.status == 201:
                    service.received.append(received)
                self.send_response(service.status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def browser(self, name: str) -> tuple[Browser, str]:
        self.browsers[name] = Browser()
        return self.browsers[name], f"{self.origin}/push/{name}"

    def open(self, path: str, headers: dict[str, str], body: bytes) -> Received:
        headers = {k.lower(): v for k, v in headers.items()}
        # RFC 8292: "vapid t=<JWT>, k=<the signer's public key>".
        scheme, _, params = headers["authorization"].partition(" ")
        assert scheme == "vapid"
        fields = dict(part.strip().split("=", 1) for part in params.split(","))
        token, key = fields["t"], fields["k"]
        head, claims_part, signature = token.split(".")
        assert json.loads(unb64url(head)) == {"typ": "JWT", "alg": "ES256"}
        public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(key))
        raw = unb64url(signature)
        assert len(raw) == 64
        der = encode_dss_signature(int.from_bytes(raw[:32]), int.from_bytes(raw[32:]))
        public.verify(der, f"{head}.{claims_part}".encode(), ec.ECDSA(hashes.SHA256()))
        claims = json.loads(unb64url(claims_part))
        assert claims["aud"] == self.origin
        assert time.time() < claims["exp"] <= time.time() + 24 * 3600
        assert claims["sub"].startswith(("mailto:", "https://"))
        # RFC 8291: only the subscribed browser's keys open it.
        assert headers["content-encoding"] == "aes128gcm"
        assert int(headers["ttl"]) > 0
        browser = self.browsers[path.removeprefix("/push/")]
        plain = http_ece.decrypt(
            body, private_key=browser.key, auth_secret=browser.auth, version="aes128gcm"
        )
        return Received(path, headers, claims, key, json.loads(plain))

    def __enter__(self) -> PushService:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def push_service() -> Iterator[PushService]:
    with PushService() as service:
        yield service


def opt_in(client: Client, data: Any) -> Any:
    return client.post(
        reverse("webpush:subscribe"), data=json.dumps(data), content_type="application/json"
    )


@pytest.fixture
def subscribed(player: Any, push_service: PushService) -> Browser:
    """The player opted in with one browser, before their match began."""
    browser, endpoint = push_service.browser("alice")
    response = opt_in(
        client_for(player), browser.subscription(endpoint, vapid_current().public_key)
    )
    assert response.status_code == 201, response.content
    return browser


def started_match(player: Any, opponent: Any) -> Match:
    """The player (seat 1) to move first; the opponent joined, which started it."""
    match = services.match_create(creator=player, seat_count=2, turn_seconds=3600)
    services.seat_join(match_id=match.pk, user=opponent)
    match.refresh_from_db()
    assert match.status == Match.Status.RUNNING
    return match


# --- sending -----------------------------------------------------------------------


def test_a_player_who_is_away_is_pushed_their_turn_signed_and_encrypted_for_their_browser(
    player, opponent, subscribed, push_service
):
    match = started_match(player, opponent)
    notice = PushNotice.objects.get(user=player, match=match)
    assert notice.turn_number == match.turn_number
    email = Notification.objects.get(user=player, match=match, kind=NotificationKind.YOUR_TURN)
    assert abs((notice.send_after - email.send_after).total_seconds()) < 1  # due as the email

    assert (
        webpush_send(notice_id=notice.pk, now=notice.send_after - timedelta(seconds=1)) is False
    )  # not yet
    assert webpush_send(notice_id=notice.pk, now=notice.send_after) is True

    [received] = push_service.received
    assert received.vapid_key == PushSubscription.objects.get(user=player).vapid_key.public_key
    assert received.claims["sub"] == settings.WEBPUSH_VAPID_SUBJECT
    assert received.headers["topic"] == f"match{match.pk}"
    game = catalog.title(match.ruleset)
    # The match, its game and the turn: what the player's own page says, nothing more.
    assert received.payload == {
        "title": f"Your turn in match {match.pk}",
        "body": f"{game}, turn {match.turn_number}",
        "url": reverse("games:match-detail", args=[match.pk]),
        "tag": f"match-{match.pk}",
        "match": match.pk,
        "game": game,
        "turn": match.turn_number,
    }
    notice.refresh_from_db()
    assert notice.status == PushNotice.Status.SENT
    sub = PushSubscription.objects.get(user=player)
    assert sub.last_success_at is not None and sub.failures == 0


def test_a_notice_sent_again_sends_nothing(player, opponent, subscribed, push_service):
    match = started_match(player, opponent)
    notice = PushNotice.objects.get(user=player, match=match)
    assert webpush_send(notice_id=notice.pk, now=notice.send_after) is True
    assert webpush_send(notice_id=notice.pk, now=notice.send_after) is False
    assert len(push_service.received) == 1


def test_the_match_title_is_named(player, opponent, subscribed, push_service):
    match = started_match(player, opponent)
    Match.objects.filter(pk=match.pk).update(title="Crater duel")
    notice = PushNotice.objects.get(user=player, match=match)
    assert webpush_send(notice_id=notice.pk, now=notice.send_after) is True
    assert (
        push_service.received[0].payload["title"] == f"Your turn in match {match.pk} “Crater duel”"
    )


def test_the_sweep_queues_a_due_notice_once_and_the_task_sends_it(
    player, opponent, subscribed, push_service, settings
):
    settings.YOUR_TURN_EMAIL_AFTER_SECONDS = 0  # due at once: the task's clock will do
    match = started_match(player, opponent)
    notice = PushNotice.objects.get(user=player, match=match)
    assert webpush_sweep(now=notice.send_after)["queued"] == 0  # queued as it was made
    later = notice.send_after + timedelta(seconds=settings.RESOLVE_GRACE_SECONDS + 1)
    assert webpush_sweep(now=later)["queued"] == 1  # its task may be lost: again, once
    assert webpush_sweep(now=later)["queued"] == 0
    assert webpush_send_task(notice.pk) is True
    assert [r.payload["match"] for r in push_service.received] == [match.pk]


def test_a_player_who_opened_the_match_since_the_turn_began_is_not_pushed_nor_emailed(
    player, opponent, subscribed, push_service
):
    match = started_match(player, opponent)
    services.seat_seen(match=match, user_id=player.pk)
    notice = PushNotice.objects.get(user=player, match=match)
    email = Notification.objects.get(user=player, match=match, kind=NotificationKind.YOUR_TURN)
    assert webpush_send(notice_id=notice.pk, now=notice.send_after) is False
    assert services.notification_send(notification_id=email.pk, now=email.send_after) is False
    notice.refresh_from_db()
    assert notice.status == PushNotice.Status.SKIPPED
    assert push_service.received == [] and push_service.refused == []


def test_a_turn_already_played_is_not_pushed(player, opponent, subscribed, push_service):
    match = started_match(player, opponent)
    notice = PushNotice.objects.get(user=player, match=match)
    services.orders_submit(match_id=match.pk, user=player, turn=match.turn_number, actions=[])
    assert webpush_send(notice_id=notice.pk, now=notice.send_after) is False
    assert push_service.received == []


def test_a_player_who_never_opted_in_gets_no_row(player, opponent, subscribed):
    match = started_match(opponent, player)  # the opponent moves first: their turn
    assert not PushNotice.objects.exists()
    assert Notification.objects.filter(user=opponent, match=match, kind="your_turn").exists()


def test_in_a_game_played_at_once_an_away_player_is_pushed_once_until_they_come_back(
    player, subscribed, push_service
):
    """Every Halite turn is every seat's: the email's rule, one reminder while away."""
    # 20 x 20: on some 10 x 10 maps the grower bot takes all the player's ground in two
    # turns, and the match ends before the turn the last push is for.
    match = services.match_create(
        creator=player,
        seat_count=2,
        turn_seconds=3600,
        ruleset="halite",
        options={"width": 20, "height": 20},
        bots=["grower"],
    )

    def push_this_turn() -> bool:
        notice = PushNotice.objects.get(user=player, match=match, turn_number=match.turn_number)
        return webpush_send(notice_id=notice.pk, now=notice.send_after)

    def pass_the_turn() -> None:
        turn = Turn.objects.get(match=match, number=match.turn_number)
        services.clock_sweep(now=turn.deadline_at + timedelta(seconds=1))
        drain(match, emails=False)

    assert push_this_turn() is True
    pass_the_turn()
    assert push_this_turn() is False  # still away: told already
    services.seat_seen(match=match, user_id=player.pk)  # back on the page...
    pass_the_turn()
    assert push_this_turn() is True  # ...and away again: told once more
    assert [r.payload["turn"] for r in push_service.received] == [0, match.turn_number]


@pytest.mark.parametrize("gone", [404, 410])
def test_a_subscription_the_push_service_says_is_gone_is_removed(
    gone, player, opponent, subscribed, push_service
):
    match = started_match(player, opponent)
    notice = PushNotice.objects.get(user=player, match=match)
    push_service.status = gone
    assert webpush_send(notice_id=notice.pk, now=notice.send_after) is False
    assert not PushSubscription.objects.filter(user=player).exists()
    notice.refresh_from_db()
    assert notice.status == PushNotice.Status.SKIPPED  # no browser left to tell
    assert push_service.refused == []  # it was well signed: refused for being gone only


def test_a_push_service_that_is_down_leaves_the_notice_for_the_sweep(
    player, opponent, subscribed, push_service
):
    match = started_match(player, opponent)
    notice = PushNotice.objects.get(user=player, match=match)
    push_service.status = 503
    assert webpush_send(notice_id=notice.pk, now=notice.send_after) is False
    notice.refresh_from_db()
    assert notice.status == PushNotice.Status.PENDING and notice.attempts == 1
    sub = PushSubscription.objects.get(user=player)
    assert sub.failures == 1 and sub.last_error == "HTTP 503"
    push_service.status = 201
    assert webpush_send(notice_id=notice.pk, now=notice.send_after) is True
    assert PushSubscription.objects.get(user=player).failures == 0


def test_a_key_given_in_settings_signs_the_pushes(player, opponent, push_service, settings):
    given = ec.generate_private_key(ec.SECP256R1())
    scalar = given.private_numbers().private_value.to_bytes(32, "big")
    settings.WEBPUSH_VAPID_PRIVATE_KEY = b64url(scalar)
    public = b64url(
        given.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
    )
    assert vapid_current().public_key == public
    browser, endpoint = push_service.browser("alice")
    assert opt_in(client_for(player), browser.subscription(endpoint, public)).status_code == 201
    match = started_match(player, opponent)
    notice = PushNotice.objects.get(user=player, match=match)
    assert webpush_send(notice_id=notice.pk, now=notice.send_after) is True
    assert push_service.received[0].vapid_key == public


def test_a_rotated_key_keeps_old_subscriptions_working_until_retired(
    player, opponent, subscribed, push_service
):
    old = vapid_current().public_key
    call_command("webpush_vapid_rotate", stdout=open(os.devnull, "w"))  # noqa: SIM115
    assert vapid_current().public_key != old
    match = started_match(player, opponent)
    notice = PushNotice.objects.get(user=player, match=match)
    assert webpush_send(notice_id=notice.pk, now=notice.send_after) is True
    assert push_service.received[0].vapid_key == old  # the key it subscribed with
    call_command("webpush_vapid_rotate", "--retire", stdout=open(os.devnull, "w"))  # noqa: SIM115
    assert VapidKey.objects.count() == 1
    assert not PushSubscription.objects.filter(user=player).exists()


# --- the endpoint's rule -----------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "allowed"),
    [
        ("https://fcm.googleapis.com/fcm/send/abc:def", True),
        ("https://updates.push.services.mozilla.com/wpush/v2/gAAA", True),
        ("https://web.push.apple.com/QGx", True),
        ("http://fcm.googleapis.com/fcm/send/abc", False),
        ("https://localhost/push", False),
        ("https://intranet/push", False),
        ("https://10.0.0.7/push", False),
        ("https://127.0.0.1:8443/push", False),
        ("https://[::1]/push", False),
        ("http://127.0.0.1:9000/push", False),
        ("https://user:pw@fcm.googleapis.com/x", False),
        ("ftp://fcm.googleapis.com/x", False),
        ("https://fcm.googleapis.com:99999/x", False),
        ("https://", False),
        ("", False),
        ("https://fcm.googleapis.com/" + "a" * 1100, False),
    ],
)
def test_in_production_any_https_push_service_named_by_domain_is_allowed(url, allowed, settings):
    settings.WEBPUSH_ENDPOINT_HOSTS = []
    try:
        endpoint_check(url)
    except ServiceError as error:
        assert not allowed, error.message
        assert error.code == "bad_endpoint"
    else:
        assert allowed, url


def test_a_listed_host_narrows_the_rule_and_only_a_listed_loopback_may_use_http(settings):
    settings.WEBPUSH_ENDPOINT_HOSTS = ["push.services.mozilla.com", "127.0.0.1"]
    endpoint_check("https://updates.push.services.mozilla.com/wpush/v2/x")
    endpoint_check("http://127.0.0.1:8123/push/x")
    for refused in ("https://fcm.googleapis.com/x", "http://push.services.mozilla.com/x"):
        with pytest.raises(ServiceError):
            endpoint_check(refused)


# --- the opt-in and opt-out endpoints ------------------------------------------------


def _valid(push_service: PushService) -> dict[str, Any]:
    browser, endpoint = push_service.browser("alice")
    return browser.subscription(endpoint, vapid_current().public_key)


def _bad_bodies(valid: dict[str, Any]) -> dict[str, Any]:
    point = valid["keys"]["p256dh"]
    off_curve = b64url(b"\x04" + b"\x01" * 64)

    def keys(**changes: Any) -> dict[str, Any]:
        return {**valid, "keys": {**valid["keys"], **changes}}

    return {
        "not JSON": b"endpoint=x",
        "a list": [valid],
        "no endpoint": {k: v for k, v in valid.items() if k != "endpoint"},
        "endpoint not a string": {**valid, "endpoint": 5},
        "endpoint elsewhere": {**valid, "endpoint": "https://fcm.googleapis.com/fcm/send/x"},
        "endpoint on localhost": {**valid, "endpoint": "http://localhost:1/x"},
        "no keys": {k: v for k, v in valid.items() if k != "keys"},
        "keys a string": {**valid, "keys": "p256dh"},
        "p256dh not base64url": keys(p256dh="***"),
        "p256dh a number": keys(p256dh=7),
        "p256dh short": keys(p256dh=point[:40]),
        "p256dh off the curve": keys(p256dh=off_curve),
        "auth short": keys(auth=b64url(b"x" * 15)),
        "auth missing": {**valid, "keys": {"p256dh": point}},
        "a key the site never had": {**valid, "key": b64url(b"\x04" + b"\x02" * 64)},
        "key not a string": {**valid, "key": ["k"]},
        "too big": {**valid, "padding": "x" * 5000},
    }


def test_bad_subscriptions_are_a_clear_400_that_changes_nothing(player, push_service):
    client = client_for(player)
    before_key = vapid_current().pk
    valid = _valid(push_service)
    assert opt_in(client, valid).status_code == 201
    stored = list(PushSubscription.objects.values())
    for name, body in _bad_bodies(valid).items():
        if isinstance(body, bytes):
            response = client.post(
                reverse("webpush:subscribe"), data=body, content_type="application/json"
            )
        else:
            response = opt_in(client, body)
        assert response.status_code == 400, name
        error = response.json()["error"]
        assert error["code"] and error["message"], name
        assert list(PushSubscription.objects.values()) == stored, name
    assert list(VapidKey.objects.values_list("pk", flat=True)) == [before_key]


def test_opting_in_needs_a_signed_in_player_a_post_and_the_csrf_token(player, push_service):
    valid = _valid(push_service)
    assert opt_in(Client(), valid).status_code == 403
    assert client_for(player).get(reverse("webpush:subscribe")).status_code == 405
    strict = client_for(player, enforce_csrf_checks=True)
    assert opt_in(strict, valid).status_code == 403
    assert not PushSubscription.objects.exists()
    page = strict.get(reverse("games:notification-settings"))
    token = page.cookies["csrftoken"].value
    response = strict.post(
        reverse("webpush:subscribe"),
        data=json.dumps(valid),
        content_type="application/json",
        HTTP_X_CSRFTOKEN=token,
    )
    assert response.status_code == 201
    assert PushSubscription.objects.filter(user=player).count() == 1


def test_the_same_browser_again_updates_its_row_and_another_player_takes_it_over(
    player, opponent, push_service
):
    valid = _valid(push_service)
    assert opt_in(client_for(player), valid).status_code == 201
    assert opt_in(client_for(player), valid).status_code == 201
    assert PushSubscription.objects.count() == 1
    assert opt_in(client_for(opponent), valid).status_code == 201
    assert list(PushSubscription.objects.values_list("user", flat=True)) == [opponent.pk]


def test_opting_out_removes_only_that_players_browser(player, opponent, push_service):
    mine = _valid(push_service)
    browser, endpoint = push_service.browser("bob")
    theirs = browser.subscription(endpoint)
    assert opt_in(client_for(player), mine).status_code == 201
    assert opt_in(client_for(opponent), theirs).status_code == 201
    url = reverse("webpush:unsubscribe")
    answer = client_for(player).post(
        url, data=json.dumps({"endpoint": theirs["endpoint"]}), content_type="application/json"
    )
    assert answer.status_code == 200 and answer.json() == {"deleted": 0}
    answer = client_for(player).post(
        url, data=json.dumps({"endpoint": mine["endpoint"]}), content_type="application/json"
    )
    assert answer.json() == {"deleted": 1}
    assert list(PushSubscription.objects.values_list("user", flat=True)) == [opponent.pk]
    bad = client_for(player).post(url, data=json.dumps({}), content_type="application/json")
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "bad_endpoint"


# --- the page and the service worker ---------------------------------------------------


def test_the_settings_page_offers_the_switch_with_the_sites_key(player):
    client = client_for(player)
    first = client.get(reverse("games:notification-settings")).content.decode()
    key = VapidKey.objects.get().public_key  # made on the first use, once
    assert f'data-key="{key}"' in first
    assert 'id="webpush"' in first and "data-webpush-toggle" in first
    assert reverse("webpush:subscribe") in first and "webpush/optin.js" in first
    assert "csrfmiddlewaretoken" in first
    second = client.get(reverse("games:notification-settings")).content.decode()
    assert f'data-key="{key}"' in second and VapidKey.objects.count() == 1


def test_the_service_worker_is_served_from_the_root_for_the_whole_site(client):
    response = client.get("/push-sw.js")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/javascript")
    assert response["Service-Worker-Allowed"] == "/"
    body = response.content.decode()
    assert 'addEventListener("push"' in body and "showNotification" in body
    assert client.post("/push-sw.js").status_code == 405
