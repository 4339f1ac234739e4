"""Store each seat's record for the matches that finished before seats had one."""

from typing import Any

from django.db import migrations

from games.records import seat_records


def backfill(apps: Any, schema_editor: Any) -> None:
    Match = apps.get_model("games", "Match")
    Seat = apps.get_model("games", "Seat")
    Resolution = apps.get_model("games", "Resolution")
    for match in Match.objects.filter(status="finished", state__isnull=False).iterator():
        turns = Resolution.objects.filter(match=match).order_by("turn_number")
        records = seat_records(match.state, ((r.seat, r.events) for r in turns))
        for seat in Seat.objects.filter(match=match):
            record = records.get(seat.number)
            if record is None:
                continue
            # Today's records keep a game's counts by its own names (Seat.counts,
            # since 0009); the columns of this time held Helium 3's.
            counts = record.counts
            seat.won = record.won
            seat.final_money = record.final_money
            seat.mined = counts.get("mined")
            seat.robots_destroyed = counts.get("robots_destroyed", counts.get("vehicles_destroyed"))
            seat.robots_lost = counts.get("robots_lost", counts.get("vehicles_lost"))
            seat.save(
                update_fields=["won", "final_money", "mined", "robots_destroyed", "robots_lost"]
            )


class Migration(migrations.Migration):
    dependencies = [("games", "0002_bot_api_tokens_public_records")]

    operations = [migrations.RunPython(backfill, migrations.RunPython.noop)]
