"""Tests for django_mcp._schema_rule_runs: running every rule, nested values first."""

import threading

import pytest

from django_mcp.exceptions import SchemaValidationError
from django_mcp.schemas import Schema, rule, validate
from tests.schema_examples import (
    Item,
    Order,
    Page,
    errors_of,
)

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
