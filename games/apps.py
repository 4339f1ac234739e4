from django.apps import AppConfig


class GamesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games"
    verbose_name = "Helium 3 matches"

    def ready(self) -> None:
        from games import viewers  # noqa: F401  (connects its logout receiver)
