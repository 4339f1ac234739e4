from django.apps import AppConfig


class WebPushConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games.webpush"
    label = "webpush"
    verbose_name = "Web Push"
