"""A match may have turns shorter than a person may choose (down to one second):
the platform makes them where bots play each other, the ladder's ten-second turns.
The forms and the API still hold people to TURN_SECONDS_MIN."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0010_seat_helium3_columns_removed"),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name="match",
            name="match_turn_seconds_in_range",
        ),
        migrations.AddConstraint(
            model_name="match",
            constraint=models.CheckConstraint(
                condition=models.Q(("turn_seconds__gte", 1), ("turn_seconds__lte", 259200)),
                name="match_turn_seconds_in_range",
            ),
        ),
    ]
