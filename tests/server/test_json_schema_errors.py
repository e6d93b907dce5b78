"""Tests for django_mcp.server._json_schema_errors: value-free jsonschema messages."""

from __future__ import annotations

from typing import Any

import pytest

from django_mcp.server._json_schema import MAX_REPORTED_ERRORS
from django_mcp.server._json_schema_errors import json_schema_error

SECRET = "hunter2"


def errors(schema: dict[str, Any], value: Any) -> list[tuple[str, str]]:
    return json_schema_error(schema, value).errors


@pytest.mark.parametrize(
    ("schema", "value", "expected"),
    [
        ({"type": "integer"}, SECRET, [("", "expected integer, got string")]),
        ({"type": ["integer", "null"]}, [SECRET], [("", "expected integer or null, got array")]),
        ({"enum": ["a", "b"]}, SECRET, [("", "invalid enum value")]),
        ({"const": "a"}, SECRET, [("", "invalid value")]),
        ({"minimum": 10}, 3, [("", "expected number >= 10")]),
        ({"exclusiveMaximum": 2}, 3, [("", "expected number < 2")]),
        ({"multipleOf": 4}, 3, [("", "expected number that's a multiple of 4")]),
        ({"maxLength": 3}, SECRET, [("", "expected string of length <= 3")]),
        ({"pattern": "^[0-9]+$"}, SECRET, [("", "expected string matching regex '^[0-9]+$'")]),
        ({"minItems": 2}, [SECRET], [("", "expected array of length >= 2")]),
        ({"uniqueItems": True}, [SECRET, SECRET], [("", "expected array of unique items")]),
        ({"maxProperties": 0}, {"a": SECRET}, [("", "expected object of length <= 0")]),
        (
            {"anyOf": [{"type": "integer"}, {"type": "null"}]},
            SECRET,
            [("", "does not match any of the allowed schemas")],
        ),
        ({"not": {"type": "string"}}, SECRET, [("", "matches a schema it must not match")]),
        # jsonschema reports a false subschema on the object, not on "a".
        ({"properties": {"a": False}}, {"a": SECRET}, [("", "no value is allowed here")]),
        ({"prefixItems": [{}], "items": False}, [1, SECRET], [("", "expected array of length <= 1")]),
    ],
)
def test_each_keyword_is_worded_without_the_value(schema: dict[str, Any], value: Any, expected: Any) -> None:
    found = json_schema_error(schema, value)

    assert found.errors == expected
    assert SECRET not in str(found)


def test_missing_properties_are_reported_each_on_its_own_path() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"type": "object", "required": ["x", "y"]}},
        "required": ["a", "b"],
    }

    assert errors(schema, {"a": {"y": 1}}) == [
        ("a.x", "required field is missing"),
        ("b", "required field is missing"),
    ]


def test_dependent_required_names_the_property_that_needs_it() -> None:
    schema = {"dependentRequired": {"card": ["cvc"]}}

    assert errors(schema, {"card": SECRET}) == [("cvc", "required field is missing (needed with card)")]


def test_unknown_properties_are_reported_each_by_name_sorted() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {}},
        "patternProperties": {"^x-": {}},
        "additionalProperties": False,
    }

    assert errors(schema, {"a": 1, "zz": SECRET, "x-ok": 1, "b": SECRET}) == [
        ("b", "unknown field"),
        ("zz", "unknown field"),
    ]


def test_draft_4_exclusive_flags_are_honoured() -> None:
    schema = {"$schema": "http://json-schema.org/draft-04/schema#", "minimum": 5, "exclusiveMinimum": True}

    assert errors(schema, 5) == [("", "expected number > 5")]


def test_paths_sort_indexes_numerically_and_at_most_the_limit_is_kept() -> None:
    schema = {"type": "array", "items": {"type": "integer"}}

    found = errors(schema, [SECRET] * 12)

    assert found == [(str(index), "expected integer, got string") for index in range(MAX_REPORTED_ERRORS)]


def test_an_unknown_keyword_failure_names_the_keyword() -> None:
    schema = {"$schema": "http://json-schema.org/draft-03/schema#", "disallow": "string"}

    assert errors(schema, SECRET) == [("", "fails the 'disallow' keyword")]
