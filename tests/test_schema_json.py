"""Tests for django_mcp._schema_json: JSON Schema 2020-12 output, checked against the MCP spec."""

import decimal
import json
import re
from pathlib import Path
from typing import Annotated, Any

import jsonschema
import msgspec
import pytest
from referencing import Registry

from django_mcp.exceptions import SchemaValidationError
from django_mcp.schemas import DECIMAL_PATTERN, Schema, json_schema_for
from tests.schema_examples import (
    Drawing,
    Item,
    Kinds,
    Node,
    Order,
    Page,
)

# The pinned copy in tests/spec/ (see its README.md), read relative to this file.
SPEC = Path(__file__).resolve().parent / "spec" / "schema-2026-07-28.json"


# -- JSON Schema ---------------------------------------------------------------


def test_json_schema_inlines_the_root_and_references_nested_types() -> None:
    assert Order.json_schema() == {
        "title": "Order",
        "description": "An order to summarise.",
        "type": "object",
        "properties": {
            "order_id": {"type": "integer"},
            "items": {
                "type": "array",
                "items": {"$ref": "#/$defs/Item"},
                "default": [],
            },
        },
        "required": ["order_id"],
        "additionalProperties": False,
        "$defs": {
            "Item": {
                "title": "Item",
                "description": "One order line.",
                "type": "object",
                "properties": {
                    "sku": {
                        "type": "string",
                        "minLength": 1,
                        "maxLength": 8,
                        "pattern": "^[A-Z]",
                    },
                    "quantity": {"type": "integer", "minimum": 1, "default": 1},
                },
                "required": ["sku"],
                "additionalProperties": False,
            }
        },
    }


def test_json_schema_keeps_formats_enums_literals_and_defaults() -> None:
    schema = Kinds.json_schema()
    props = schema["properties"]
    assert "description" not in schema  # no docstring, no description
    assert props["placedAt"] == {"type": "string"}  # naive allowed: no format
    assert props["placedAtTz"] == {
        "anyOf": [{"type": "string", "format": "date-time"}, {"type": "null"}],
        "default": None,
    }
    assert props["ref"]["anyOf"][0] == {"type": "string", "format": "uuid"}
    assert props["day"]["anyOf"][0] == {"type": "string", "format": "date"}
    assert props["amount"]["anyOf"][0] == {"type": "string", "pattern": DECIMAL_PATTERN}
    assert props["color"] == {"$ref": "#/$defs/Color", "default": "red"}
    assert props["mode"] == {"enum": ["fast", "slow"], "default": "fast"}
    assert props["memo"] == {"type": "string", "default": ""}
    assert schema["required"] == ["placedAt"]
    assert schema["$defs"] == {"Color": {"title": "Color", "enum": ["blue", "red"]}}


def test_json_schema_never_emits_dollar_schema() -> None:
    for tp in (Order, Kinds, Node, list[Item], int):
        assert "$schema" not in json_schema_for(tp)


def test_json_schema_returns_independent_copies() -> None:
    first = Order.json_schema()
    first["properties"]["order_id"]["type"] = "string"
    first["$defs"].clear()
    second = Order.json_schema()
    assert second["properties"]["order_id"] == {"type": "integer"}
    assert "Item" in second["$defs"]
    assert second is not Order.json_schema()


def test_json_schema_for_non_object_types_is_plain() -> None:
    assert json_schema_for(list[int]) == {"type": "array", "items": {"type": "integer"}}
    assert json_schema_for(Annotated[int, msgspec.Meta(ge=0)]) == {
        "type": "integer",
        "minimum": 0,
    }
    assert json_schema_for(list[Item])["items"] == {"$ref": "#/$defs/Item"}
    assert set(json_schema_for(list[Item])["$defs"]) == {"Item"}


def test_json_schema_for_a_schema_equals_its_json_schema() -> None:
    assert json_schema_for(Order) == Order.json_schema()


def test_recursive_root_keeps_its_definition_for_self_references() -> None:
    schema = Node.json_schema()
    assert schema["type"] == "object"
    assert schema["properties"]["children"]["items"] == {"$ref": "#/$defs/Node"}
    assert schema["$defs"]["Node"]["properties"] == schema["properties"]


def test_annotated_root_metadata_overrides_the_inlined_definition() -> None:
    schema = json_schema_for(Annotated[Order, msgspec.Meta(title="Lookup")])
    assert schema["title"] == "Lookup"
    assert schema["type"] == "object"
    assert "$ref" not in schema


