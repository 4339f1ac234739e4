"""Notification emails: a subject, a plain-text and an HTML template per kind."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.urls import reverse

from games.models import Notification


def absolute(path: str) -> str:
    return f"{settings.SITE_URL}{path}"


def render_notification(row: Notification) -> EmailMultiAlternatives:
    from games.services.notifications import unsubscribe_token

    ctx: dict[str, Any] = dict(row.context)
    deadline = ctx.get("deadline")
    context = {
        "user": row.user,
        "match": row.match,
        "kind": row.kind,
        "kind_label": row.get_kind_display(),
        "turn_number": row.turn_number,
        "deadline": datetime.fromisoformat(deadline) if deadline else None,
        "ctx": ctx,
        "match_url": absolute(reverse("games:match-detail", args=[row.match_id])),
        "settings_url": absolute(reverse("games:notification-settings")),
        "unsubscribe_url": absolute(
            reverse("games:unsubscribe", args=[unsubscribe_token(user=row.user, kind=row.kind)])
        ),
    }
    base = f"games/email/{row.kind}"
    # One line whatever the template or the data holds: a header never takes a break.
    subject = " ".join(render_to_string(f"{base}_subject.txt", context).split())
    text = render_to_string(f"{base}.txt", context)
    html = render_to_string(f"{base}.html", context)
    message = EmailMultiAlternatives(
        subject=f"[Helium 3] {subject}",
        body=text,
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[row.user.email],
        headers={
            # RFC 8058: mail clients may unsubscribe with one POST to this URL.
            "List-Unsubscribe": f"<{context['unsubscribe_url']}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
        },
    )
    message.attach_alternative(html, "text/html")
    return message
