"""Tests for django_mcp.schemas: validation, rules and JSON Schema output."""

import datetime
import decimal
import enum
import json
import re
import threading
import uuid
from pathlib import Path
from typing import Annotated, Any, Generic, Literal, TypeVar

import jsonschema
import msgspec
import pytest
from referencing import Registry

from django_mcp import schemas
from django_mcp.exceptions import SchemaValidationError
from django_mcp.schemas import DECIMAL_PATTERN, Schema, json_schema_for, rule, validate

# The pinned copy in tests/spec/ (see its README.md), read relative to this file.
SPEC = Path(__file__).resolve().parent / "spec" / "schema-2026-07-28.json"

T = TypeVar("T")


class Item(Schema):
    """One order line."""

    sku: Annotated[str, msgspec.Meta(min_length=1, max_length=8, pattern="^[A-Z]")]
    quantity: Annotated[int, msgspec.Meta(ge=1)] = 1

    @rule(field="quantity")
    def at_most_ten(self) -> None:
        if self.quantity > 10:
            raise ValueError("at most 10 per line")


class Order(Schema):
    """An order to summarise."""

    order_id: int
    items: list[Item] = []


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Kinds(Schema, rename="camel"):
    placed_at: datetime.datetime
    placed_at_tz: Annotated[datetime.datetime, msgspec.Meta(tz=True)] | None = None
    day: datetime.date | None = None
    ref: uuid.UUID | None = None
    amount: decimal.Decimal | None = None
    ratio: float = 0.5
    color: Color = Color.RED
    mode: Literal["fast", "slow"] = "fast"
    data: bytes = b""
    note: str = msgspec.field(default="", name="memo")


class Node(Schema):
    name: str
    children: list["Node"] = []


class Page(Schema, Generic[T]):
    items: list[T]


class Circle(Schema, tag=True):
    radius: float


class Square(Schema, tag=True):
    side: float


class Drawing(Schema):
    shapes: list[Circle | Square]


def errors_of(excinfo: pytest.ExceptionInfo[SchemaValidationError]) -> list[Any]:
    return excinfo.value.errors


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


# -- every failing field -------------------------------------------------------


class Signup(Schema, rename="camel"):
    user_name: Annotated[str, msgspec.Meta(min_length=3)]
    age: Annotated[int, msgspec.Meta(ge=18)]
    plan: Literal["free", "pro"] = "free"
    address: "Address | None" = None


class Address(Schema):
    street: str
    zip_code: Annotated[str, msgspec.Meta(pattern="^[0-9]{5}$")]


def test_three_bad_fields_are_reported_together_in_declaration_order() -> None:
    with pytest.raises(SchemaValidationError) as excinfo:
        Signup.convert({"plan": "gold", "age": 12, "userName": "al"})
    assert errors_of(excinfo) == [
        ("userName", "expected str of length >= 3"),
        ("age", "expected int >= 18"),
        ("plan", "invalid enum value"),
    ]


def test_missing_wrong_type_and_unknown_fields_are_reported_together() -> None:
    with pytest.raises(SchemaValidationError) as excinfo:
        Signup.convert({"zeta": 1, "userName": 5, "alpha": 2})
    assert errors_of(excinfo) == [
        ("userName", "expected str, got int"),
        ("age", "required field is missing"),
        ("alpha", "unknown field"),
        ("zeta", "unknown field"),
    ]


def test_a_failing_nested_schema_reports_its_first_error_under_the_field() -> None:
    with pytest.raises(SchemaValidationError) as excinfo:
        Signup.convert({"userName": "ada", "age": "x", "address": {"zip_code": "abc"}})
    # Inside "address" msgspec stops at the first problem it meets: the
    # missing street is not reported.
    assert errors_of(excinfo) == [
        ("age", "expected int, got str"),
        ("address.zip_code", "expected str matching regex '^[0-9]{5}$'"),
    ]


