"""The site's VAPID keys (RFC 8292): made on first use and kept in the database, or
taken from settings.WEBPUSH_VAPID_PRIVATE_KEY when the operator gives one."""

from __future__ import annotations

import base64

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from django.conf import settings
from django.db import transaction
from py_vapid import Vapid02  # type: ignore[import-untyped]

from games.webpush.models import VapidKey


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def b64url_decode(text: str) -> bytes:
    """base64url with or without its padding; ValueError if it is not that."""
    if not isinstance(text, str) or not text.isascii():
        raise ValueError("not base64url")
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (ValueError, TypeError) as error:
        raise ValueError("not base64url") from error


def public_key_of(private: ec.EllipticCurvePrivateKey) -> str:
    point = private.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return b64url(point)


def _from_settings(text: str) -> ec.EllipticCurvePrivateKey:
    """The operator's key: PEM, or the raw 32-byte scalar in base64url (what
    `vapid --gen` and most Web Push guides print)."""
    text = text.strip()
    if text.startswith("-----BEGIN"):
        key = serialization.load_pem_private_key(text.encode(), password=None)
    else:
        key = ec.derive_private_key(int.from_bytes(b64url_decode(text), "big"), ec.SECP256R1())
    if not isinstance(key, ec.EllipticCurvePrivateKey) or key.curve.name != "secp256r1":
        raise ValueError("WEBPUSH_VAPID_PRIVATE_KEY must be a P-256 key")
    return key


def _pem(key: ec.EllipticCurvePrivateKey) -> str:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode("ascii")


def vapid_key_add(key: ec.EllipticCurvePrivateKey | None = None) -> VapidKey:
    """Make `key` (a new one if None) the key new subscriptions are made with."""
    key = key or ec.generate_private_key(ec.SECP256R1())
    row, _ = VapidKey.objects.get_or_create(
        public_key=public_key_of(key), defaults={"private_pem": _pem(key)}
    )
    return row


def vapid_current() -> VapidKey:
    """The key new subscriptions are made with: the operator's if settings name one,
    else the newest in the database, made now if there is none. Two processes that
    both make one on the very first use leave two keys, each valid for the
    subscriptions made with it."""
    configured = settings.WEBPUSH_VAPID_PRIVATE_KEY
    if configured:
        key = _from_settings(configured)
        row = VapidKey.objects.filter(public_key=public_key_of(key)).first()
        return row or vapid_key_add(key)
    row = VapidKey.objects.order_by("-created_at", "-pk").first()
    if row is None:
        with transaction.atomic():
            row = vapid_key_add()
    return row


def vapid_signer(row: VapidKey) -> Vapid02:
    key = serialization.load_pem_private_key(row.private_pem.encode("ascii"), password=None)
    assert isinstance(key, ec.EllipticCurvePrivateKey)  # vapid_key_add stores only those
    return Vapid02(private_key=key)


def vapid_subject() -> str:
    """Who runs the site, as the push services ask (the JWT's "sub")."""
    return str(settings.WEBPUSH_VAPID_SUBJECT)
