"""Tests for django_mcp.schemas: the public names, and decoding and converting a Schema structurally."""

import datetime
import decimal
import json
import uuid

import pytest

from django_mcp import schemas
from django_mcp.exceptions import SchemaValidationError
from django_mcp.schemas import Schema, validate
from tests.schema_examples import (
    Circle,
    Color,
    Drawing,
    Item,
    Kinds,
    Order,
    Square,
    errors_of,
)

# -- structure ---------------------------------------------------------------


def test_public_surface_is_pinned_and_documented() -> None:
    assert schemas.__all__ == [
        "DECIMAL_PATTERN",
        "Schema",
        "has_rules",
        "json_schema_for",
        "rule",
        "schema_error",
        "validate",
    ]
    for name in schemas.__all__:
        assert getattr(schemas, name).__doc__
    assert schemas.__doc__


def test_decode_json_returns_an_instance() -> None:
    order = Order.decode_json(b'{"order_id": 7, "items": [{"sku": "AB"}]}')
    assert order == Order(order_id=7, items=[Item(sku="AB", quantity=1)])


def test_decode_json_accepts_str() -> None:
    assert Order.decode_json('{"order_id": 7}') == Order(order_id=7)


def test_convert_returns_an_instance_using_json_names() -> None:
    value = Kinds.convert({"placedAt": "2024-05-01T10:00:00Z", "memo": "hi"})
    assert value.note == "hi"
    assert value.placed_at == datetime.datetime(2024, 5, 1, 10, tzinfo=datetime.UTC)


def test_wrong_type_reports_path_and_types() -> None:
    with pytest.raises(SchemaValidationError) as excinfo:
        Order.convert({"order_id": "x"})
    assert errors_of(excinfo) == [("order_id", "expected int, got str")]
    assert str(excinfo.value) == "order_id: expected int, got str"


def test_missing_required_field_is_reported_on_the_field() -> None:
    with pytest.raises(SchemaValidationError) as excinfo:
        Order.decode_json(b"{}")
    assert errors_of(excinfo) == [("order_id", "required field is missing")]


def test_unknown_field_is_rejected() -> None:
    with pytest.raises(SchemaValidationError) as excinfo:
        Order.convert({"order_id": 1, "extra": True})
    assert errors_of(excinfo) == [("extra", "unknown field")]


def test_nested_errors_use_dotted_and_bracket_paths() -> None:
    raw = b'{"order_id": 1, "items": [{"sku": "A"}, {"sku": 5}]}'
    with pytest.raises(SchemaValidationError) as excinfo:
        Order.decode_json(raw)
    assert errors_of(excinfo) == [("items[1].sku", "expected str, got int")]


def test_nested_missing_and_unknown_fields_get_full_paths() -> None:
    with pytest.raises(SchemaValidationError) as missing:
        Order.convert({"order_id": 1, "items": [{}]})
    with pytest.raises(SchemaValidationError) as unknown:
        Order.convert({"order_id": 1, "items": [{"sku": "A", "x": 1}]})
    assert errors_of(missing) == [("items[0].sku", "required field is missing")]
    assert errors_of(unknown) == [("items[0].x", "unknown field")]


def test_constraint_violations_are_reported() -> None:
    with pytest.raises(SchemaValidationError) as ge:
        Order.convert({"order_id": 1, "items": [{"sku": "A", "quantity": 0}]})
    with pytest.raises(SchemaValidationError) as pattern:
        Order.convert({"order_id": 1, "items": [{"sku": "a"}]})
    assert errors_of(ge) == [("items[0].quantity", "expected int >= 1")]
    assert errors_of(pattern) == [("items[0].sku", "expected str matching regex '^[A-Z]'")]


def test_invalid_json_is_reported_on_the_root() -> None:
    with pytest.raises(SchemaValidationError) as truncated:
        Order.decode_json(b'{"order_id": 1')
    with pytest.raises(SchemaValidationError) as malformed:
        Order.decode_json(b'{"order_id": 1} x')
    assert errors_of(truncated) == [("", "invalid JSON: input data was truncated")]
    assert errors_of(malformed) == [("", "invalid JSON: JSON is malformed: trailing characters (byte 17)")]


