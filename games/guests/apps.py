from django.apps import AppConfig


class GuestsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games.guests"
    label = "guests"
    verbose_name = "Helium 3 visitors"