def test_tagged_union_schema_keeps_the_tag() -> None:
    circle = Drawing.json_schema()["$defs"]["Circle"]
    assert circle["properties"]["type"] == {"enum": ["Circle"]}
    assert circle["required"] == ["type", "radius"]


# -- JSON Schema against the MCP spec and jsonschema -----------------------------


@pytest.fixture(scope="module")
def spec_defs() -> dict[str, Any]:
    defs: dict[str, Any] = json.loads(SPEC.read_text(encoding="utf-8"))["$defs"]
    return defs


def spec_validator(spec_defs: dict[str, Any], pointer: str) -> Any:
    # No retriever: a remote $ref fails instead of being fetched.
    wrapper = {"$ref": pointer, "$defs": spec_defs}
    return jsonschema.Draft202012Validator(wrapper, registry=Registry())


@pytest.mark.parametrize("schema_cls", [Order, Item, Kinds, Node, Drawing, Page[Item]])
def test_json_schema_is_a_valid_mcp_tool_input_schema(spec_defs: dict[str, Any], schema_cls: Any) -> None:
    schema = json_schema_for(schema_cls)
    spec_validator(spec_defs, "#/$defs/Tool/properties/inputSchema").validate(schema)
    tool = {"name": "t", "inputSchema": schema, "outputSchema": schema}
    spec_validator(spec_defs, "#/$defs/Tool").validate(tool)


def test_mcp_input_schema_check_rejects_non_object_roots(
    spec_defs: dict[str, Any],
) -> None:
    validator = spec_validator(spec_defs, "#/$defs/Tool/properties/inputSchema")
    assert not validator.is_valid(json_schema_for(list[int]))
    # An output schema may be any JSON Schema.
    output = spec_validator(spec_defs, "#/$defs/Tool/properties/outputSchema")
    assert output.is_valid(json_schema_for(list[int]))


@pytest.mark.parametrize("tp", [Order, Item, Kinds, Node, Drawing, Page[Item], list[Item], dict[str, int]])
def test_json_schema_is_a_valid_2020_12_schema(tp: Any) -> None:
    jsonschema.Draft202012Validator.check_schema(json_schema_for(tp))


@pytest.mark.parametrize(
    "instance",
    [
        {"order_id": 1},
        {"order_id": 1, "items": [{"sku": "AB", "quantity": 3}]},
        {"order_id": "1"},
        {"order_id": True},
        {"order_id": 1.5},
        {},
        {"order_id": 1, "extra": None},
        {"order_id": 1, "items": [{"sku": "ab"}]},
        {"order_id": 1, "items": [{"sku": ""}]},
        {"order_id": 1, "items": [{"sku": "ABCDEFGHI"}]},
        {"order_id": 1, "items": [{"sku": "A", "quantity": 0}]},
        {"order_id": 1, "items": [{"quantity": 2}]},
        {"order_id": 1, "items": {"sku": "A"}},
        [],
    ],
)
def test_jsonschema_and_msgspec_agree_on_instances(instance: Any) -> None:
    json_ok = jsonschema.Draft202012Validator(Order.json_schema(), registry=Registry()).is_valid(instance)
    try:
        Order.convert(instance)
    except SchemaValidationError:
        msgspec_ok = False
    else:
        msgspec_ok = True
    assert json_ok == msgspec_ok


@pytest.mark.parametrize(
    "instance",
    [
        {"shapes": [{"type": "Circle", "radius": 1}]},
        {"shapes": [{"type": "Square", "side": 1.5}]},
        {"shapes": [{"type": "Triangle", "side": 1}]},
        {"shapes": [{"radius": 1}]},
        {"shapes": [{"type": "Circle", "side": 1}]},
    ],
)
def test_jsonschema_and_msgspec_agree_on_tagged_unions(instance: Any) -> None:
    json_ok = jsonschema.Draft202012Validator(Drawing.json_schema(), registry=Registry()).is_valid(instance)
    try:
        Drawing.convert(instance)
    except SchemaValidationError:
        msgspec_ok = False
    else:
        msgspec_ok = True
    assert json_ok == msgspec_ok


def test_decimals_are_published_as_a_pattern_not_a_nonstandard_format() -> None:
    class Priced(Schema):
        price: decimal.Decimal
        discounts: list[decimal.Decimal] = []

    schema = json_schema_for(Priced)
    price = schema["properties"]["price"]

    assert "format" not in json.dumps(schema)
    assert price == {"type": "string", "pattern": DECIMAL_PATTERN}
    assert re.match(DECIMAL_PATTERN, msgspec.json.encode(decimal.Decimal("9.99")).decode().strip('"'))
    assert re.match(DECIMAL_PATTERN, "-1.5E+3")
