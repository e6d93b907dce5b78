"""The DRF tools' schemas, read from the serializers' fields."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("rest_framework", reason="Django REST framework (the drf extra) is not installed")

import msgspec  # noqa: E402
from rest_framework import serializers  # noqa: E402

from django_mcp.contrib.drf._serializers import (  # noqa: E402
    input_type,
    is_secret,
    output_type,
    readable,
    writable,
)
from testproject.shelf.api import VolumeSerializer  # noqa: E402
from testproject.shelf.mcp import ShelfServer  # noqa: E402


def test_schemas_come_from_the_serializers() -> None:
    tools = ShelfServer.compiled().tools
    create = tools["api-volume-create"].definition.input_schema
    update = tools["api-volume-partial-update"].definition.input_schema
    restock = tools["api-volume-restock"].definition.input_schema
    listing = tools["api-volume-list"].definition.input_schema

    assert list(create["properties"]) == ["title", "author", "tags", "stock", "condition"]
    assert create["required"] == ["title", "author"]
    assert create["properties"]["title"] == {
        "title": "Title",
        "type": "string",
        "maxLength": 120,
        "minLength": 1,
    }
    assert create["properties"]["condition"]["enum"] == ["good", "new", "worn"]
    assert update["required"] == ["id"]
    assert restock["properties"]["amount"] == {
        "title": "Amount",
        "description": "Copies to add.",
        "type": "integer",
        "minimum": 1,
        "maximum": 100,
    }
    assert restock["required"] == ["id", "amount"]
    assert list(listing["properties"]) == ["search", "cursor", "page_size"]
    assert "owner" not in create["properties"]  # read-only


def schema_of(kind: Any) -> dict[str, Any]:
    """Return the JSON Schema msgspec publishes for an argument or result type."""
    return msgspec.json.schema(kind)


class Reader(serializers.Serializer):  # type: ignore[type-arg]
    name = serializers.CharField(max_length=40, label="Name", help_text="Who\n  reads.")
    email = serializers.EmailField(allow_blank=True)
    pin = serializers.CharField(write_only=True)
    password = serializers.CharField(style={"input_type": "password"})
    joined = serializers.DateTimeField(read_only=True)
    level = serializers.ChoiceField(choices=["new", "regular", 3])
    score = serializers.FloatField(min_value=0, allow_null=True)
    card = serializers.FileField(required=False)
    hidden = serializers.HiddenField(default="x")


def test_writable_leaves_out_read_only_and_hidden_fields_and_readable_write_only_ones() -> None:
    reader = Reader()

    assert [name for name, _ in writable(reader)] == [
        "name",
        "email",
        "pin",
        "password",
        "level",
        "score",
        "card",
    ]
    assert [name for name, _ in readable(reader)] == [
        "name",
        "email",
        "password",
        "joined",
        "level",
        "score",
        "card",
    ]


def test_a_password_input_or_a_secret_model_field_is_a_secret() -> None:
    fields = Reader().fields

    assert is_secret(fields["password"], frozenset())
    assert is_secret(fields["pin"], frozenset({"pin"}))
    assert not is_secret(fields["pin"], frozenset())
    assert is_secret(serializers.CharField(source="profile.pin"), frozenset({"profile"}))


def test_input_types_follow_the_field() -> None:
    fields = Reader().fields

    assert schema_of(input_type(fields["name"])) == {
        "title": "Name",
        "description": "Who reads.",
        "type": "string",
        "maxLength": 40,
        "minLength": 1,
    }
    assert schema_of(input_type(fields["email"])) == {"title": "Email", "type": "string", "format": "email"}
    assert schema_of(input_type(fields["level"])) == {"title": "Level", "enum": [3, "new", "regular"]}
    assert schema_of(input_type(fields["score"])) == {
        "title": "Score",
        "anyOf": [{"type": "number", "minimum": 0}, {"type": "null"}],
    }
    assert input_type(fields["card"]) is None  # no upload over MCP


def test_write_only_and_secret_inputs_are_write_only() -> None:
    fields = Reader().fields

    assert schema_of(input_type(fields["pin"]))["writeOnly"] is True
    assert schema_of(input_type(fields["name"], secret=True))["writeOnly"] is True
    assert "writeOnly" not in schema_of(input_type(fields["name"]))


def test_output_types_are_nullable_and_any_when_unknown() -> None:
    fields = Reader().fields

    assert schema_of(output_type(fields["joined"])) == {
        "anyOf": [{"type": "string", "format": "date-time"}, {"type": "null"}]
    }
    assert schema_of(output_type(fields["score"])) == {"anyOf": [{"type": "number"}, {"type": "null"}]}
    assert output_type(serializers.SerializerMethodField()) is Any
    assert output_type(VolumeSerializer().fields["owner"]) is Any  # a ReadOnlyField
    assert schema_of(input_type(serializers.DateField())) == {"type": "string", "format": "date"}