def test_non_object_input_is_reported_on_the_root() -> None:
    with pytest.raises(SchemaValidationError) as excinfo:
        Order.decode_json(b"[1]")
    assert errors_of(excinfo) == [("", "expected object, got array")]
    assert str(excinfo.value) == "expected object, got array"


def test_json_string_is_not_coerced_to_int() -> None:
    with pytest.raises(SchemaValidationError) as converted:
        Order.convert({"order_id": "42"})
    with pytest.raises(SchemaValidationError) as decoded:
        Order.decode_json(b'{"order_id": "42"}')
    assert errors_of(converted) == errors_of(decoded) == [("order_id", "expected int, got str")]


def test_bool_is_not_accepted_as_int() -> None:
    with pytest.raises(SchemaValidationError) as converted:
        Order.convert({"order_id": True})
    with pytest.raises(SchemaValidationError) as decoded:
        Order.decode_json(b'{"order_id": true}')
    assert errors_of(converted) == errors_of(decoded) == [("order_id", "expected int, got bool")]


def test_int_is_accepted_as_float() -> None:
    assert Kinds.convert({"placedAt": "2024-05-01T10:00:00", "ratio": 1}).ratio == 1.0


def test_json_string_forms_of_dates_uuids_decimals_and_bytes_are_accepted() -> None:
    data = {
        "placedAt": "2024-05-01T10:00:00+02:00",
        "day": "2024-05-01",
        "ref": "6f1c1d52-7a43-4d4c-9a55-9f1b2b3c4d5e",
        "amount": "12.50",
        "data": "aGk=",
        "color": "blue",
        "mode": "slow",
    }
    for value in (Kinds.convert(data), Kinds.decode_json(json.dumps(data))):
        assert value.day == datetime.date(2024, 5, 1)
        assert value.ref == uuid.UUID("6f1c1d52-7a43-4d4c-9a55-9f1b2b3c4d5e")
        assert value.amount == decimal.Decimal("12.50")
        assert value.data == b"hi"
        assert value.color is Color.BLUE
        assert value.placed_at.utcoffset() == datetime.timedelta(hours=2)


def test_malformed_special_strings_are_rejected() -> None:
    with pytest.raises(SchemaValidationError) as bad_uuid:
        Kinds.convert({"placedAt": "2024-05-01T10:00:00", "ref": "nope"})
    with pytest.raises(SchemaValidationError) as bad_enum:
        Kinds.convert({"placedAt": "2024-05-01T10:00:00", "color": "green"})
    assert errors_of(bad_uuid) == [("ref", "invalid UUID")]
    assert errors_of(bad_enum) == [("color", "invalid enum value")]  # the value is not quoted


async def test_non_string_mapping_keys_are_reported_on_the_mapping() -> None:
    with pytest.raises(SchemaValidationError) as excinfo:
        await validate(dict[str, int], {1: 2})
    assert errors_of(excinfo) == [("", "invalid key: expected str, got int")]


def test_convert_revalidates_struct_instances() -> None:
    # msgspec.convert would pass an instance through untouched.
    bad = Order(order_id="7", items=[Item(sku="lower", quantity=0)])  # type: ignore[arg-type]
    with pytest.raises(SchemaValidationError) as excinfo:
        Order.convert(bad)
    assert errors_of(excinfo) == [
        ("order_id", "expected int, got str"),
        ("items[0].sku", "expected str matching regex '^[A-Z]'"),
    ]


def test_tagged_unions_are_supported() -> None:
    drawing = Drawing.convert({"shapes": [{"type": "Circle", "radius": 1}, {"type": "Square", "side": 2}]})
    assert drawing.shapes == [Circle(radius=1.0), Square(side=2.0)]


def test_subclasses_are_keyword_only_and_forbid_unknown_fields() -> None:
    class Later(Schema):
        first: int = 0
        second: int  # allowed after a default only because fields are kw_only

    with pytest.raises(TypeError):
        Later(1, 2)  # type: ignore[call-arg]
    assert Later(second=2) == Later(first=0, second=2)
    assert Later.__struct_config__.forbid_unknown_fields is True
