"""{% url_kept %}: Django's {% url %} with each answer kept in this process; {% static_kept %}
the same for {% static %}.

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
from django.templatetags.static import static
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
    return _reversed(_where(request), current_app, view_name, typed)


def _where(request: Any) -> tuple[str, Any, str | None]:
    """The script prefix, the URL configuration and the language, read once for a
    request (each is a context-local lookup, and a page has twenty-odd of these
    tags): the handler sets the first two before the view runs and nothing here
    changes any of them while it answers."""
    if request is None:
        return (get_script_prefix(), get_urlconf(), get_language())
    known: tuple[str, Any, str | None] | None = getattr(request, "_url_kept_where", None)
    if known is None:
        known = (get_script_prefix(), get_urlconf(), get_language())
        request._url_kept_where = known
    return known


@functools.lru_cache(maxsize=4096)
def _reversed(
    where: tuple[str, Any, str | None], current_app: str | None, view_name: str, typed: Any
) -> str:
    # reverse() reads the script prefix, the URL configuration and (for patterns
    # that have one) the language itself: all are in the key, so an answer is only
    # ever given back under the same ones.
    return reverse(view_name, args=[arg for _, arg in typed], current_app=current_app)


@register.simple_tag
def static_kept(path: str) -> str:
    """{% static_kept 'games/page.js' %}: what {% static %} gives (escaped as its is).
    The storage's answer (a walk of the settings, a quote and a join of the URL, for
    every tag of every page rendered) depends on the path and the settings only: the
    script prefix, which the static URL starts with, is in the key too."""
    return _static(get_script_prefix(), path)


@functools.lru_cache(maxsize=1024)
def _static(prefix: str, path: str) -> str:
    return static(path)


@receiver(setting_changed, dispatch_uid="games.kept_urls.forget")
def _forget(**kwargs: Any) -> None:
    _reversed.cache_clear()
    _static.cache_clear()
