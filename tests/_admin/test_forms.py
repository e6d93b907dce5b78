"""Tests for django_mcp._admin.forms: JSON Schema to form fields and back."""

from __future__ import annotations

from typing import Any

from django.http import QueryDict

from django_mcp._admin.forms import FormField, parse_fields, schema_fields, string_fields

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Name", "description": "Who.", "examples": ["Ada"]},
        "born": {"type": "string", "format": "date"},
        "age": {"type": "integer", "default": 30},
        "score": {"type": "number"},
        "ok": {"type": "boolean"},
        "size": {"enum": ["s", "m", 3], "default": "m"},
        "titled": {"oneOf": [{"const": "a", "title": "First"}, {"const": "b", "title": "Second"}]},
        "legacy": {"type": "string", "enum": ["x", "y"], "enumNames": ["Ex", "Why"]},
        "picks": {"type": "array", "items": {"enum": ["p", "q"]}},
        "numbers": {"type": "array", "items": {"type": "integer"}},
        "maybe": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None},
        "colour": {"$ref": "#/$defs/Colour"},
        "where": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
    "required": ["name"],
    "$defs": {"Colour": {"enum": ["red", "blue"]}},
}


def _posted(**values: str | list[str]) -> QueryDict:
    data = QueryDict(mutable=True)
    for key, value in values.items():
        data.setlist(f"arg.{key}", value if isinstance(value, list) else [value])
    return data


def _by_name(fields: list[FormField]) -> dict[str, FormField]:
    return {field.name: field for field in fields}


def test_each_schema_shape_gets_its_widget() -> None:
    fields = _by_name(schema_fields(SCHEMA, prefix="arg."))

    assert {name: f.widget for name, f in fields.items()} == {
        "name": "text",
        "born": "text",
        "age": "integer",
        "score": "number",
        "ok": "boolean",
        "size": "select",
        "titled": "select",
        "legacy": "select",
        "picks": "multiselect",
        "numbers": "lines",
        "maybe": "integer",
        "colour": "select",
        "where": "json",
    }
    name = fields["name"]
    assert (name.html_name, name.html_id, name.label, name.required) == (
        "arg.name",
        "id_arg-name",
        "Name",
        True,
    )
    assert (name.description, name.placeholder) == ("Who.", "Ada")
    assert fields["born"].input_type == "date"
    assert fields["titled"].choices == (("", "---------"), ('"a"', "First"), ('"b"', "Second"))
    assert fields["legacy"].choices[1:] == (('"x"', "Ex"), ('"y"', "Why"))
    assert fields["size"].choices[1:] == (('"s"', "s"), ('"m"', "m"), ("3", "3"))
    assert fields["colour"].choices[1:] == (('"red"', "red"), ('"blue"', "blue"))
    assert fields["numbers"].type_label == "array of integer, one per line"


def test_fields_show_defaults_or_the_given_values() -> None:
    defaults = _by_name(schema_fields(SCHEMA, prefix="arg."))
    given = _by_name(
        schema_fields(
            SCHEMA, prefix="arg.", values={"age": 7, "ok": False, "picks": ["q"], "where": {"city": "X"}}
        )
    )

    assert (defaults["age"].value, defaults["size"].value, defaults["maybe"].value) == ("30", '"m"', "")
    assert given["age"].value == "7"
    assert given["size"].value == ""
    assert given["ok"].value == "false"
    assert given["picks"].selected == ('"q"',)
    assert given["where"].value == '{\n  "city": "X"\n}'


def test_parsing_converts_each_field_and_leaves_empty_ones_out() -> None:
    fields = schema_fields(SCHEMA, prefix="arg.")

    values, errors = parse_fields(
        fields,
        _posted(
            name="Ada",
            born="",
            age="41",
            score="2.5",
            ok="true",
            size="3",
            picks=['"p"', '"q"'],
            numbers="1\n\n2\n",
            where='{"city": "Paris"}',
        ),
    )

    assert errors == {}
    assert values == {
        "name": "Ada",
        "age": 41,
        "score": 2.5,
        "ok": True,
        "size": 3,
        "picks": ["p", "q"],
        "numbers": [1, 2],
        "where": {"city": "Paris"},
    }


def test_text_that_does_not_convert_is_sent_as_typed_for_the_server_to_refuse() -> None:
    fields = schema_fields(SCHEMA, prefix="arg.")

    values, errors = parse_fields(fields, _posted(age="many", score="inf", numbers="1\ntwo"))

    assert errors == {}
    assert values == {"age": "many", "score": "inf", "numbers": [1, "two"]}


def test_a_json_field_that_does_not_parse_is_an_error() -> None:
    values, errors = parse_fields(schema_fields(SCHEMA, prefix="arg."), _posted(where="{"))

    assert values == {}
    assert list(errors) == ["where"]
    assert errors["where"].startswith("Not valid JSON")


def test_checkboxes_always_answer() -> None:
    schema = {"type": "object", "properties": {"ok": {"type": "boolean", "default": True}}}
    (field,) = schema_fields(schema, prefix="in.", checkboxes=True)

    assert (field.widget, field.checked) == ("checkbox", True)
    assert parse_fields([field], QueryDict("in.ok=on")) == ({"ok": True}, {})
    assert parse_fields([field], QueryDict("")) == ({"ok": False}, {})


def test_string_fields_for_prompt_arguments() -> None:
    fields = string_fields([("city", "Which city", True), ("unit", "", False)], prefix="arg.", completes=True)

    assert [(f.name, f.widget, f.required, f.completes) for f in fields] == [
        ("city", "text", True, True),
        ("unit", "text", False, True),
    ]
    assert parse_fields(fields, _posted(city="Oslo", unit="")) == ({"city": "Oslo"}, {})


def test_a_schema_without_properties_has_no_fields() -> None:
    assert schema_fields({"type": "object"}, prefix="arg.") == []
