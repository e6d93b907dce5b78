"""Tests for django_mcp.server._json_schema: validators for raw JSON Schema dicts.

Validators are built when a server compiles; a raw schema that cannot be
validated (no jsonschema package, an unknown dialect, a broken schema) is a
configuration error then, never a silent skip at call time. Everything but
the missing-package tests needs the ``jsonschema`` extra, so the tox env
without extras skips it.
"""

from __future__ import annotations

import importlib.util
import sys
import urllib.request
from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured

from django_mcp import McpResponse, Server, Tool
from django_mcp.exceptions import SchemaValidationError
from django_mcp.schemas import Schema
from django_mcp.server._json_schema import INSTALL_HINT, MAX_REPORTED_ERRORS, compile_validator
from django_mcp.server.compiler import compile_server

needs_jsonschema = pytest.mark.skipif(
    importlib.util.find_spec("jsonschema") is None, reason="needs the jsonschema extra"
)

ORDER_SCHEMA = {
    "type": "object",
    "properties": {
        "customer": {"type": "string"},
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"sku": {"type": "string"}, "qty": {"type": "integer", "minimum": 1}},
                "required": ["sku"],
            },
        },
    },
    "required": ["customer"],
}
DRAFT_07 = "http://json-schema.org/draft-07/schema#"


def raw_schema_server(input_schema: Any, output_schema: Any = None) -> type[Server]:
    """Return a new server with one tool "t" declared with raw JSON Schema dicts."""

    def handle(self: Any, payload: dict[str, Any]) -> McpResponse:
        return McpResponse.structured(payload)

    tool = type(
        "RawTool", (Tool,), {"name": "t", "input": input_schema, "output": output_schema, "handle": handle}
    )
    return type("RawServer", (Server,), {"tools": (tool,)})


def errors_of(validate: Any, value: Any) -> list[tuple[str, str]]:
    """Return the ``(path, message)`` pairs ``validate`` raises for ``value``."""
    with pytest.raises(SchemaValidationError) as info:
        validate(value)
    return info.value.errors


def paths_of(validate: Any, value: Any) -> list[str]:
    """Return the paths of the problems ``validate`` reports for ``value``."""
    return [path for path, _ in errors_of(validate, value)]


# -- validating ---------------------------------------------------------------------------


@needs_jsonschema
def test_a_value_that_fits_the_schema_passes() -> None:
    validate = compile_validator(ORDER_SCHEMA, "tests.OrderTool.input")
    assert validate({"customer": "ada", "items": [{"sku": "A-1", "qty": 2}]}) is None


@needs_jsonschema
def test_an_invalid_value_lists_every_problem_sorted_by_path() -> None:
    validate = compile_validator(ORDER_SCHEMA, "tests.OrderTool.input")
    errors = errors_of(validate, {"items": [{"qty": 0}, {"sku": 3}], "customer": 1})
    assert [path for path, _ in errors] == ["customer", "items.0", "items.0.qty", "items.1.sku"]


@needs_jsonschema
def test_nested_paths_join_keys_and_indexes_with_dots_and_the_root_is_empty() -> None:
    validate = compile_validator(ORDER_SCHEMA, "tests.OrderTool.input")
    assert paths_of(validate, {"customer": "ada", "items": [{"sku": "A-1", "qty": "2"}]}) == ["items.0.qty"]
    assert paths_of(validate, []) == [""]


@needs_jsonschema
def test_array_indexes_sort_numerically() -> None:
    validate = compile_validator({"type": "array", "items": {"type": "string"}}, "tests.ListTool.output")
    value = ["ok", "ok", 2, "ok", "ok", "ok", "ok", "ok", "ok", "ok", 10]
    assert paths_of(validate, value) == ["2", "10"]


@needs_jsonschema
def test_at_most_five_problems_are_reported() -> None:
    validate = compile_validator({"type": "array", "items": {"type": "string"}}, "tests.ListTool.output")
    errors = errors_of(validate, list(range(12)))
    assert [path for path, _ in errors] == ["0", "1", "2", "3", "4"]
    assert len(errors) == MAX_REPORTED_ERRORS


@needs_jsonschema
def test_a_remote_ref_is_never_fetched(monkeypatch: pytest.MonkeyPatch) -> None:
    from referencing.exceptions import Unresolvable

    fetched: list[Any] = []
    monkeypatch.setattr(urllib.request, "urlopen", lambda *args, **kwargs: fetched.append(args))
    validate = compile_validator(
        {"type": "object", "properties": {"a": {"$ref": "https://example.com/a.json"}}}, "tests.RefTool.input"
    )
    with pytest.raises(Unresolvable):
        validate({"a": 1})
    assert fetched == []


