"""The scenarios: what is sent, what a correct answer is, what is measured.

Throughput scenarios run under wrk: one request, sent again and again with a
fresh JSON-RPC id, every reply checked by Lua patterns (``patterns``) built
from the same expected values that ``check()`` verifies in full on a first
request. ``list-walk`` is a Python loop instead (a walk follows cursors), and
cold start and RSS are read whenever a server starts.

``tools`` is the size of the catalog the server is started with: the
scenarios for 1,000 and 10,000 tools run on their own server processes.
``needs`` names the server features a scenario uses; a server without one
is shown as not applicable.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["SCENARIOS", "Scenario", "lua_patterns"]

ECHO_TEXT = "hello bench"


def _expect_text(text: str) -> Callable[[dict[str, Any]], None]:
    def check(result: dict[str, Any]) -> None:
        content = result.get("content")
        if result.get("isError") or not content or content[0] != {"type": "text", "text": text}:
            raise ValueError(f"expected the text {text!r}, got {str(result)[:300]}")

    return check


def _expect_structured(result: dict[str, Any]) -> None:
    if result.get("isError") or result.get("structuredContent") != {"sum": 5, "product": 6}:
        raise ValueError(f"expected structuredContent {{sum: 5, product: 6}}, got {str(result)[:300]}")


def _expect_item(result: dict[str, Any]) -> None:
    contents = result.get("contents") or [{}]
    if contents[0].get("uri") != "bench://items/42" or contents[0].get("text") != "item 42":
        raise ValueError(f"expected the text 'item 42' for bench://items/42, got {str(result)[:300]}")


def _expect_tools(result: dict[str, Any]) -> None:
    names = [tool.get("name") for tool in result.get("tools", [])]
    if not names or "echo" not in names or len(set(names)) != len(names):
        raise ValueError(f"expected a page of unique tools including echo, got {names[:5]}...")


@dataclass(frozen=True)
class Scenario:
    """One measured request shape."""

    key: str
    title: str
    method: str
    params: dict[str, Any]
    check: Callable[[dict[str, Any]], None]
    #: (JSON key, JSON value) pairs every reply must contain, in any order.
    expect: tuple[tuple[str, Any], ...]
    name: str | None = None  # Mcp-Name
    connections: int = 32
    tools: int = 10
    needs: frozenset[str] = field(default_factory=frozenset)
    legacy: bool = False  # always in the 2025-11-25 era, after an initialize
    walk: bool = False  # a Python loop following nextCursor, not wrk


def _echo(key: str, title: str, *, connections: int = 32, tools: int = 10, legacy: bool = False) -> Scenario:
    return Scenario(
        key=key,
        title=title,
        method="tools/call",
        params={"name": "echo", "arguments": {"text": ECHO_TEXT}},
        name="echo",
        check=_expect_text(ECHO_TEXT),
        expect=(("text", ECHO_TEXT),),
        connections=connections,
        tools=tools,
        legacy=legacy,
    )


SCENARIOS: dict[str, Scenario] = {
    scenario.key: scenario
    for scenario in (
        _echo("echo-c1", "tools/call echo, 1 connection", connections=1),
        _echo("echo-c32", "tools/call echo, 32 connections (10 tools)"),
        Scenario(
            key="structured",
            title="tools/call with an output schema (structuredContent)",
            method="tools/call",
            params={"name": "sum_product", "arguments": {"a": 2, "b": 3}},
            name="sum_product",
            check=_expect_structured,
            expect=(("sum", 5), ("product", 6)),
        ),
        Scenario(
            key="resource",
            title="resources/read of a URI template",
            method="resources/read",
            params={"uri": "bench://items/42"},
            name="bench://items/42",
            check=_expect_item,
            expect=(("uri", "bench://items/42"), ("text", "item 42")),
            needs=frozenset({"resources"}),
        ),
        Scenario(
            key="orm",
            title="tools/call of a sync ORM tool (SQLite)",
            method="tools/call",
            params={"name": "orm_lookup", "arguments": {"item_id": 7}},
            name="orm_lookup",
            check=_expect_text("item-7"),
            expect=(("text", "item-7"),),
            needs=frozenset({"orm"}),
        ),
        _echo("legacy-echo", "tools/call echo in the 2025-11-25 era (initialize first)", legacy=True),
        Scenario(
            key="list-page",
            title="tools/list, first page of a 1,000-tool catalog",
            method="tools/list",
            params={},
            check=_expect_tools,
            expect=(("name", "echo"),),
            connections=4,  # pages can be large (a whole catalog): queueing 32 adds nothing
            tools=1000,
        ),
        Scenario(
            key="list-walk",
            title="tools/list, every page of a 1,000-tool catalog (Python client, 1 connection)",
            method="tools/list",
            params={},
            check=_expect_tools,
            expect=(),
            connections=1,
            tools=1000,
            walk=True,
        ),
        _echo("call-1000", "tools/call echo with 1,000 tools registered", tools=1000),
        _echo("call-10000", "tools/call echo with 10,000 tools registered", tools=10000),
    )
}

_LUA_MAGIC = re.compile(r"([\^$()%.\[\]*+\-?])")


def _lua_literal(text: str) -> str:
    return _LUA_MAGIC.sub(r"%\1", text)


def lua_patterns(scenario: Scenario) -> list[str]:
    """Return the Lua patterns a reply must match (``!`` first: must not).

    Each expected pair becomes ``"key"%s*:%s*value`` with the value as JSON,
    so key order and spacing do not matter; a reply must also hold a
    ``result`` and must not be a tool error.
    """
    patterns = [_lua_literal('"result"') + "%s*:"]
    for key, value in scenario.expect:
        patterns.append(_lua_literal(json.dumps(key)) + "%s*:%s*" + _lua_literal(json.dumps(value)))
    patterns.append("!" + _lua_literal('"isError"') + "%s*:%s*true")
    return patterns
