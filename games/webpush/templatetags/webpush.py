from __future__ import annotations

from typing import Any

from django import template

from games.webpush.keys import vapid_current

register = template.Library()


@register.inclusion_tag("webpush/_optin.html", takes_context=True)
def webpush_optin(context: dict[str, Any]) -> dict[str, Any]:
    """The "notify me in this browser" switch, with the key browsers subscribe with
    (made now on the site's first use)."""
    return {"vapid_public_key": vapid_current().public_key, "request": context.get("request")}