@needs_jsonschema
def test_the_dialect_named_by_dollar_schema_is_used_and_2020_12_is_the_default() -> None:
    # Array-form "items" is tuple validation in draft 7 and invalid in 2020-12.
    tuple_schema = {"type": "array", "items": [{"type": "string"}, {"type": "integer"}]}
    validate = compile_validator({"$schema": DRAFT_07, **tuple_schema}, "tests.PairTool.output")
    assert validate(["a", 1]) is None
    assert paths_of(validate, [1, "a"]) == ["0", "1"]
    with pytest.raises(ImproperlyConfigured):
        compile_validator(tuple_schema, "tests.PairTool.output")


# -- refused at compile time ----------------------------------------------------------------


@needs_jsonschema
@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"a": {"type": "strin"}}},
        {"type": "object", "required": "a"},
        {"type": "object", "properties": {"a": {"minimum": "1"}}},
    ],
    ids=["unknown-type", "required-not-a-list", "minimum-not-a-number"],
)
def test_an_invalid_schema_is_refused_at_compile_time_naming_the_tool(schema: dict[str, Any]) -> None:
    with pytest.raises(ImproperlyConfigured, match=r"tests\.BadTool\.input"):
        compile_validator(schema, "tests.BadTool.input")


@needs_jsonschema
def test_an_unknown_dialect_is_refused_at_compile_time() -> None:
    with pytest.raises(ImproperlyConfigured, match=r"tests\.BadTool\.input"):
        compile_validator(
            {"$schema": "https://example.com/my-dialect", "type": "object"}, "tests.BadTool.input"
        )


@needs_jsonschema
def test_compiling_a_server_with_an_invalid_raw_output_schema_fails_naming_the_output() -> None:
    server = raw_schema_server({"type": "object"}, {"type": "objekt"})
    with pytest.raises(ImproperlyConfigured, match=r"\.RawTool\.output"):
        compile_server(server)


def test_a_missing_jsonschema_package_is_refused_at_compile_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "jsonschema", None)
    with pytest.raises(ImproperlyConfigured) as info:
        compile_validator({"type": "object"}, "tests.OrderTool.input")
    assert "tests.OrderTool.input" in str(info.value)
    assert INSTALL_HINT in str(info.value)


def test_compiling_a_raw_schema_tool_without_jsonschema_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "jsonschema", None)
    with pytest.raises(ImproperlyConfigured, match=r"\.RawTool\.input"):
        compile_server(raw_schema_server({"type": "object"}))


def test_a_tool_without_raw_schemas_compiles_without_jsonschema(monkeypatch: pytest.MonkeyPatch) -> None:
    class Query(Schema):
        q: str

    class QueryTool(Tool[Query, list[str]]):
        def handle(self, payload: Query) -> McpResponse:
            return McpResponse.structured([payload.q])

    monkeypatch.setitem(sys.modules, "jsonschema", None)
    entry = compile_server(type("QueryServer", (Server,), {"tools": (QueryTool,)})).tools["query"]
    assert (entry.input_validator, entry.output_validator) == (None, None)


# -- built once per tool ---------------------------------------------------------------------


@needs_jsonschema
def test_compiling_builds_each_raw_schema_validator_once(monkeypatch: pytest.MonkeyPatch) -> None:
    import jsonschema.validators

    output = {"type": "object"}
    looked_up: list[str] = []
    validator_for = jsonschema.validators.validator_for

    def recording_validator_for(schema: Any, *args: Any, **kwargs: Any) -> Any:
        # jsonschema also calls validator_for for every subschema it descends
        # into; only lookups of a tool's own schema mean "build a validator".
        if schema is ORDER_SCHEMA or schema is output:
            looked_up.append("input" if schema is ORDER_SCHEMA else "output")
        return validator_for(schema, *args, **kwargs)

    monkeypatch.setattr(jsonschema.validators, "validator_for", recording_validator_for)
    server = raw_schema_server(ORDER_SCHEMA, output)
    entry = compile_server(server).tools["t"]
    assert entry.input_validator is not None and entry.output_validator is not None
    assert compile_server(server).tools["t"].input_validator is entry.input_validator
    assert compile_server(server).tools["t"].output_validator is entry.output_validator
    for _ in range(50):
        entry.input_validator({"customer": "ada"})
        entry.output_validator({"customer": "ada"})
        with pytest.raises(SchemaValidationError):
            entry.input_validator({})
    assert looked_up == ["input", "output"]
