"""Create (or reset) the demo login used by `make run`, with a verified email."""

from __future__ import annotations

from typing import Any

from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandParser
from django.db import transaction


class Command(BaseCommand):
    help = "Create or reset the demo login (a verified email, a known password)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--username", default="demo")
        parser.add_argument("--password", default="helium3-demo")
        parser.add_argument("--email", default="demo@example.com")
        parser.add_argument("--staff", action="store_true", help="Also make it a superuser.")

    @transaction.atomic
    def handle(self, *args: Any, **options: Any) -> None:
        User = get_user_model()
        user, created = User.objects.get_or_create(username=options["username"])
        user.email = options["email"]
        user.set_password(options["password"])
        if options["staff"]:
            user.is_staff = user.is_superuser = True
        user.save()
        EmailAddress.objects.filter(user=user).exclude(email__iexact=user.email).delete()
        EmailAddress.objects.update_or_create(
            user=user, email=user.email, defaults={"verified": True, "primary": True}
        )
        verb = "Created" if created else "Reset"
        self.stdout.write(
            f"{verb} the demo login: username {user.username!r}, password "
            f"{options['password']!r}{' (superuser)' if options['staff'] else ''}."
        )
