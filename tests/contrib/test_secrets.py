"""django_mcp.contrib.secrets: which model fields no generated tool shows."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.forms import ReadOnlyPasswordHashField
from django.contrib.auth.models import Group, User
from oauth2_provider.models import AccessToken, Application, Grant, RefreshToken
from rest_framework.authtoken.models import Token, TokenProxy

from django_mcp.contrib.secrets import hidden_fields, is_secret_form_field, stores_password
from testproject.shelf.models import Volume


def test_credentials_are_found_through_the_models_classes() -> None:
    assert hidden_fields(User) == {"password"}
    assert hidden_fields(Token) == hidden_fields(TokenProxy) == {"key"}  # a proxy inherits them
    assert hidden_fields(Application) == {"client_secret"}
    assert hidden_fields(AccessToken) == hidden_fields(RefreshToken) == {"token", "token_checksum"}
    assert hidden_fields(Grant) == {"code", "code_challenge", "nonce"}
    assert hidden_fields(Group) == hidden_fields(Volume) == frozenset()


def test_the_setting_hides_a_name_everywhere_or_on_one_model(settings: Any) -> None:
    settings.MCP_HIDDEN_FIELDS = ["notes", "auth.group.name"]

    assert hidden_fields(Volume) == {"notes"}
    assert hidden_fields(Group) == {"notes", "name"}
    assert hidden_fields(User, ("email",)) == {"password", "notes", "email"}


def test_password_inputs_and_hashes_are_secret_form_fields() -> None:
    assert is_secret_form_field(ReadOnlyPasswordHashField())
    assert is_secret_form_field(forms.CharField(widget=forms.PasswordInput))
    assert not is_secret_form_field(forms.CharField())


def test_only_user_models_store_a_password_hash() -> None:
    assert stores_password(User)
    assert not stores_password(Token)
