"""Make a new VAPID key the one browsers subscribe with (docs/webpush.md).

Subscriptions made with an older key keep it and keep working; a browser that
opens the settings page again subscribes anew with the new key. --retire deletes
every older key and, with it, the subscriptions made with it (a key that leaked):
those players opt in again.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from games.webpush.keys import vapid_key_add
from games.webpush.models import PushSubscription, VapidKey


class Command(BaseCommand):
    help = "Add a new VAPID key for new push subscriptions; --retire drops the older ones."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--retire",
            action="store_true",
            help="delete the older keys and the subscriptions made with them",
        )

    def handle(self, *args: Any, retire: bool = False, **options: Any) -> None:
        if settings.WEBPUSH_VAPID_PRIVATE_KEY:
            raise CommandError(
                "WEBPUSH_VAPID_PRIVATE_KEY is set: change that setting to rotate the key."
            )
        with transaction.atomic():
            row = vapid_key_add()
            dropped = 0
            if retire:
                older = VapidKey.objects.exclude(pk=row.pk)
                dropped = PushSubscription.objects.filter(vapid_key__in=older).count()
                older.delete()
        self.stdout.write(f"New VAPID public key: {row.public_key}")
        if retire:
            self.stdout.write(f"Older keys retired; {dropped} subscriptions ended with them.")
