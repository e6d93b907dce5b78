"""Tests for django_mcp._test_results: McpTestClient's results and their assertions read like sentences."""

from __future__ import annotations

import pytest

from django_mcp import Server
from django_mcp.protocol.jsonrpc import (
    INVALID_PARAMS,
    METHOD_NOT_FOUND,
)
from django_mcp.testing import ListResult, McpTestClient
from testproject.conformance.mcp import ConformanceServer
from tests.math_server import MathServer


@pytest.fixture
def client() -> McpTestClient:
    return McpTestClient(ConformanceServer)


async def test_assert_names_failure_shows_the_actual_names(client: McpTestClient) -> None:
    resources = await client.list_resources()
    with pytest.raises(AssertionError) as info:
        resources.assert_names("static-text")
    message = str(info.value)
    assert (
        "Expected the names ['static-text'], got "
        "['static-text', 'static-binary', 'watched-resource', 'release-notes']." in message
    )
    assert '"uri": "test://static-text"' in message


async def test_assert_has_tool_and_missing_tool_fail_readably(client: McpTestClient) -> None:
    tools = await client.list_tools()
    with pytest.raises(AssertionError, match="Expected 'no_such_tool' to be listed"):
        tools.assert_has_tool("no_such_tool")
    with pytest.raises(AssertionError, match="Expected 'test_simple_text' not to be listed, but it is"):
        tools.assert_missing_tool("test_simple_text")


class PromptOnlyServer(Server):
    prompts = ConformanceServer.prompts


async def test_listing_an_unoffered_feature_is_a_method_not_found_error() -> None:
    tools = await McpTestClient(PromptOnlyServer).list_tools()
    assert isinstance(tools, ListResult)
    tools.assert_error(METHOD_NOT_FOUND)
    assert tools.items == []
    with pytest.raises(AssertionError, match="Expected a successful response, got a JSON-RPC error"):
        tools.assert_has_tool("test_simple_text")


async def test_tool_error_is_a_result_with_is_error(client: McpTestClient) -> None:
    result = await client.call_tool("test_error_handling")
    result.assert_is_error().assert_tool_error().assert_sees("intentionally returns an error")
    with pytest.raises(AssertionError) as info:
        result.assert_ok()
    message = str(info.value)
    assert "Expected the tool to succeed, but the result has isError: true." in message
    assert '"text": "This tool intentionally returns an error for testing"' in message


async def test_assert_is_error_fails_for_a_successful_tool(client: McpTestClient) -> None:
    result = await client.call_tool("test_simple_text")
    with pytest.raises(AssertionError, match="Expected a tool error"):
        result.assert_is_error()


async def test_assert_error_fails_for_a_result(client: McpTestClient) -> None:
    result = await client.call_tool("test_simple_text")
    with pytest.raises(AssertionError, match=f"Expected a JSON-RPC error {INVALID_PARAMS}, got a result"):
        result.assert_error(INVALID_PARAMS)


async def test_assert_sees_failures_show_the_payload(client: McpTestClient) -> None:
    result = await client.call_tool("test_simple_text")
    with pytest.raises(AssertionError) as info:
        result.assert_sees("goodbye")
    assert "Expected to see 'goodbye' in the response, but it is not there." in str(info.value)
    assert '"text": "This is a simple text response for testing."' in str(info.value)
    with pytest.raises(
        AssertionError, match="Expected not to see 'simple' in the response, but it is there."
    ):
        result.assert_doesnt_see("simple")


async def test_assert_sees_ignores_meta(client: McpTestClient) -> None:
    result = await client.call_tool("test_simple_text")
    assert "django-mcp-conformance" in str(result.response["result"]["_meta"])
    result.assert_doesnt_see("django-mcp-conformance")


async def test_assert_structured_compares_structured_content() -> None:
    result = await McpTestClient(MathServer).call_tool("add", {"a": 2, "b": 3})
    result.assert_ok().assert_structured({"total": 5})
    assert result.structured_content == {"total": 5}
    with pytest.raises(AssertionError) as info:
        result.assert_structured({"total": 6})
    assert "Expected structuredContent {'total': 6}." in str(info.value)
    assert '"structuredContent": {\n      "total": 5\n    }' in str(info.value)
