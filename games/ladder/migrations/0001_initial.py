# The bot ladder: entries, the matchmaker's claims, its matches and slots.

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("games", "0008_match_rated"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="LadderGame",
            fields=[
                ("game", models.CharField(max_length=32, primary_key=True, serialize=False)),
                ("claimed_at", models.DateTimeField()),
                ("round", models.PositiveBigIntegerField(default=0)),
            ],
        ),
        migrations.CreateModel(
            name="LadderMatch",
            fields=[
                (
                    "match",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="ladder",
                        serialize=False,
                        to="games.match",
                    ),
                ),
                ("game", models.CharField(max_length=32)),
                ("round", models.PositiveBigIntegerField()),
                ("index", models.PositiveSmallIntegerField()),
                ("created_at", models.DateTimeField()),
            ],
            options={
                "verbose_name_plural": "ladder matches",
                "indexes": [
                    models.Index(fields=["game", "-created_at"], name="ladder_ladd_game_1f793c_idx")
                ],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("game", "round", "index"), name="ladder_match_once_per_slot"
                    )
                ],
            },
        ),
        migrations.CreateModel(
            name="LadderEntry",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("game", models.CharField(max_length=32)),
                ("on", models.BooleanField(default=True)),
                ("joined_at", models.DateTimeField()),
                ("settled", models.BooleanField(default=False)),
                ("removed_at", models.DateTimeField(blank=True, null=True)),
                ("removed_reason", models.CharField(blank=True, default="", max_length=200)),
                ("told_at", models.DateTimeField(blank=True, null=True)),
                (
                    "user",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="ladder_entries",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "verbose_name_plural": "ladder entries",
                "indexes": [
                    models.Index(fields=["game", "on"], name="ladder_ladd_game_8f0f10_idx")
                ],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("user", "game"), name="ladder_entry_once_per_game"
                    )
                ],
            },
        ),
        migrations.CreateModel(
            name="LadderSlot",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("game", models.CharField(max_length=32)),
                ("player", models.CharField(max_length=48)),
                ("number", models.PositiveSmallIntegerField()),
                (
                    "match",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="games.match",
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(
                        fields=("game", "player", "number"), name="ladder_slot_once_per_bot"
                    )
                ],
            },
        ),
    ]
