"""Tests for django_mcp._schema_errors: every failing field, as paths and messages."""

from typing import Annotated, Any, Generic, Literal

import msgspec
import pytest

from django_mcp import schemas
from django_mcp.exceptions import SchemaValidationError
from django_mcp.schemas import Schema, rule, validate
from tests.schema_examples import (
    Circle,
    Color,
    Item,
    Square,
    T,
    errors_of,
)

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
