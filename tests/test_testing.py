"""Tests for django_mcp.testing: McpTestClient drives a server in-process.

Most tests use the conformance fixture server; a permission-guarded tool
defined here shows that what a client sees depends on its user.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser, Permission, User

from django_mcp import McpResponse, Server, Tool
from django_mcp.exceptions import NotRegistered
from django_mcp.protocol.jsonrpc import (
    INVALID_PARAMS,
    METHOD_NOT_FOUND,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    UNSUPPORTED_PROTOCOL_VERSION,
)
from django_mcp.registry import registry
from django_mcp.server.compiler import compile_server
from django_mcp.testing import McpTestClient, ToolResult
from testproject.conformance.mcp import ConformanceServer
from tests.math_server import MathServer

CONFIRM = {"confirm": {"action": "accept", "content": {"ok": True}}}


@pytest.fixture
def client() -> McpTestClient:
    return McpTestClient(ConformanceServer)


@pytest.fixture
def servers() -> Iterator[None]:
    saved = registry.snapshot()
    try:
        yield
    finally:
        registry.restore(saved)


# ------------------------------------------------------------ construction


async def test_client_accepts_a_registered_web_path(servers: None) -> None:
    registry.web("conformance-under-test", ConformanceServer)
    client = McpTestClient("/conformance-under-test/")
    assert client.server is ConformanceServer
    (await client.call_tool("test_simple_text")).assert_ok()


def test_unregistered_path_raises_not_registered(servers: None) -> None:
    with pytest.raises(NotRegistered):
        McpTestClient("nowhere")


def test_client_needs_a_server_or_a_path() -> None:
    with pytest.raises(TypeError):
        McpTestClient(42)  # type: ignore[arg-type]


# ------------------------------------------------------------------- lists


async def test_list_tools_returns_every_visible_tool(client: McpTestClient) -> None:
    tools = await client.list_tools()
    tools.assert_ok().assert_has_tool("test_simple_text").assert_missing_tool("no_such_tool")
    assert tools.names == list(compile_server(ConformanceServer).tools)
    assert tools.names[0] == "test_simple_text"


async def test_list_tools_follows_next_cursor_across_pages(client: McpTestClient, settings: Any) -> None:
    settings.MCP_DEFAULT_PAGE_SIZE = 5
    tools = await client.list_tools()
    expected = list(compile_server(ConformanceServer).tools)
    assert len(tools.pages) == -(-len(expected) // 5)
    assert all(len(page["result"]["tools"]) <= 5 for page in tools.pages)
    tools.assert_names(*expected)


async def test_list_resources_templates_and_prompts(client: McpTestClient) -> None:
    # The last one is the SKILL.md of the fixture's release-notes skill.
    (await client.list_resources()).assert_names(
        "static-text", "static-binary", "watched-resource", "release-notes"
    )
    templates = await client.list_resource_templates()
    templates.assert_names("template-data")
    assert templates.items[0]["uriTemplate"] == "test://template/{id}/data"
    (await client.list_prompts()).assert_has("test_prompt_with_arguments").assert_names(
        "test_simple_prompt",
        "test_prompt_with_arguments",
        "test_prompt_with_embedded_resource",
        "test_prompt_with_image",
        "test_input_required_result_prompt",
    )


# ------------------------------------------------------------------- tools


async def test_call_tool_returns_its_content(client: McpTestClient) -> None:
    result = await client.call_tool("test_simple_text")
    assert isinstance(result, ToolResult)
    result.assert_ok().assert_sees("simple text response").assert_doesnt_see("error")
    assert result.text == "This is a simple text response for testing."
    assert result.is_error is False
    assert result.response["id"] == 1


async def test_unknown_tool_is_a_json_rpc_error(client: McpTestClient) -> None:
    result = await client.call_tool("no_such_tool")
    result.assert_error().assert_error(INVALID_PARAMS).assert_sees("Unknown tool: no_such_tool")
    assert result.error == {"code": INVALID_PARAMS, "message": "Unknown tool: no_such_tool"}
    with pytest.raises(AssertionError) as info:
        result.assert_error(METHOD_NOT_FOUND)
    assert f"Expected JSON-RPC error code {METHOD_NOT_FOUND}, got {INVALID_PARAMS}." in str(info.value)
    assert '"message": "Unknown tool: no_such_tool"' in str(info.value)
    with pytest.raises(AssertionError, match="got a JSON-RPC error"):
        result.assert_ok()


async def test_progress_is_collected_when_a_token_is_sent(client: McpTestClient) -> None:
    result = await client.call_tool("test_tool_with_progress", progress_token="job-1")
    result.assert_ok().assert_has_progress().assert_has_progress(3)
    assert result.progress == [
        {"progressToken": "job-1", "progress": 0, "total": 100, "message": "Starting"},
        {"progressToken": "job-1", "progress": 50, "total": 100, "message": "Halfway"},
        {"progressToken": "job-1", "progress": 100, "total": 100, "message": "Done"},
    ]
    assert result.notifications[0] == {
        "jsonrpc": "2.0",
        "method": "notifications/progress",
        "params": result.progress[0],
    }
    with pytest.raises(AssertionError, match="Expected 2 progress notification"):
        result.assert_has_progress(2)


async def test_no_progress_without_a_token(client: McpTestClient) -> None:
    result = await client.call_tool("test_tool_with_progress")
    result.assert_ok()
    with pytest.raises(AssertionError) as info:
        result.assert_has_progress()
    assert "Expected progress notifications, got 0" in str(info.value)
    assert "progress_token=" in str(info.value)


async def test_logs_are_collected_at_the_requested_level(client: McpTestClient) -> None:
    result = await client.call_tool("test_tool_with_logging", log_level="info")
    result.assert_ok().assert_logged().assert_logged("info")
    assert [log["data"] for log in result.logs] == [
        "Tool execution started",
        "Tool processing data",
        "Tool execution completed",
    ]
    with pytest.raises(
        AssertionError, match=r"Expected a 'error' log message, got levels \['info', 'info', 'info'\]"
    ):
        result.assert_logged("error")


async def test_no_logs_below_the_requested_level(client: McpTestClient) -> None:
    result = await client.call_tool("test_tool_with_logging", log_level="warning")
    assert result.logs == []
    with pytest.raises(AssertionError, match="log_level="):
        result.assert_logged()


async def test_input_required_round_trip_with_request_state(client: McpTestClient) -> None:
    first = await client.call_tool("test_input_required_result_request_state")
    first.assert_ok().assert_input_required().assert_input_required(["confirm"])
    assert first.input_requests["confirm"]["method"] == "elicitation/create"
    assert first.request_state is not None
    with pytest.raises(AssertionError, match=r"Expected input requests \['other'\], got \['confirm'\]"):
        first.assert_input_required(["other"])

    second = await client.call_tool(
        "test_input_required_result_request_state", input_responses=CONFIRM, request_state=first.request_state
    )
    second.assert_ok().assert_sees("Confirmed with state-ok")
    with pytest.raises(AssertionError, match="Expected an input_required result"):
        second.assert_input_required()


async def test_tampered_request_state_is_invalid_params(client: McpTestClient) -> None:
    first = await client.call_tool("test_input_required_result_request_state")
    assert first.request_state is not None
    result = await client.call_tool(
        "test_input_required_result_request_state",
        input_responses=CONFIRM,
        request_state=first.request_state + "x",
    )
    result.assert_error(INVALID_PARAMS)


async def test_client_without_capabilities_cannot_be_asked_for_input() -> None:
    client = McpTestClient(ConformanceServer, client_capabilities={})
    result = await client.call_tool("test_input_required_result_request_state")
    result.assert_error(MISSING_REQUIRED_CLIENT_CAPABILITY)


async def test_invalid_arguments_are_a_tool_error() -> None:
    result = await McpTestClient(MathServer).call_tool("add", {"a": "two", "b": 3})
    result.assert_is_error().assert_sees("Invalid tool arguments")
    with pytest.raises(AssertionError, match="Expected structuredContent"):
        result.assert_structured({"total": 5})


# ------------------------------------------------------ resources, prompts


async def test_read_resource(client: McpTestClient) -> None:
    result = await client.read_resource("test://static-text")
    result.assert_ok().assert_sees("content of the static text resource")
    assert result.contents[0]["mimeType"] == "text/plain"


async def test_read_resource_through_a_template(client: McpTestClient) -> None:
    result = await client.read_resource("test://template/42/data")
    result.assert_ok().assert_sees("Data for ID: 42")
    assert result.text == '{"id":"42","templateTest":true,"data":"Data for ID: 42"}'


async def test_read_unknown_resource_is_invalid_params(client: McpTestClient) -> None:
    result = await client.read_resource("test://nothing")
    result.assert_error(INVALID_PARAMS)
    assert result.error is not None and result.error["data"] == {"uri": "test://nothing"}


async def test_get_prompt_with_arguments(client: McpTestClient) -> None:
    result = await client.get_prompt("test_prompt_with_arguments", {"arg1": "a", "arg2": "b"})
    result.assert_ok().assert_sees("arg1='a', arg2='b'")
    assert result.messages == [
        {"role": "user", "content": {"type": "text", "text": "Prompt with arguments: arg1='a', arg2='b'"}}
    ]


async def test_get_prompt_missing_an_argument_is_invalid_params(client: McpTestClient) -> None:
    result = await client.get_prompt("test_prompt_with_arguments", {"arg1": "a"})
    result.assert_error(INVALID_PARAMS).assert_sees("Missing required prompt argument: arg2")


async def test_complete_a_prompt_argument(client: McpTestClient) -> None:
    result = await client.complete("test_prompt_with_arguments", "arg1", "te", context={"arg2": "x"})
    result.assert_ok()
    assert result.values == ["test", "testing", "test-value"]


async def test_complete_a_template_variable(client: McpTestClient) -> None:
    result = await client.complete("test://template/{id}/data", "id", "4")
    result.assert_ok()
    assert result.values == []
    other = await client.complete({"type": "ref/resource", "uri": "test://nope/{id}"}, "id", "4")
    other.assert_error(INVALID_PARAMS)


# -------------------------------------------------------------- low level


async def test_discover(client: McpTestClient) -> None:
    result = await client.discover()
    result.assert_ok()
    assert "2026-07-28" in result.result["supportedVersions"]
    assert set(result.result["capabilities"]) >= {"tools", "resources", "prompts", "completions"}


async def test_request_returns_the_whole_response(client: McpTestClient) -> None:
    response = await client.request("tools/call", {"name": "test_simple_text"})
    assert response["jsonrpc"] == "2.0"
    assert response["id"] == 1
    assert response["result"]["content"] == [
        {"type": "text", "text": "This is a simple text response for testing."}
    ]
    assert (await client.request("tools/list"))["id"] == 2


async def test_request_meta_overrides_the_client_meta(client: McpTestClient) -> None:
    response = await client.request(
        "tools/call",
        {
            "name": "test_tool_with_progress",
            "_meta": {"io.modelcontextprotocol/protocolVersion": "1999-01-01"},
        },
    )
    assert response["error"]["code"] == UNSUPPORTED_PROTOCOL_VERSION


async def test_legacy_methods_are_not_served(client: McpTestClient) -> None:
    response = await client.request("ping")
    assert response["error"]["code"] == METHOD_NOT_FOUND


async def test_unsupported_protocol_version_is_reported() -> None:
    client = McpTestClient(ConformanceServer, protocol_version="2025-11-25")
    (await client.call_tool("test_simple_text")).assert_error(UNSUPPORTED_PROTOCOL_VERSION)


async def test_requests_above_the_request_limit_are_refused(client: McpTestClient, settings: Any) -> None:
    settings.MCP_MAX_REQUEST_SIZE = 100
    response = await client.request("tools/call", {"name": "test_simple_text", "arguments": {"x": "y" * 200}})
    assert response["error"] == {"code": -32600, "message": "Request exceeds MCP_MAX_REQUEST_SIZE"}


# ------------------------------------------------------------- permissions


class UserReportTool(Tool):
    name = "user-report"
    description = "Count the users (needs auth.view_user)."
    permissions = ("auth.view_user",)

    def handle(self) -> McpResponse:
        return McpResponse.text("There are users.")


class GuardedServer(Server):
    tools = (UserReportTool, ConformanceServer.tools[0])


@pytest.fixture
def viewer(django_user_model: type[User]) -> User:
    user = django_user_model.objects.create_user("viewer", password="x")
    user.user_permissions.add(Permission.objects.get(content_type__app_label="auth", codename="view_user"))
    return user


@pytest.fixture
def stranger(django_user_model: type[User]) -> User:
    return django_user_model.objects.create_user("stranger", password="x")


@pytest.mark.django_db(transaction=True)
async def test_permission_guarded_tool_is_visible_to_users_holding_the_permission(viewer: User) -> None:
    client = McpTestClient(GuardedServer, viewer)
    (await client.list_tools()).assert_names("user-report", "test_simple_text")
    (await client.call_tool("user-report")).assert_ok().assert_sees("There are users.")


@pytest.mark.django_db(transaction=True)
async def test_permission_guarded_tool_is_hidden_from_other_users(stranger: User) -> None:
    for user in (stranger, None, AnonymousUser()):
        client = McpTestClient(GuardedServer, user)
        (await client.list_tools()).assert_missing_tool("user-report").assert_has_tool("test_simple_text")
        (await client.call_tool("user-report")).assert_error(INVALID_PARAMS).assert_doesnt_see(
            "There are users."
        )


class _NeedsHeaders:
    """An authentication backend that reads the request's headers."""

    def authenticate(self, request: Any) -> Any:
        return request.headers.get("X-Never")  # would fail on a missing request


async def test_the_given_user_is_the_caller_whatever_the_authentication_backends(settings: Any) -> None:
    settings.MCP_AUTHENTICATION_BACKENDS = [f"{__name__}._NeedsHeaders"]

    result = await McpTestClient(ConformanceServer).call_tool("test_simple_text", {})

    result.assert_ok()


def _client_ip(request: Any) -> str:
    return str(request.META["REMOTE_ADDR"])


async def test_mcp_client_ip_is_not_asked_without_a_django_request(settings: Any) -> None:
    settings.MCP_CLIENT_IP = _client_ip
    settings.MCP_RATE_LIMIT = "1000/m"

    result = await McpTestClient(ConformanceServer).call_tool("test_simple_text", {})

    result.assert_ok()
