"""{% url_kept %}: Django's {% url %} with each answer kept in this process.

Resolving a URL name walks the URL patterns on every call (about a tenth of a match
page's first view after a turn went to its twenty-odd {% url %} tags, the header's
among them). What reverse() answers depends only on the name, the arguments, the
URL configuration, the script prefix, the language and the current namespace, so
the answer is kept under all of them; a change of the settings (tests) forgets every answer.
"""

from __future__ import annotations

import functools
from typing import Any

from django import template
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.urls import get_script_prefix, get_urlconf, reverse
from django.utils.translation import get_language

register = template.Library()


@register.simple_tag(takes_context=True)
def url_kept(context: template.Context, view_name: str, *args: Any) -> str:
    """{% url_kept 'games:match-poll' match.pk %}: what {% url %} gives (escaped by
    the template as it escapes {% url %}'s; `as name` keeps it unescaped, as there)."""
    # The namespace {% url %} resolves in: the request's current_app, else the
    # namespace of the URL it came by, else none.
    request: Any = getattr(context, "request", None)
    if hasattr(request, "current_app"):
        current_app = request.current_app
    else:
        current_app = getattr(getattr(request, "resolver_match", None), "namespace", None)
    typed = tuple((type(arg), arg) for arg in args)
    where = (get_script_prefix(), get_urlconf(), get_language())
    return _reversed(where, current_app, view_name, typed)


@functools.lru_cache(maxsize=4096)
def _reversed(
    where: tuple[str, Any, str | None], current_app: str | None, view_name: str, typed: Any
) -> str:
    # reverse() reads the script prefix, the URL configuration and (for patterns
    # that have one) the language itself: all are in the key, so an answer is only
    # ever given back under the same ones.
    return reverse(view_name, args=[arg for _, arg in typed], current_app=current_app)


@receiver(setting_changed, dispatch_uid="games.kept_urls.forget")
def _forget(**kwargs: Any) -> None:
    _reversed.cache_clear()
