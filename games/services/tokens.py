"""API tokens: created (shown once), named, revoked; only their digest is stored.

A token reads "h3_<prefix>_<secret>". The prefix (10 characters) finds the row
without a scan; the SHA-256 of the whole token must match the stored digest,
compared in constant time. The secret carries 256 bits, so nobody guesses one and
a fast hash is enough (a slow password hash would cost every API request).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import string
from datetime import timedelta

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from games.errors import ServiceError
from games.models import ApiToken

TOKEN_PREFIX = "h3_"
PREFIX_LENGTH = 10
MAX_ACTIVE_TOKENS = 20
NAME_MAX = 64
TOKEN_RE = re.compile(r"h3_([a-z0-9]{10})_([A-Za-z0-9_-]{43})")
# Writing last_used_at on every request would make every poll a write.
LAST_USED_RESOLUTION = timedelta(minutes=1)
_ALPHABET = string.ascii_lowercase + string.digits


class TokenNotFound(ServiceError):
    status = 404


def token_digest(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


def token_create(*, user: User, name: str) -> tuple[ApiToken, str]:
    """A new token for `user`: the row, and the token itself (never stored, shown once)."""
    name = " ".join(name.split())
    if not name:
        raise ServiceError("bad_name", "Give the token a name, such as the bot it is for.")
    if len(name) > NAME_MAX:
        raise ServiceError("bad_name", f"A token's name has at most {NAME_MAX} characters.")
    with transaction.atomic():
        active = ApiToken.objects.select_for_update().filter(user=user, revoked_at__isnull=True)
        if active.count() >= MAX_ACTIVE_TOKENS:
            raise ServiceError(
                "too_many_tokens",
                f"You have {MAX_ACTIVE_TOKENS} tokens; revoke one before creating another.",
            )
        while True:
            prefix = "".join(secrets.choice(_ALPHABET) for _ in range(PREFIX_LENGTH))
            if not ApiToken.objects.filter(prefix=prefix).exists():
                break
        raw = f"{TOKEN_PREFIX}{prefix}_{secrets.token_urlsafe(32)}"
        token = ApiToken.objects.create(
            user=user, name=name, prefix=prefix, digest=token_digest(raw)
        )
    return token, raw


def token_revoke(*, user: User, token_id: int) -> ApiToken:
    """Revoke one of the user's own tokens; requests with it get 401 from now on."""
    with transaction.atomic():
        token = ApiToken.objects.select_for_update().filter(pk=token_id, user=user).first()
        if token is None:
            raise TokenNotFound("not_found", "You have no such token.")
        if token.revoked_at is None:
            token.revoked_at = timezone.now()
            token.save(update_fields=["revoked_at"])
        return token


def tokens_revoke_by_staff(*, token_ids: list[int]) -> int:
    """Revoke any users' tokens (an admin acting on a leaked key); how many were
    still active. Revoking a revoked token again changes nothing."""
    return ApiToken.objects.filter(pk__in=token_ids, revoked_at__isnull=True).update(
        revoked_at=timezone.now()
    )


def token_authenticate(raw: str) -> ApiToken | None:
    """The active token `raw` is, with its user loaded; None for anything else."""
    found = TOKEN_RE.fullmatch(raw)
    if found is None:
        return None
    token = (
        ApiToken.objects.select_related("user")
        .filter(prefix=found.group(1), revoked_at__isnull=True)
        .first()
    )
    if token is None or not hmac.compare_digest(token.digest, token_digest(raw)):
        return None
    if not token.user.is_active:
        return None
    now = timezone.now()
    if token.last_used_at is None or token.last_used_at < now - LAST_USED_RESOLUTION:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return token
