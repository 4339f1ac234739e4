"""Helium 3's columns leave the Seat: its counts are in `Seat.counts` since 0009."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0009_seat_counts_per_game"),
    ]

    operations = [
        migrations.RemoveField(model_name="seat", name="mined"),
        migrations.RemoveField(model_name="seat", name="robots_destroyed"),
        migrations.RemoveField(model_name="seat", name="robots_lost"),
    ]
