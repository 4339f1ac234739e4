from typing import Any
from urllib.parse import urlsplit

from django.apps import AppConfig
from django.apps import apps as global_apps
from django.apps.registry import Apps
from django.conf import settings
from django.core.signals import request_started
from django.db.models.signals import post_migrate

from helium3_site.dbhealth import quiet_checks


def site_from_settings(*, apps: Apps = global_apps, using: str = "default", **kwargs: Any) -> None:
    """The Sites framework's row says what settings say: SITE_NAME, and SITE_URL's host
    (allauth's emails greet from it; its default is "example.com")."""
    try:
        site_model = apps.get_model("sites", "Site")
    except LookupError:  # the sites app is not installed or not migrated yet
        return
    domain = urlsplit(settings.SITE_URL).netloc
    site_model.objects.using(using).update_or_create(
        pk=settings.SITE_ID, defaults={"domain": domain, "name": settings.SITE_NAME}
    )
    from django.contrib.sites.models import Site

    Site.objects.clear_cache()


class GamesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games"
    verbose_name = "Helium 3 matches"

    def ready(self) -> None:
        from games import viewers  # noqa: F401  (connects its logout receiver)

        post_migrate.connect(site_from_settings, sender=self, dispatch_uid="games.site")
        # A request's kept database connection is checked without a round trip while
        # its socket is quiet (after Django's own receiver, connected on import).
        request_started.connect(quiet_checks, dispatch_uid="helium3_site.dbhealth")
