"""Tests for django_mcp.server._compiled: compiled catalogs cannot change; ServedOnce holds values."""

import dataclasses
from typing import Any

import pytest

from django_mcp.server.compiler import ServedOnce, compile_server
from tests.server.declaring import (
    server_with,
    tool,
)


@pytest.mark.parametrize("mapping", ["tools", "resources", "templates", "prompts"])
def test_compiled_mappings_are_immutable(mapping: str) -> None:
    compiled = compile_server(server_with(tools=[tool("a")]))
    with pytest.raises(TypeError):
        getattr(compiled, mapping)["x"] = None


def test_compiled_server_cannot_be_changed() -> None:
    compiled = compile_server(server_with(tools=[tool("a")]))
    with pytest.raises(dataclasses.FrozenInstanceError):
        compiled.tools = {}  # type: ignore[misc]


def test_served_once_computes_once_keeps_no_failure_and_stays_bounded() -> None:
    held = ServedOnce(limit=2)
    computed: list[str] = []

    def compute(value: str) -> Any:
        def run() -> str:
            computed.append(value)
            return value

        return run

    assert held.get("a", compute("a")) == "a"
    assert held.get("a", compute("other")) == "a"

    def fail() -> str:
        raise ValueError("not kept")

    with pytest.raises(ValueError, match="not kept"):
        held.get("b", fail)
    assert held.get("b", compute("b")) == "b"
    held.get("c", compute("c"))  # the limit is reached: the next value starts afresh
    assert held.get("a", compute("a")) == "a"
    assert computed == ["a", "b", "c", "a"]
