"""A showcase for every game: each row says its match's game, and one of each game
may be live (was: one in all)."""

from typing import Any

from django.db import migrations, models
from django.db.models import OuterRef, Q, Subquery


def rulesets_from_matches(apps: Any, schema_editor: Any) -> None:
    Showcase = apps.get_model("guests", "Showcase")
    Match = apps.get_model("games", "Match")
    Showcase.objects.update(
        ruleset=Subquery(Match.objects.filter(pk=OuterRef("match_id")).values("ruleset")[:1])
    )


class Migration(migrations.Migration):
    dependencies = [
        ("guests", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="showcase",
            name="ruleset",
            field=models.CharField(default="helium3", max_length=32),
        ),
        migrations.RunPython(rulesets_from_matches, migrations.RunPython.noop),
        migrations.RemoveConstraint(model_name="showcase", name="showcase_one_live"),
        migrations.AddConstraint(
            model_name="showcase",
            constraint=models.UniqueConstraint(
                condition=Q(live=True), fields=("ruleset",), name="showcase_one_live_per_game"
            ),
        ),
    ]
