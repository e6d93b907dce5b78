"""The admin tools' schemas and answers, read from the admin's form and model fields."""

from __future__ import annotations

import datetime
import json
from typing import Any

import msgspec
import pytest
from django import forms

from django_mcp.contrib.admin._forms import form_data, input_type, model_fields, output_type, render, writes
from testproject.demo.models import Author
from testproject.shelf.mcp import ShelfServer
from testproject.shelf.models import Tag, Volume


def test_schemas_come_from_the_admin_form_and_leave_out_fields_it_excludes() -> None:
    tools = ShelfServer.compiled().tools
    add = tools["admin-volume-add"].definition.input_schema
    change = tools["admin-volume-change"].definition.input_schema
    result = tools["admin-volume-get"].definition.output_schema

    assert list(add["properties"]) == ["title", "author", "tags", "stock", "condition"]
    assert add["required"] == ["title", "author"]
    assert add["properties"]["title"] == {"title": "Title", "type": "string", "maxLength": 120}
    # Required by the form but with an initial value: optional arguments.
    assert add["properties"]["condition"] == {"title": "Condition", "enum": ["good", "new", "worn"]}
    assert add["properties"]["stock"] == {"title": "Stock", "type": "integer", "minimum": 0}
    assert add["properties"]["tags"] == {
        "title": "Tags",
        "anyOf": [{"type": "array", "items": {"type": "integer"}}, {"type": "null"}],
    }
    assert change["required"] == ["id"]
    assert list(change["properties"]) == ["id", "title", "author", "tags", "stock", "condition"]
    assert list(result["properties"]) == ["id", "title", "author", "tags", "stock", "condition"]
    published = json.dumps([tool.definition.input_schema for tool in tools.values()])
    assert "notes" not in published and "owner" not in published


def schema_of(kind: Any) -> dict[str, Any]:
    """Return the JSON Schema msgspec publishes for an argument or result type."""
    return msgspec.json.schema(kind)


def test_only_enabled_fields_that_are_not_files_are_written() -> None:
    assert writes(forms.CharField())
    assert not writes(forms.CharField(disabled=True))
    assert not writes(forms.FileField())
    assert not writes(forms.ImageField(required=False))


def test_a_required_field_is_its_type_and_an_optional_one_also_takes_null() -> None:
    required = forms.IntegerField(label="Copies", min_value=1, max_value=9)
    optional = forms.CharField(required=False, max_length=5)

    assert schema_of(input_type(required)) == {
        "title": "Copies",
        "type": "integer",
        "minimum": 1,
        "maximum": 9,
    }
    assert schema_of(input_type(required, nullable=True)) == {
        "title": "Copies",
        "anyOf": [{"type": "integer", "minimum": 1, "maximum": 9}, {"type": "null"}],
    }
    assert schema_of(input_type(optional)) == {
        "anyOf": [{"type": "string", "maxLength": 5}, {"type": "null"}]
    }


def test_a_password_input_or_a_secret_field_is_write_only() -> None:
    password = forms.CharField(widget=forms.PasswordInput)

    assert schema_of(input_type(password))["writeOnly"] is True
    assert schema_of(input_type(forms.CharField(), secret=True))["writeOnly"] is True
    assert "writeOnly" not in schema_of(input_type(forms.CharField()))


class _Loan(forms.Form):
    reader = forms.CharField()
    due = forms.SplitDateTimeField()
    renewals = forms.IntegerField(initial=2)
    shelves = forms.MultipleChoiceField(choices=[("a", "A"), ("b", "B")], initial=["a"])
    extra = forms.JSONField(required=False)
    rush = forms.BooleanField(required=False)


def test_form_data_writes_given_values_as_a_browser_posts_them_over_the_initial_ones() -> None:
    data = form_data(
        _Loan(prefix="loan"),
        {
            "reader": "Ada",
            "due": datetime.datetime(2026, 3, 1, 9, 30),
            "shelves": ["a", "b"],
            "extra": {"gift": True},
            "rush": True,
        },
    )

    assert data.dict() == {
        "loan-reader": "Ada",
        "loan-due_0": "2026-03-01",
        "loan-due_1": "09:30:00",
        "loan-renewals": "2",
        "loan-shelves": "b",
        "loan-extra": '{"gift": true}',
        "loan-rush": "true",
    }
    assert data.getlist("loan-shelves") == ["a", "b"]
    bound = _Loan(data, prefix="loan")
    assert bound.is_valid(), bound.errors
    assert bound.cleaned_data["due"].isoformat() == "2026-03-01T09:30:00+00:00"  # TIME_ZONE is UTC


def test_form_data_leaves_out_what_is_none_and_keeps_initial_values() -> None:
    data = form_data(_Loan(), {"reader": None})

    assert "reader" not in data and "extra" not in data and "due_0" not in data
    assert data.getlist("shelves") == ["a"]
    assert data["renewals"] == "2"


def test_model_fields_keep_model_fields_in_order_and_leave_out_displays() -> None:
    fields = model_fields(Volume, ["tags", "title", "no_such_field", len, "volumes", "author"])

    assert [field.name for field in fields] == ["tags", "title", "author"]


def test_output_types_follow_the_model_field_and_are_nullable() -> None:
    title, author, tags, stock = model_fields(Volume, ["title", "author", "tags", "stock"])

    assert schema_of(output_type(title)) == {"anyOf": [{"type": "string"}, {"type": "null"}]}
    assert schema_of(output_type(author)) == {"anyOf": [{"type": "integer"}, {"type": "null"}]}
    assert schema_of(output_type(tags)) == {
        "anyOf": [{"type": "array", "items": {"type": "integer"}}, {"type": "null"}]
    }
    assert schema_of(output_type(stock)) == {"anyOf": [{"type": "integer"}, {"type": "null"}]}


@pytest.mark.django_db
def test_render_shows_the_id_relations_by_key_and_many_to_many_as_a_list(django_user_model: Any) -> None:
    owner = django_user_model.objects.create(username="reader")
    author = Author.objects.create(name="Le Guin")
    volume = Volume.objects.create(title="Kindred", author=author, owner=owner, stock=3)
    volume.tags.set([Tag.objects.create(name="sf"), Tag.objects.create(name="classic")])

    shown = render(volume, model_fields(Volume, ["title", "author", "tags", "stock", "condition"]))

    assert {**shown, "tags": sorted(shown["tags"])} == {
        "id": volume.pk,
        "title": "Kindred",
        "author": author.pk,
        "tags": sorted(tag.pk for tag in volume.tags.all()),
        "stock": 3,
        "condition": "good",
    }