def test_decode_json_reports_every_failing_field() -> None:
    with pytest.raises(SchemaValidationError) as excinfo:
        Signup.decode_json(b'{"userName": 1, "age": 1, "extra": null}')
    assert errors_of(excinfo) == [
        ("userName", "expected str, got int"),
        ("age", "expected int >= 18"),
        ("extra", "unknown field"),
    ]


def test_decode_json_of_a_document_broken_after_the_first_error_reports_that_error() -> None:
    with pytest.raises(SchemaValidationError) as excinfo:
        Signup.decode_json(b'{"userName": 1, "age": ')
    assert errors_of(excinfo) == [("userName", "expected str, got int")]


async def test_validate_reports_every_failing_field_and_runs_no_rule() -> None:
    calls: list[str] = []

    class Booking(Schema):
        room: int
        nights: int

        @rule
        def record(self) -> None:
            calls.append("rule")

    with pytest.raises(SchemaValidationError) as excinfo:
        await validate(Booking, {"room": "1", "nights": "2"})
    assert errors_of(excinfo) == [("room", "expected int, got str"), ("nights", "expected int, got str")]
    assert calls == []


async def test_generic_schemas_report_every_failing_field() -> None:
    class Listing(Schema, Generic[T]):
        items: list[T]
        total: int

    with pytest.raises(SchemaValidationError) as excinfo:
        await validate(Listing[Item], {"items": [{"sku": "A"}, {"sku": 1}], "total": None})
    assert errors_of(excinfo) == [
        ("items[1].sku", "expected str, got int"),
        ("total", "expected int, got null"),
    ]


def test_a_struct_allowing_unknown_fields_reports_only_its_own() -> None:
    class Lenient(msgspec.Struct):
        a: int
        b: int

    with pytest.raises(SchemaValidationError) as excinfo:
        schemas._convert({"a": "x", "b": "y", "c": 1}, Lenient)
    assert errors_of(excinfo) == [("a", "expected int, got str"), ("b", "expected int, got str")]


def test_a_wrong_tag_is_reported_first_without_its_value() -> None:
    with pytest.raises(SchemaValidationError) as excinfo:
        Circle.convert({"radius": "r", "type": "secret-tag"})
    assert errors_of(excinfo) == [("type", "invalid value"), ("radius", "expected float, got str")]


def test_a_failure_of_the_whole_value_keeps_msgspecs_one_error() -> None:
    class Span(Schema):
        start: int
        end: int

        def __post_init__(self) -> None:
            if self.end < self.start:
                raise ValueError("end before start")

    with pytest.raises(SchemaValidationError) as excinfo:
        Span.convert({"start": 2, "end": 1})
    assert errors_of(excinfo) == [("", "end before start")]


def test_non_struct_types_keep_msgspecs_one_error() -> None:
    with pytest.raises(SchemaValidationError) as excinfo:
        schemas._convert([{"sku": 1}, {"sku": 2}], list[Item])
    assert errors_of(excinfo) == [("[0].sku", "expected str, got int")]


def test_schema_error_reports_every_field_when_given_the_type_and_value() -> None:
    value = {"userName": None, "age": None}
    with pytest.raises(msgspec.ValidationError) as raised:
        msgspec.convert(value, Signup, strict=True)
    assert schemas.schema_error(raised.value).errors == [("userName", "expected str, got null")]
    assert schemas.schema_error(raised.value, tp=Signup, value=value).errors == [
        ("userName", "expected str, got null"),
        ("age", "expected int, got null"),
    ]


def test_no_error_quotes_the_value_that_failed() -> None:
    class Secretive(Schema):
        mode: Literal["a", "b"]
        level: Literal[1, 2]
        color: Color
        shape: Circle | Square

    value = {"mode": "hunter2", "level": 4242, "color": "hunter2", "shape": {"type": "hunter2"}}
    with pytest.raises(SchemaValidationError) as excinfo:
        Secretive.convert(value)
    assert errors_of(excinfo) == [
        ("mode", "invalid enum value"),
        ("level", "invalid enum value"),
        ("color", "invalid enum value"),
        ("shape.type", "invalid value"),
    ]
    assert "hunter2" not in str(excinfo.value) and "4242" not in str(excinfo.value)


