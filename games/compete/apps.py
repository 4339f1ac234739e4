from django.apps import AppConfig


class CompeteConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games.compete"
    label = "compete"
    verbose_name = "Ratings"
