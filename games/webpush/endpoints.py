"""What a browser's subscription may name, checked before it is stored and again
before each send: the site POSTs to the endpoint, so a player must not be able to
point it at the site's own network.

In production any https endpoint on a named host will do (each browser has its
push service: fcm.googleapis.com, updates.push.services.mozilla.com,
web.push.apple.com, *.notify.windows.com); settings.WEBPUSH_ENDPOINT_HOSTS narrows
that to those hosts and their subdomains. Addresses (IP literals) and single-label
names such as localhost are refused unless listed; a listed loopback address may be
reached over plain http, which is how the tests' local push service is reached
(their list is ["127.0.0.1"] alone).
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from cryptography.hazmat.primitives.asymmetric import ec
from django.conf import settings

from games.errors import ServiceError
from games.webpush.keys import b64url_decode

ENDPOINT_MAX = 1024


def _bad_endpoint(why: str) -> ServiceError:
    return ServiceError("bad_endpoint", f"The subscription's endpoint {why}.")


def _address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def endpoint_check(url: Any) -> str:
    """The endpoint if the site may send to it; ServiceError("bad_endpoint") if not."""
    if not isinstance(url, str) or not url:
        raise _bad_endpoint("is missing")
    if len(url) > ENDPOINT_MAX:
        raise _bad_endpoint(f"is longer than {ENDPOINT_MAX} characters")
    if not url.isascii() or any(c.isspace() or ord(c) < 32 for c in url):
        raise _bad_endpoint("is not a URL")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - a bad port raises here
    except ValueError as error:
        raise _bad_endpoint("is not a URL") from error
    host = (parts.hostname or "").rstrip(".").lower()
    if not host or parts.username is not None or parts.password is not None:
        raise _bad_endpoint("names no host")
    allowed = [h.strip().lower().rstrip(".") for h in settings.WEBPUSH_ENDPOINT_HOSTS]
    listed = any(host == h or host.endswith(f".{h}") for h in allowed if h)
    if allowed and not listed:
        raise _bad_endpoint("is not on a push service this site sends to")
    address = _address(host)
    if parts.scheme == "http" and listed and address is not None and address.is_loopback:
        return url
    if parts.scheme != "https":
        raise _bad_endpoint("must be an https URL")
    if not listed and (address is not None or "." not in host):
        raise _bad_endpoint("must name a push service by its domain name")
    return url


@dataclass(frozen=True)
class SubscriptionIn:
    endpoint: str
    p256dh: str
    auth: str
    key: str | None  # the VAPID public key the browser subscribed with, if it said


def subscription_parse(data: Any) -> SubscriptionIn:
    """A browser's PushSubscription.toJSON() (with "key", the VAPID public key used),
    checked: the endpoint as above, p256dh a point of P-256, auth 16 bytes."""
    if not isinstance(data, dict):
        raise ServiceError("bad_subscription", "Send the subscription as a JSON object.")
    endpoint = endpoint_check(data.get("endpoint"))
    keys = data.get("keys")
    if not isinstance(keys, dict):
        raise ServiceError("bad_keys", "The subscription has no keys (p256dh and auth).")
    p256dh, auth = keys.get("p256dh"), keys.get("auth")
    if not isinstance(p256dh, str) or not isinstance(auth, str):
        raise ServiceError("bad_keys", "keys.p256dh and keys.auth must be strings.")
    try:
        point = b64url_decode(p256dh)
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
        if len(point) != 65:
            raise ValueError("not an uncompressed point")
    except (ValueError, TypeError) as error:
        raise ServiceError("bad_keys", "keys.p256dh is not a P-256 public key.") from error
    try:
        secret = b64url_decode(auth)
    except ValueError as error:
        raise ServiceError("bad_keys", "keys.auth is not base64url.") from error
    if len(secret) != 16:
        raise ServiceError("bad_keys", "keys.auth must be 16 bytes.")
    key = data.get("key")
    if key is not None and (not isinstance(key, str) or len(key) > 100):
        raise ServiceError("bad_key", "key must be the VAPID public key the page gave.")
    return SubscriptionIn(endpoint=endpoint, p256dh=p256dh, auth=auth, key=key)
