"""factory-boy factories and small builders for the site tests."""

from __future__ import annotations

from typing import Any

import factory
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model

PASSWORD = "correct horse battery staple"


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    email = factory.LazyAttribute(lambda u: f"{u.username}@example.com")
    password = factory.PostGenerationMethodCall("set_password", PASSWORD)

    @factory.post_generation
    def verified(obj: Any, create: bool, extracted: Any, **kwargs: Any) -> None:  # noqa: N805
        if not create:
            return
        obj.save()
        if extracted is not False:
            EmailAddress.objects.create(user=obj, email=obj.email, verified=True, primary=True)
