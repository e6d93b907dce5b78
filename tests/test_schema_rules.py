"""Tests for django_mcp._schema_rules: declaring rules and collecting them on a class."""

import pytest

from django_mcp.exceptions import SchemaValidationError
from django_mcp.schemas import Schema, rule


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
