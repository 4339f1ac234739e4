from typing import Any

from django.core.management.base import BaseCommand

from games.guests.services import guests_cleanup


class Command(BaseCommand):
    help = (
        "Delete guests nobody claimed within a week (with the matches only they played, "
        "against bots) and showcase matches that ended more than a day ago."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        report = guests_cleanup()
        self.stdout.write(
            f"Deleted {report.guests} guests, {report.matches} of their matches and "
            f"{report.showcases} old showcase matches."
        )