def test_valid_input_is_converted_by_one_msgspec_call(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[Any] = []
    convert = msgspec.convert

    def counting(value: Any, tp: Any, **kwargs: Any) -> Any:
        calls.append(tp)
        return convert(value, tp, **kwargs)

    monkeypatch.setattr(msgspec, "convert", counting)
    assert Signup.convert({"userName": "ada", "age": 36}) == Signup(user_name="ada", age=36)
    assert calls == [Signup]


# -- rules -------------------------------------------------------------------


async def test_sync_rule_failure_is_reported_on_its_field() -> None:
    with pytest.raises(SchemaValidationError) as excinfo:
        await validate(Item, {"sku": "A", "quantity": 11})
    assert errors_of(excinfo) == [("quantity", "at most 10 per line")]


async def test_valid_value_passes_and_is_returned() -> None:
    assert await validate(Item, {"sku": "A", "quantity": 10}) == Item(sku="A", quantity=10)


async def test_sync_rules_run_off_the_event_loop_thread() -> None:
    seen: list[int] = []

    class Probe(Schema):
        x: int

        @rule
        def record(self) -> None:
            seen.append(threading.get_ident())

    await Probe(x=1).run_rules()
    assert seen and seen[0] != threading.get_ident()


async def test_async_rule_failure_is_reported() -> None:
    class Coupon(Schema):
        code: str

        @rule(field="code")
        async def exists(self) -> None:
            if self.code != "OK":
                raise ValueError("unknown coupon")

    with pytest.raises(SchemaValidationError) as excinfo:
        await validate(Coupon, {"code": "NO"})
    assert errors_of(excinfo) == [("code", "unknown coupon")]


async def test_every_rule_failure_is_collected() -> None:
    class Both(Schema):
        a: int
        b: int

        @rule(field="a")
        def check_a(self) -> None:
            raise ValueError("bad a")

        @rule
        async def check_whole(self) -> None:
            raise ValueError("bad pair")

    with pytest.raises(SchemaValidationError) as excinfo:
        await Both(a=1, b=2).run_rules()
    assert errors_of(excinfo) == [("a", "bad a"), ("", "bad pair")]
    assert str(excinfo.value) == "a: bad a; bad pair"


async def test_rule_field_is_reported_by_its_json_name() -> None:
    class Renamed(Schema, rename="camel"):
        max_items: int

        @rule(field="max_items")
        def positive(self) -> None:
            raise ValueError("must be positive")

    with pytest.raises(SchemaValidationError) as excinfo:
        await validate(Renamed, {"maxItems": 0})
    assert errors_of(excinfo) == [("maxItems", "must be positive")]


async def test_nested_rule_errors_have_prefixed_paths() -> None:
    class Basket(Schema):
        order: Order
        spare: Item | None = None
        by_code: dict[str, Item] = {}
        pair: tuple[Item, Item] | None = None

    value = {
        "order": {"order_id": 1, "items": [{"sku": "A"}, {"sku": "B", "quantity": 11}]},
        "spare": {"sku": "C", "quantity": 12},
        "by_code": {"x": {"sku": "D", "quantity": 13}},
        "pair": [{"sku": "E"}, {"sku": "F", "quantity": 14}],
    }
    with pytest.raises(SchemaValidationError) as excinfo:
        await validate(Basket, value)
    assert errors_of(excinfo) == [
        ("order.items[1].quantity", "at most 10 per line"),
        ("spare.quantity", "at most 10 per line"),
        ('by_code["x"].quantity', "at most 10 per line"),
        ("pair[1].quantity", "at most 10 per line"),
    ]


async def test_nested_rules_run_before_the_object_rules() -> None:
    class Cart(Schema):
        items: list[Item]

        @rule
        def not_empty(self) -> None:
            raise ValueError("whole cart")

    with pytest.raises(SchemaValidationError) as excinfo:
        await validate(Cart, {"items": [{"sku": "A", "quantity": 20}]})
    assert errors_of(excinfo) == [
        ("items[0].quantity", "at most 10 per line"),
        ("", "whole cart"),
    ]


async def test_rules_run_in_definition_order_with_base_rules_first() -> None:
    calls: list[str] = []

    class Base(Schema):
        x: int

        @rule
        def first(self) -> None:
            calls.append("base.first")

        @rule
        async def second(self) -> None:
            calls.append("base.second")

    class Child(Base):
        @rule
        def third(self) -> None:
            calls.append("child.third")

        # Replaces the base rule, keeping its place in the order.
        @rule
        async def first(self) -> None:  # type: ignore[override]
            calls.append("child.first")

    await Child(x=1).run_rules()
    assert calls == ["child.first", "base.second", "child.third"]


async def test_redefining_a_rule_without_the_decorator_drops_it() -> None:
    class Base(Schema):
        x: int

        @rule
        def strict(self) -> None:
            raise ValueError("strict")

    class Relaxed(Base):
        def strict(self) -> None:
            pass

    await Relaxed(x=1).run_rules()
    with pytest.raises(SchemaValidationError):
        await Base(x=1).run_rules()


async def test_rules_do_not_run_when_structure_is_invalid() -> None:
    calls: list[str] = []

    class Guarded(Schema):
        x: int

        @rule
        def record(self) -> None:
            calls.append("ran")

    with pytest.raises(SchemaValidationError) as excinfo:
        await validate(Guarded, {"x": "1"})
    assert errors_of(excinfo) == [("x", "expected int, got str")]
    assert calls == []


async def test_rule_may_raise_schema_validation_error_with_sub_paths() -> None:
    class Window(Schema):
        start: int
        end: int

        @rule
        def ordered(self) -> None:
            if self.end < self.start:
                raise SchemaValidationError([("end", "before start"), ("start", "after end")])

    class Plan(Schema):
        windows: list[Window]

    with pytest.raises(SchemaValidationError) as excinfo:
        await validate(Plan, {"windows": [{"start": 1, "end": 2}, {"start": 5, "end": 3}]})
    assert errors_of(excinfo) == [
        ("windows[1].end", "before start"),
        ("windows[1].start", "after end"),
    ]


async def test_unexpected_rule_exceptions_propagate() -> None:
    class Broken(Schema):
        x: int

        @rule
        def oops(self) -> None:
            raise KeyError("bug")

    with pytest.raises(KeyError):
        await Broken(x=1).run_rules()


def test_rule_naming_an_unknown_field_fails_at_class_creation() -> None:
    with pytest.raises(TypeError, match="names no field"):

        class Wrong(Schema):
            x: int

            @rule(field="y")
            def check(self) -> None:
                pass


def test_rule_decorates_only_functions() -> None:
    with pytest.raises(TypeError):
        rule(staticmethod(lambda: None))


async def test_validate_runs_rules_inside_non_schema_types() -> None:
    with pytest.raises(SchemaValidationError) as excinfo:
        await validate(list[Item], [{"sku": "A"}, {"sku": "B", "quantity": 99}])
    assert errors_of(excinfo) == [("[1].quantity", "at most 10 per line")]
    assert await validate(list[int], [1, 2]) == [1, 2]


async def test_validate_reports_structure_of_non_schema_types() -> None:
    with pytest.raises(SchemaValidationError) as excinfo:
        await validate(list[int], [1, "2"])
    assert errors_of(excinfo) == [("[1]", "expected int, got str")]


async def test_validate_runs_rules_inside_generic_schemas() -> None:
    with pytest.raises(SchemaValidationError) as excinfo:
        await validate(Page[Item], {"items": [{"sku": "A", "quantity": 50}]})
    assert errors_of(excinfo) == [("items[0].quantity", "at most 10 per line")]


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
