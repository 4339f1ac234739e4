"""The email a challenged player gets when away (games/compete/challenges.py)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.urls import reverse

from games import catalog, words
from games.compete.models import Challenge
from games.services.emails import absolute


def challenge_terms(challenge: Challenge) -> str:
    """The match a challenge asks for, in a line: "Halite, 2 seats, rated, 1 hour a turn"."""
    game = (
        catalog.title(challenge.ruleset)
        if challenge.ruleset in catalog.names()
        else (challenge.ruleset)
    )
    parts = [game, f"{challenge.seats} seats", "rated" if challenge.rated else "casual"]
    parts.append(f"{words.seconds_words(challenge.turn_seconds)} a turn")
    bots = [b for b in challenge.bots if b]
    if bots:
        parts.append("with " + ", ".join(words.bot_label(b) for b in bots))
    return ", ".join(parts)


def render_challenge_email(challenge: Challenge) -> EmailMultiAlternatives:
    context: dict[str, Any] = {
        "user": challenge.challenged,
        "challenger": challenge.challenger.get_username(),
        "terms": challenge_terms(challenge),
        "expires_at": challenge.expires_at,
        "challenges_url": absolute(reverse("compete:challenges")),
    }
    subject = " ".join(render_to_string("compete/email/challenge_subject.txt", context).split())
    message = EmailMultiAlternatives(
        subject=f"[Robot Turns] {subject}",
        body=render_to_string("compete/email/challenge.txt", context),
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[challenge.challenged.email],
    )
    message.attach_alternative(
        render_to_string("compete/email/challenge.html", context), "text/html"
    )
    return message
