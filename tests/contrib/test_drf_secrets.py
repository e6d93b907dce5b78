"""ViewSetTools keep secrets home: a careless user serializer, write-only fields, rolled-back writes.

The ViewSets here are written as a project might, carelessly: a
``ModelSerializer`` of ``User`` with every field (the password hash
included), a ``write_only`` PIN, a serializer naming DRF's token key.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip("rest_framework", reason="Django REST framework (the drf extra) is not installed")

from asgiref.sync import async_to_sync  # noqa: E402
from django.contrib.auth.models import User  # noqa: E402
from rest_framework import permissions, serializers, viewsets  # noqa: E402
from rest_framework.authtoken.models import Token  # noqa: E402

from django_mcp import Server  # noqa: E402
from django_mcp.contrib.drf import ViewSetTools  # noqa: E402
from django_mcp.contrib.drf import _tools as drf_tools  # noqa: E402
from django_mcp.models import McpAuditEntry  # noqa: E402
from django_mcp.testing import McpTestClient  # noqa: E402


class CarelessUserSerializer(serializers.ModelSerializer):  # type: ignore[type-arg]
    """Every field of a user, the hash included."""

    pin = serializers.CharField(write_only=True, required=False)

    class Meta:
        model = User
        fields = ("id", "username", "email", "password", "last_name", "pin")

    def create(self, validated_data: dict[str, Any]) -> User:
        validated_data.pop("pin", None)
        return super().create(validated_data)

    def update(self, instance: User, validated_data: dict[str, Any]) -> User:
        validated_data.pop("pin", None)
        return super().update(instance, validated_data)


class HashingUserSerializer(CarelessUserSerializer):
    """The same fields; the password goes through set_password()."""

    def create(self, validated_data: dict[str, Any]) -> User:
        password = validated_data.pop("password")
        user = super().create(validated_data)
        user.set_password(password)
        user.save(update_fields=["password"])
        return user


class UserViewSet(viewsets.ModelViewSet):  # type: ignore[type-arg]
    queryset = User.objects.order_by("pk")
    serializer_class = HashingUserSerializer
    permission_classes = (permissions.IsAdminUser,)


class CarelessUserViewSet(UserViewSet):
    serializer_class = CarelessUserSerializer


class TokenSerializer(serializers.ModelSerializer):  # type: ignore[type-arg]
    class Meta:
        model = Token
        fields = ("key", "user", "created")


class TokenViewSet(viewsets.ReadOnlyModelViewSet):  # type: ignore[type-arg]
    queryset = Token.objects.order_by("created")
    serializer_class = TokenSerializer
    permission_classes = (permissions.IsAdminUser,)
    lookup_field = "user"


class PeopleServer(Server):
    name = "people"
    tools = (
        *ViewSetTools(UserViewSet, actions=("list", "retrieve", "create", "partial_update")),
        *ViewSetTools(TokenViewSet, actions=("list",)),
        *ViewSetTools(UserViewSet, prefix="quiet-user", actions=("retrieve",), hidden_fields=("last_name",)),
        *ViewSetTools(CarelessUserViewSet, prefix="careless-user", actions=("create",)),
    )


def call(client: McpTestClient, name: str, arguments: dict[str, Any]) -> Any:
    return async_to_sync(client.call_tool)(name, arguments)


@pytest.fixture
def root(db: Any, settings: Any) -> User:
    settings.MCP_AUDIT = "all"
    return User.objects.create_superuser("root", "root@example.com", "root-password-1", last_name="Root")


def test_no_result_shows_a_password_hash_or_a_token_key(root: User) -> None:
    token = Token.objects.create(user=root)
    client = McpTestClient(PeopleServer, root)

    answers = [
        call(client, "user-list", {}),
        call(client, "user-retrieve", {"id": root.pk}),
        call(client, "token-list", {}),
    ]

    for answer in answers:
        answer.assert_ok()
        assert root.password not in json.dumps(answer.response)
        assert token.key not in json.dumps(answer.response)
    assert answers[1].structured_content == {
        "id": root.pk,
        "username": "root",
        "email": "root@example.com",
        "last_name": "Root",
    }


def test_write_only_and_secret_fields_are_write_only_arguments_the_audit_redacts(root: User) -> None:
    client = McpTestClient(PeopleServer, root)
    schema = next(
        tool["inputSchema"]
        for tool in async_to_sync(client.list_tools)().items
        if tool["name"] == "user-create"
    )

    created = call(client, "user-create", {"username": "ann", "password": "clear-text-pw-1", "pin": "4321"})

    created.assert_ok()
    assert User.objects.get(username="ann").check_password("clear-text-pw-1")
    assert schema["properties"]["pin"]["writeOnly"] is True
    assert schema["properties"]["password"]["writeOnly"] is True
    assert "clear-text-pw-1" not in json.dumps(created.response)
    audit = McpAuditEntry.objects.get(component="user-create")
    assert audit.arguments["pin"] == audit.arguments["password"] == "[redacted]"


def test_a_serializer_that_would_store_a_password_unhashed_saves_nothing(root: User) -> None:
    answer = call(
        McpTestClient(PeopleServer, root), "careless-user-create", {"username": "bo", "password": "pw-1"}
    )

    answer.assert_is_error()
    assert not User.objects.filter(username="bo").exists()


def test_hidden_fields_hide_more(root: User) -> None:
    answer = call(McpTestClient(PeopleServer, root), "quiet-user-retrieve", {"id": root.pk})

    assert "last_name" not in answer.assert_ok().structured_content


def test_serializer_errors_come_as_text_and_structured_content(root: User) -> None:
    answer = call(
        McpTestClient(PeopleServer, root),
        "user-create",
        {"username": "bad name!", "email": "nope", "password": "p"},
    )

    answer.assert_is_error()
    errors = answer.result["structuredContent"]["errors"]
    assert set(errors) == {"username", "email"}
    assert "username:" in answer.text


def test_a_write_whose_answer_fails_its_check_is_rolled_back(
    root: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    original = drf_tools.json_value
    monkeypatch.setattr(drf_tools, "json_value", lambda value: {**original(value), "id": "not a number"})

    answer = call(
        McpTestClient(PeopleServer, root), "user-partial-update", {"id": root.pk, "email": "new@x.y"}
    )

    answer.assert_is_error()
    assert User.objects.get(pk=root.pk).email == "root@example.com"
