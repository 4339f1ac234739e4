from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.templatetags.static import static
from django.urls import include, path
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_GET


@require_GET
@cache_control(public=True, max_age=86400)
def favicon(request: HttpRequest) -> HttpResponse:
    """Browsers ask for /favicon.ico on their own; the site's icon is a static SVG
    (every page also names it with <link rel="icon">)."""
    return redirect(static("games/favicon.svg"))


urlpatterns = [
    path("favicon.ico", favicon, name="favicon"),
    path("admin/", admin.site.urls),
    path("accounts/", include("allauth.urls")),
    path("api/v1/", include("games.api.urls")),
    path("", include("games.compete.urls")),
    path("", include("games.ladder.urls")),
    path("", include("games.webpush.urls")),
    path("", include("games.urls")),
]
