"""Signed unsubscribe links: the token an email's link carries, and reading it back.

Apart from games/services/notifications.py, which switches a kind off, because the
emails (games/services/emails.py) write the links and notifications renders the
emails: neither imports the other for it.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core import signing

from games.errors import ServiceError
from games.models import NotificationKind

UNSUBSCRIBE_SALT = "games.unsubscribe"


def unsubscribe_token(*, user: User, kind: str) -> str:
    return signing.dumps({"u": user.pk, "k": kind}, salt=UNSUBSCRIBE_SALT, compress=True)


def unsubscribe_token_read(*, token: str) -> tuple[User, str]:
    """The user and the kind a signed unsubscribe token names; changes nothing."""
    try:
        data = signing.loads(token, salt=UNSUBSCRIBE_SALT)
        user_id, kind = data["u"], data["k"]
    except (signing.BadSignature, KeyError, TypeError, ValueError) as error:
        raise ServiceError("bad_token", "This unsubscribe link is not valid.") from error
    if kind not in NotificationKind.values:
        raise ServiceError("bad_token", "This unsubscribe link is not valid.")
    user = get_user_model().objects.filter(pk=user_id).first()
    if user is None:
        raise ServiceError("bad_token", "This unsubscribe link is not valid.")
    return user, kind
