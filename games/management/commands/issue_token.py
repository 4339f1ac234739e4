"""`python manage.py issue_token USERNAME [--name NAME]`: a new API token for the
user (created, without a usable password, if it does not exist), printed once."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from games.errors import ServiceError
from games.services.tokens import token_create


class Command(BaseCommand):
    help = "Print a new API token for USERNAME, creating the user if needed."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument("--name", default="issued by an admin", help="The token's name.")

    def handle(self, *args: Any, **options: Any) -> None:
        User = get_user_model()
        username = options["username"].strip()
        try:
            if not 0 < len(username) <= 150:
                raise ValidationError("it has 1 to 150 characters")
            UnicodeUsernameValidator()(username)
        except ValidationError as error:
            reason = " ".join(error.messages)
            raise CommandError(f"{username!r} is not a valid username: {reason}") from None
        with transaction.atomic():
            user, created = User.objects.get_or_create(**{User.USERNAME_FIELD: username})
            if created:
                # A bot's account logs in with tokens only, until someone sets a password.
                user.set_unusable_password()
                user.save(update_fields=["password"])
            try:
                _token, raw = token_create(user=user, name=options["name"])
            except ServiceError as error:
                raise CommandError(error.message) from None
        if created:
            self.stderr.write(f"Created user {username!r} (no password; it logs in with tokens).")
        self.stdout.write(raw)
