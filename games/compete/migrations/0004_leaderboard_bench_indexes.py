"""The leaderboards' indexes end with the last game played: PostgreSQL then leaves
out the inactive ratings inside the index and counts a leaderboard by an index-only
scan. With 100,000 rated accounts it answered the leaderboard's count with a
sequential scan of the ratings (bench/ratings.py, docs/benchmarks.md)."""

from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("compete", "0003_challenges_invitations"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name="rating",
            name="rating_board",
        ),
        migrations.RemoveIndex(
            model_name="rating",
            name="rating_board_kind",
        ),
        migrations.AddIndex(
            model_name="rating",
            index=models.Index(
                condition=models.Q(("sigma__lte", 4.0)),
                fields=["game", "-conservative", "id", "last_played_at"],
                name="rating_board",
            ),
        ),
        migrations.AddIndex(
            model_name="rating",
            index=models.Index(
                condition=models.Q(("sigma__lte", 4.0)),
                fields=["game", "kind", "-conservative", "id", "last_played_at"],
                name="rating_board_kind",
            ),
        ),
    ]
