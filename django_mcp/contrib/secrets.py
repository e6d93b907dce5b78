"""Which model fields the generated admin and DRF tools never show.

A generated tool (``ModelAdminTools``, ``AdminSiteTools``, ``ViewSetTools``)
never puts these fields in a result, whatever the admin's form or the
serializer would show:

* **Credentials Django and well-known apps store** (``CREDENTIAL_FIELDS``),
  hashed or not, matched through the model's classes, so a subclass, a
  proxy or a swapped model (``OAUTH2_PROVIDER_ACCESS_TOKEN_MODEL``) of one
  hides them too: the password hash of every ``AbstractBaseUser``, DRF's
  ``Token.key``, django-oauth-toolkit's token strings and their checksums,
  authorization codes (grants and device grants) and client secrets.
* **What the project names**: ``MCP_HIDDEN_FIELDS`` (``"api_key"`` hides that
  field on every model, ``"billing.customer.api_key"`` on one), and the
  ``hidden_fields`` argument of each factory.
* **What the form itself treats as a secret**: a field whose form field is
  a ``ReadOnlyPasswordHashField`` or whose widget is a ``PasswordInput``.

A hidden field may still be an argument (a new client secret, a password
on an add form): it is then marked ``"writeOnly": true`` in the input
schema, which keeps its value out of the audit trail, and a password
written to an ``AbstractBaseUser`` goes through ``set_password()``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from django.db import models

from django_mcp.conf import get_setting

__all__ = ["CREDENTIAL_FIELDS", "PASSWORD_OWNER", "hidden_fields", "is_secret_form_field", "stores_password"]

PASSWORD_OWNER: Final = "django.contrib.auth.base_user.AbstractBaseUser"
"""The class whose ``password`` field holds a hash written through ``set_password()``."""

CREDENTIAL_FIELDS: Final[dict[str, tuple[str, ...]]] = {
    PASSWORD_OWNER: ("password",),
    "rest_framework.authtoken.models.Token": ("key",),
    "oauth2_provider.models.AbstractApplication": ("client_secret",),
    "oauth2_provider.models.AbstractAccessToken": ("token", "token_checksum"),
    "oauth2_provider.models.AbstractRefreshToken": ("token", "token_checksum"),
    "oauth2_provider.models.AbstractGrant": ("code", "code_challenge", "nonce"),
    "oauth2_provider.models.AbstractDeviceGrant": ("device_code", "user_code"),
}
"""Credential fields by the dotted path of the class that declares them.

Classes are named, not imported, so that none of these apps is imported
to find out a model is not one of theirs.
"""


def _class_paths(model: type[models.Model]) -> Iterable[str]:
    for cls in model.__mro__:
        yield f"{cls.__module__}.{cls.__qualname__}"


def stores_password(model: type[models.Model]) -> bool:
    """Return whether ``model`` is a user model whose ``password`` is a hash."""
    return PASSWORD_OWNER in _class_paths(model)


def hidden_fields(model: type[models.Model], extra: Iterable[str] = ()) -> frozenset[str]:
    """Return the names of ``model``'s fields no result may show.

    ``extra`` adds names (a factory's ``hidden_fields``); ``MCP_HIDDEN_FIELDS``
    is read on each call, so ``override_settings`` applies.
    """
    names = set(extra)
    for path in _class_paths(model):
        names.update(CREDENTIAL_FIELDS.get(path, ()))
    opts = model._meta
    label = f"{opts.app_label}.{opts.model_name}."
    for entry in get_setting("MCP_HIDDEN_FIELDS"):
        entry = str(entry).lower()
        if "." not in entry:
            names.add(entry)
        elif entry.startswith(label):
            names.add(entry.removeprefix(label))
    return frozenset(names)


def is_secret_form_field(field: Any) -> bool:
    """Return whether a form field holds a secret: a password hash or a password input."""
    from django import forms
    from django.contrib.auth.forms import ReadOnlyPasswordHashField

    return isinstance(field, ReadOnlyPasswordHashField) or isinstance(
        getattr(field, "widget", None), forms.PasswordInput
    )
