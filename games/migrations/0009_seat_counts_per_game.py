"""A seat's record counts what its game counts: Helium 3's columns (mined,
robots_destroyed, robots_lost) become `Seat.counts`, a JSON object whose keys each
game's presentation declares (`record_fields`).

The stored values move: Helium 3's and the remake's counts under their games' keys
(the remake calls its robots vehicles), and every finished seat's score under the
name its game gives it (money, territory, points, health). What the old columns
never held (Halite's production, Skyport's damage, the remake's shielded hits) is
not made up here: `python manage.py rebuild_records` counts it again from the
stored final states and turns.

The names below are the games as they were when the columns went: a migration is
history, so it keeps its own copy rather than asking today's presentations. The
old columns go in the next migration, in a transaction of its own (PostgreSQL alters
no table with updates of the same transaction pending).
"""

from __future__ import annotations

from typing import Any

from django.db import migrations, models

BATCH = 1000

# ruleset -> (the score's key, {old column: key}) at the time of this migration.
MOVED: dict[str, tuple[str, dict[str, str]]] = {
    "helium3": (
        "money",
        {"mined": "mined", "robots_destroyed": "robots_destroyed", "robots_lost": "robots_lost"},
    ),
    "helium3-remake": (
        "money",
        {
            "mined": "mined",
            "robots_destroyed": "vehicles_destroyed",
            "robots_lost": "vehicles_lost",
        },
    ),
    "halite": ("territory", {}),
    "skyport": ("points", {}),
    "arena": ("health", {}),
}
OLD = ("mined", "robots_destroyed", "robots_lost")


def counts_of(ruleset: str, final_money: int | None, old: dict[str, int | None]) -> dict[str, int]:
    """A seat's counts from its old columns (a column never filled is left out)."""
    score_key, moved = MOVED.get(ruleset, ("", {}))
    counts = {}
    if score_key and final_money is not None:
        counts[score_key] = int(final_money)
    for column, key in moved.items():
        if old.get(column) is not None:
            counts[key] = int(old[column])  # type: ignore[arg-type]
    return counts


def forward(apps: Any, schema_editor: Any) -> None:
    Seat = apps.get_model("games", "Seat")
    rows = (
        Seat.objects.filter(models.Q(won__isnull=False) | models.Q(final_money__isnull=False))
        .values_list("pk", "match__ruleset", "final_money", *OLD)
        .order_by("pk")
    )
    batch = []
    for pk, ruleset, final_money, *old in rows.iterator(chunk_size=BATCH):
        seat = Seat(pk=pk, counts=counts_of(ruleset, final_money, dict(zip(OLD, old, strict=True))))
        batch.append(seat)
        if len(batch) == BATCH:
            Seat.objects.bulk_update(batch, ["counts"])
            batch = []
    if batch:
        Seat.objects.bulk_update(batch, ["counts"])


def backward(apps: Any, schema_editor: Any) -> None:
    Seat = apps.get_model("games", "Seat")
    rows = (
        Seat.objects.filter(counts__isnull=False)
        .values_list("pk", "match__ruleset", "counts")
        .order_by("pk")
    )
    batch = []
    for pk, ruleset, counts in rows.iterator(chunk_size=BATCH):
        moved = MOVED.get(ruleset, ("", {}))[1]
        old = {column: (counts or {}).get(key) for column, key in moved.items()}
        batch.append(Seat(pk=pk, **{column: old.get(column) for column in OLD}))
        if len(batch) == BATCH:
            Seat.objects.bulk_update(batch, list(OLD))
            batch = []
    if batch:
        Seat.objects.bulk_update(batch, list(OLD))


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0008_match_rated"),
    ]

    operations = [
        migrations.AddField(
            model_name="seat",
            name="counts",
            field=models.JSONField(
                blank=True, help_text="What the match's game counts for this seat.", null=True
            ),
        ),
        migrations.RunPython(forward, backward, elidable=False),
    ]
