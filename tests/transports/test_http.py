"""Wire tests of the Streamable HTTP view at 2026-07-28: JSON in, JSON out.

Every test POSTs to the conformance fixture server at ``/conformance/mcp``
through Django's ``AsyncClient`` and compares status codes and whole
JSON-RPC objects; error messages are never compared (``ANY``), codes are
compared against ``django_mcp.protocol.jsonrpc``. Streaming behaviour that
needs a real socket (``subscriptions/listen``) runs against the live
uvicorn server with bounded waits.
"""

from __future__ import annotations

import asyncio
import gc
import json
from typing import Annotated, Any
from unittest.mock import ANY

import httpx
import msgspec
import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import ImproperlyConfigured
from django.test import AsyncRequestFactory

import django_mcp
from django_mcp import McpRequest, McpResponse, Server, Tool
from django_mcp._serving import serving
from django_mcp.dispatcher import subscriptions
from django_mcp.dispatcher.admission import OPEN_STREAMS
from django_mcp.exceptions import AuthenticationFailed
from django_mcp.protocol import jsonrpc
from django_mcp.schemas import Schema
from django_mcp.transports import _identity as _authn
from tests.fake_backends import RETRY_AFTER, DownBackend
from tests.wire import modern_headers, tool_request

MODERN = "2026-07-28"
SERVER_INFO = {"name": "django-mcp-conformance", "version": "0.1.0"}
META_SERVER_INFO = "io.modelcontextprotocol/serverInfo"
SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"


def error(code: int, request_id: Any = 1, data: Any = None) -> dict[str, Any]:
    """Return the JSON-RPC error object expected on the wire (any message)."""
    body: dict[str, Any] = {"jsonrpc": "2.0"}
    if request_id is not None:
        body["id"] = request_id
    body["error"] = {"code": code, "message": ANY}
    if data is not None:
        body["error"]["data"] = data
    return body


# ------------------------------------------------------------- envelope


async def test_invalid_json_is_a_parse_error_without_id(wire: Any) -> None:
    status, body = await wire.call(
        {}, raw=b'{"jsonrpc": "2.0", "id": 1, "method": ', headers={"Mcp-Method": "x"}
    )

    assert (status, body) == (400, error(jsonrpc.PARSE_ERROR, None))


async def test_batch_array_is_an_invalid_request_without_id(wire: Any) -> None:
    batch = [wire.request("tools/list"), wire.request("tools/list", request_id=2)]

    status, body = await wire.call(
        batch, headers={"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/list"}
    )

    assert (status, body) == (400, error(jsonrpc.INVALID_REQUEST, None))


@pytest.mark.parametrize("scalar", [b"1", b'"tools/list"', b"null", b"true"])
async def test_json_scalar_body_is_an_invalid_request(wire: Any, scalar: bytes) -> None:
    status, body = await wire.call({}, raw=scalar, headers={"MCP-Protocol-Version": MODERN})

    assert (status, body) == (400, error(jsonrpc.INVALID_REQUEST, None))


async def test_wrong_jsonrpc_version_echoes_a_readable_id(wire: Any) -> None:
    request = wire.request("tools/list", request_id="abc")
    request["jsonrpc"] = "1.0"

    status, body = await wire.call(request)

    assert (status, body) == (400, error(jsonrpc.INVALID_REQUEST, "abc"))


async def test_missing_method_with_id_is_an_invalid_request(wire: Any) -> None:
    status, body = await wire.call(
        {"jsonrpc": "2.0", "id": 7, "params": {}}, headers={"MCP-Protocol-Version": MODERN}
    )

    assert (status, body) == (400, error(jsonrpc.INVALID_REQUEST, 7))


@pytest.mark.parametrize("method", [5, "", None, ["tools/list"]])
async def test_non_string_method_is_an_invalid_request(wire: Any, method: Any) -> None:
    request = wire.request("tools/list", request_id=3)
    request["method"] = method

    status, body = await wire.call(request, headers={"Mcp-Method": "tools/list"})

    assert (status, body) == (400, error(jsonrpc.INVALID_REQUEST, 3))


@pytest.mark.parametrize("bad_id", [True, False, 1.5, 2.0, None, [1], {"a": 1}])
async def test_ids_that_are_not_string_or_integer_are_refused_and_omitted(wire: Any, bad_id: Any) -> None:
    status, body = await wire.call(wire.request("tools/list", request_id=bad_id))

    assert (status, body) == (400, error(jsonrpc.INVALID_REQUEST, None))


@pytest.mark.parametrize("request_id", [0, -5, 2**53, "", "1", "ü-id"])
async def test_string_and_integer_ids_are_echoed_with_their_type(wire: Any, request_id: Any) -> None:
    status, body = await wire.call(wire.request("tools/list", request_id=request_id))

    assert status == 200
    assert body["id"] == request_id
    assert type(body["id"]) is type(request_id)


async def test_params_that_are_not_an_object_are_invalid_params(wire: Any) -> None:
    request = {"jsonrpc": "2.0", "id": 4, "method": "tools/list", "params": [1, 2]}

    status, body = await wire.call(request, headers={"MCP-Protocol-Version": MODERN})

    assert body == error(jsonrpc.INVALID_PARAMS, 4)
    assert status == 400


async def test_a_response_object_from_a_modern_client_is_refused(wire: Any) -> None:
    status, body = await wire.call(
        {"jsonrpc": "2.0", "id": 9, "result": {}}, headers={"MCP-Protocol-Version": MODERN}
    )

    assert (status, body) == (400, error(jsonrpc.INVALID_REQUEST, 9))


async def test_a_notification_is_accepted_with_202_and_no_body(wire: Any) -> None:
    notification = {
        "jsonrpc": "2.0",
        "method": "notifications/cancelled",
        "params": {"requestId": 1, "_meta": wire.meta()},
    }

    response = await wire.post(notification)

    assert response.status_code == 202
    assert response.content == b""


# ---------------------------------------------------------------- _meta


async def test_missing_meta_is_invalid_params_with_400(wire: Any) -> None:
    request = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}

    status, body = await wire.call(request, headers={"MCP-Protocol-Version": MODERN})

    assert (status, body) == (400, error(jsonrpc.INVALID_PARAMS))


async def test_missing_params_is_invalid_params_with_400(wire: Any) -> None:
    request = {"jsonrpc": "2.0", "id": 1, "method": "server/discover"}

    status, body = await wire.call(request, headers={"MCP-Protocol-Version": MODERN})

    assert (status, body) == (400, error(jsonrpc.INVALID_PARAMS))


@pytest.mark.parametrize(
    "key", ["io.modelcontextprotocol/protocolVersion", "io.modelcontextprotocol/clientCapabilities"]
)
async def test_missing_required_meta_key_is_invalid_params_with_400(wire: Any, key: str) -> None:
    meta = wire.meta()
    del meta[key]

    status, body = await wire.call(
        wire.request("server/discover", meta=meta), headers={"MCP-Protocol-Version": MODERN}
    )

    assert (status, body) == (400, error(jsonrpc.INVALID_PARAMS))


async def test_client_capabilities_must_be_an_object(wire: Any) -> None:
    meta = wire.meta()
    meta["io.modelcontextprotocol/clientCapabilities"] = ["sampling"]

    status, body = await wire.call(wire.request("server/discover", meta=meta))

    assert (status, body) == (400, error(jsonrpc.INVALID_PARAMS))


async def test_request_without_client_info_is_served(wire: Any) -> None:
    meta = wire.meta()
    del meta["io.modelcontextprotocol/clientInfo"]

    status, body = await wire.call(wire.request("tools/call", {"name": "test_simple_text"}, meta=meta))

    assert status == 200
    assert body["result"]["content"] == [
        {"type": "text", "text": "This is a simple text response for testing."}
    ]


async def test_unsupported_version_names_supported_and_requested(wire: Any) -> None:
    meta = wire.meta()
    meta["io.modelcontextprotocol/protocolVersion"] = "v999.0.0"

    status, body = await wire.call(wire.request("server/discover", meta=meta))

    data = {"supported": [MODERN], "requested": "v999.0.0"}
    assert (status, body) == (400, error(jsonrpc.UNSUPPORTED_PROTOCOL_VERSION, data=data))


async def test_legacy_version_in_meta_is_unsupported_on_the_modern_path(wire: Any) -> None:
    meta = wire.meta()
    meta["io.modelcontextprotocol/protocolVersion"] = "2025-11-25"

    status, body = await wire.call(wire.request("tools/list", meta=meta))

    data = {"supported": [MODERN], "requested": "2025-11-25"}
    assert (status, body) == (400, error(jsonrpc.UNSUPPORTED_PROTOCOL_VERSION, data=data))


async def test_supported_versions_in_the_error_are_offered_by_discover(wire: Any) -> None:
    meta = wire.meta()
    meta["io.modelcontextprotocol/protocolVersion"] = "1999-01-01"
    _, refused = await wire.call(wire.request("server/discover", meta=meta))

    _, discovered = await wire.call(wire.request("server/discover"))

    assert set(refused["error"]["data"]["supported"]) <= set(discovered["result"]["supportedVersions"])


@pytest.mark.parametrize("level", ["verbose", "INFO", 3, ""])
async def test_unknown_log_level_is_invalid_params(wire: Any, level: Any) -> None:
    meta = wire.meta(**{"io.modelcontextprotocol/logLevel": level})

    status, body = await wire.call(wire.request("tools/call", {"name": "test_simple_text"}, meta=meta))

    assert body == error(jsonrpc.INVALID_PARAMS)
    assert status in (200, 400)


@pytest.mark.parametrize("token", [1.5, True, {"a": 1}])
async def test_progress_token_must_be_string_or_integer(wire: Any, token: Any) -> None:
    meta = wire.meta(progressToken=token)

    status, body = await wire.call(wire.request("tools/call", {"name": "test_simple_text"}, meta=meta))

    assert body == error(jsonrpc.INVALID_PARAMS)


# -------------------------------------------------------------- methods


@pytest.mark.parametrize(
    "method",
    [
        "initialize",
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "resources/unsubscribe",
        "notifications/initialized",
        "tasks/list",
        "unknown/method",
    ],
)
async def test_removed_and_unknown_methods_are_404_method_not_found(wire: Any, method: str) -> None:
    params = {"uri": "test://static-text"} if method.startswith("resources/") else {}
    if method == "logging/setLevel":
        params = {"level": "info"}

    status, body = await wire.call(wire.request(method, params))

    assert (status, body) == (404, error(jsonrpc.METHOD_NOT_FOUND))


async def test_initialize_with_modern_meta_is_not_a_handshake(wire: Any) -> None:
    request = wire.request(
        "initialize",
        {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}},
    )

    response = await wire.post(request)

    assert response.status_code == 404
    assert "Mcp-Session-Id" not in response
    assert json.loads(response.content) == error(jsonrpc.METHOD_NOT_FOUND)


async def test_unknown_tool_is_invalid_params(wire: Any) -> None:
    status, body = await wire.call(tool_request("no_such_tool", {}))

    assert body == error(jsonrpc.INVALID_PARAMS)
    assert status == 200


@pytest.mark.parametrize("name", [5, 1, [], {}, None])
@pytest.mark.parametrize(
    "headers",
    [{}, {"Mcp-Name": "test_simple_text", "Mcp-Param-Region": "eu"}],
    ids=["plain", "stray-headers"],
)
async def test_tool_name_must_be_a_string(wire: Any, name: Any, headers: dict[str, str]) -> None:
    # The fixture server mirrors arguments into headers, so the transport's
    # own visibility check sees the non-string name too.
    body = wire.request("tools/call", {"name": name, "arguments": {"region": "eu"}})

    status, answer = await wire.call(body, headers=headers)

    assert (status, answer) == (200, error(jsonrpc.INVALID_PARAMS))


async def test_tool_arguments_must_be_an_object(wire: Any) -> None:
    status, body = await wire.call(tool_request("test_simple_text", [1]))  # type: ignore[arg-type]

    assert body == error(jsonrpc.INVALID_PARAMS)


async def test_invalid_tool_arguments_are_a_tool_error_result(wire: Any) -> None:
    status, body = await wire.call(tool_request("test_elicitation", {"message": 5}))

    assert status == 200
    result = body["result"]
    assert result["isError"] is True
    assert result["resultType"] == "complete"
    assert [block["type"] for block in result["content"]] == ["text"]


async def test_unknown_prompt_is_invalid_params(wire: Any) -> None:
    status, body = await wire.call(wire.request("prompts/get", {"name": "no_such_prompt"}))

    assert (status, body) == (200, error(jsonrpc.INVALID_PARAMS))


async def test_missing_required_prompt_argument_is_invalid_params(wire: Any) -> None:
    request = wire.request("prompts/get", {"name": "test_prompt_with_arguments", "arguments": {"arg1": "a"}})

    status, body = await wire.call(request)

    assert (status, body) == (200, error(jsonrpc.INVALID_PARAMS))


async def test_prompt_arguments_must_be_strings(wire: Any) -> None:
    request = wire.request(
        "prompts/get", {"name": "test_prompt_with_arguments", "arguments": {"arg1": "a", "arg2": 2}}
    )

    status, body = await wire.call(request)

    assert body == error(jsonrpc.INVALID_PARAMS)


async def test_prompt_is_rendered(wire: Any) -> None:
    request = wire.request(
        "prompts/get", {"name": "test_prompt_with_arguments", "arguments": {"arg1": "a", "arg2": "b"}}
    )

    status, body = await wire.call(request)

    assert status == 200
    assert body == {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {
            "resultType": "complete",
            "_meta": {META_SERVER_INFO: SERVER_INFO},
            "messages": [
                {
                    "role": "user",
                    "content": {"type": "text", "text": "Prompt with arguments: arg1='a', arg2='b'"},
                }
            ],
        },
    }


async def test_resource_not_found_is_invalid_params_naming_the_uri(wire: Any) -> None:
    status, body = await wire.call(wire.request("resources/read", {"uri": "test://nope"}))

    assert (status, body) == (200, error(jsonrpc.INVALID_PARAMS, data={"uri": "test://nope"}))


async def test_resource_read_needs_a_uri(wire: Any) -> None:
    status, body = await wire.call(wire.request("resources/read", {}))

    assert body == error(jsonrpc.INVALID_PARAMS)


async def test_template_resource_is_read(wire: Any) -> None:
    uri = "test://template/42/data"

    status, body = await wire.call(wire.request("resources/read", {"uri": uri}))

    assert status == 200
    contents = body["result"]["contents"]
    assert [(c["uri"], c["mimeType"]) for c in contents] == [(uri, "application/json")]
    assert json.loads(contents[0]["text"]) == {"id": "42", "templateTest": True, "data": "Data for ID: 42"}


@pytest.mark.parametrize("cursor", ["not-a-cursor", "", 5, "eyJhIjoxfQ:1abc:def"])
async def test_invalid_cursor_is_invalid_params(wire: Any, cursor: Any) -> None:
    status, body = await wire.call(wire.request("tools/list", {"cursor": cursor}))

    assert (status, body) == (200, error(jsonrpc.INVALID_PARAMS))


async def test_cursor_of_one_list_is_refused_by_another(wire: Any, settings: Any) -> None:
    settings.MCP_DEFAULT_PAGE_SIZE = 2
    _, tools = await wire.call(wire.request("tools/list"))
    cursor = tools["result"]["nextCursor"]

    status, body = await wire.call(wire.request("prompts/list", {"cursor": cursor}))

    assert (status, body) == (200, error(jsonrpc.INVALID_PARAMS))


async def test_missing_client_capability_is_400_naming_it(wire: Any) -> None:
    status, body = await wire.call(tool_request("test_missing_capability", {}))

    data = {"requiredCapabilities": {"sampling": {}}}
    assert (status, body) == (400, error(jsonrpc.MISSING_REQUIRED_CLIENT_CAPABILITY, data=data))


async def test_declared_client_capability_is_served(wire: Any) -> None:
    request = tool_request("test_missing_capability", {}, meta=wire.meta({"sampling": {}}))

    status, body = await wire.call(request)

    assert status == 200
    assert body["result"]["content"] == [{"type": "text", "text": "The client supports sampling."}]


async def test_input_request_for_an_undeclared_capability_is_refused(wire: Any) -> None:
    status, body = await wire.call(tool_request("test_input_required_result_elicitation", {}))

    data = {"requiredCapabilities": {"elicitation": {"form": {}}}}
    assert (status, body) == (400, error(jsonrpc.MISSING_REQUIRED_CLIENT_CAPABILITY, data=data))


# --------------------------------------------------------------- results


@pytest.mark.parametrize(
    ("method", "params"),
    [
        ("server/discover", {}),
        ("tools/list", {}),
        ("prompts/list", {}),
        ("resources/list", {}),
        ("resources/templates/list", {}),
        ("resources/read", {"uri": "test://static-text"}),
    ],
)
async def test_cacheable_results_carry_ttl_and_scope(wire: Any, method: str, params: dict[str, Any]) -> None:
    status, body = await wire.call(wire.request(method, params))

    result = body["result"]
    assert status == 200
    assert result["resultType"] == "complete"
    assert type(result["ttlMs"]) is int and result["ttlMs"] >= 0
    assert result["cacheScope"] in ("public", "private")
    assert result["_meta"] == {META_SERVER_INFO: SERVER_INFO}


@pytest.mark.parametrize(
    ("method", "params"),
    [
        ("tools/call", {"name": "test_simple_text"}),
        ("prompts/get", {"name": "test_simple_prompt"}),
        (
            "completion/complete",
            {
                "ref": {"type": "ref/prompt", "name": "test_prompt_with_arguments"},
                "argument": {"name": "arg1", "value": "te"},
            },
        ),
    ],
)
async def test_uncacheable_results_carry_no_cache_hints(
    wire: Any, method: str, params: dict[str, Any]
) -> None:
    status, body = await wire.call(wire.request(method, params))

    result = body["result"]
    assert status == 200
    assert result["resultType"] == "complete"
    assert "ttlMs" not in result
    assert "cacheScope" not in result
    assert result["_meta"] == {META_SERVER_INFO: SERVER_INFO}


async def test_simple_tool_result_is_exact(wire: Any) -> None:
    status, body = await wire.call(tool_request("test_simple_text", {}, request_id="call-1"))

    assert status == 200
    assert body == {
        "jsonrpc": "2.0",
        "id": "call-1",
        "result": {
            "resultType": "complete",
            "_meta": {META_SERVER_INFO: SERVER_INFO},
            "content": [{"type": "text", "text": "This is a simple text response for testing."}],
            "isError": False,
        },
    }


async def test_server_info_can_be_switched_off(wire: Any, settings: Any) -> None:
    settings.MCP_SERVER_INFO = False

    _, body = await wire.call(tool_request("test_simple_text", {}))

    assert "_meta" not in body["result"]


async def test_discover_lists_versions_and_capabilities(wire: Any) -> None:
    status, body = await wire.call(wire.request("server/discover"))

    result = body["result"]
    assert status == 200
    assert result["supportedVersions"][0] == MODERN
    assert set(result["capabilities"]) >= {"tools", "resources", "prompts", "completions", "logging"}


async def test_completion_suggests_prompt_argument_values(wire: Any) -> None:
    params = {
        "ref": {"type": "ref/prompt", "name": "test_prompt_with_arguments"},
        "argument": {"name": "arg1", "value": "tes"},
    }

    _, body = await wire.call(wire.request("completion/complete", params))

    assert body["result"]["completion"] == {"values": ["test", "testing", "test-value"]}


@pytest.mark.parametrize(
    "ref",
    [
        {"type": "ref/prompt", "name": []},
        {"type": "ref/prompt", "name": {}},
        {"type": "ref/resource", "uri": []},
        {"type": "ref/resource", "uri": {}},
    ],
)
async def test_completion_reference_names_must_be_strings(wire: Any, ref: dict[str, Any]) -> None:
    params = {"ref": ref, "argument": {"name": "arg1", "value": "tes"}}

    status, body = await wire.call(wire.request("completion/complete", params))

    assert (status, body) == (200, error(jsonrpc.INVALID_PARAMS))


# ------------------------------------------------------ progress and logs


async def test_progress_token_turns_the_answer_into_an_event_stream(wire: Any) -> None:
    meta = wire.meta(progressToken="tok-1")

    response, messages = await wire.stream(tool_request("test_tool_with_progress", {}, meta=meta))

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/event-stream")
    assert response["Cache-Control"] == "no-cache"
    assert response["X-Accel-Buffering"] == "no"
    progress = [m for m in messages if m.get("method") == "notifications/progress"]
    assert [m["params"] for m in progress] == [
        {"progressToken": "tok-1", "progress": 0, "total": 100, "message": "Starting"},
        {"progressToken": "tok-1", "progress": 50, "total": 100, "message": "Halfway"},
        {"progressToken": "tok-1", "progress": 100, "total": 100, "message": "Done"},
    ]
    assert messages[: len(progress)] == progress
    assert len(messages) == len(progress) + 1
    final = messages[-1]
    assert final["id"] == 1
    assert final["result"]["content"] == [{"type": "text", "text": "Progress test completed for token tok-1"}]


async def test_a_plain_json_answer_runs_in_the_views_own_task(
    wire: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import django_mcp.transports._endpoint as endpoint

    spawned: list[Any] = []
    original = endpoint.asyncio.ensure_future

    def ensure_future(awaitable: Any) -> Any:
        spawned.append(awaitable)
        return original(awaitable)

    monkeypatch.setattr(endpoint.asyncio, "ensure_future", ensure_future)

    plain = await wire.post(tool_request("test_simple_text", {}))
    assert (plain.status_code, plain["Content-Type"], len(spawned)) == (200, "application/json", 0)
    assert json.loads(plain.content)["result"]["content"][0]["type"] == "text"

    await wire.stream(tool_request("test_tool_with_progress", {}, meta=wire.meta(progressToken="t")))
    assert len(spawned) == 1  # only a request that may notify gets a task


async def test_integer_progress_token_keeps_its_type(wire: Any) -> None:
    meta = wire.meta(progressToken=7)

    _, messages = await wire.stream(tool_request("test_tool_with_progress", {}, meta=meta))

    assert {m["params"]["progressToken"] for m in messages[:-1]} == {7}


async def test_without_progress_token_the_answer_is_plain_json(wire: Any) -> None:
    response, messages = await wire.stream(tool_request("test_tool_with_progress", {}))

    assert response["Content-Type"] == "application/json"
    assert [m.get("method") for m in messages] == [None]
    assert messages[0]["result"]["content"] == [
        {"type": "text", "text": "Progress test completed for token None"}
    ]


async def test_client_that_does_not_accept_sse_gets_json_only(wire: Any) -> None:
    meta = wire.meta(progressToken="tok")

    response, messages = await wire.stream(
        tool_request("test_tool_with_progress", {}, meta=meta), headers={"Accept": "application/json"}
    )

    assert response["Content-Type"] == "application/json"
    assert len(messages) == 1 and "result" in messages[0]


@pytest.mark.parametrize("tool", ["test_tool_with_logging", "test_logging_tool"])
async def test_log_messages_are_sent_only_when_a_level_is_requested(wire: Any, tool: str) -> None:
    response, messages = await wire.stream(tool_request(tool, {}))

    assert response["Content-Type"] == "application/json"
    assert not [m for m in messages if m.get("method") == "notifications/message"]


async def test_log_messages_stream_before_the_result(wire: Any) -> None:
    meta = wire.meta(**{"io.modelcontextprotocol/logLevel": "info"})

    response, messages = await wire.stream(tool_request("test_tool_with_logging", {}, meta=meta))

    assert response["Content-Type"].startswith("text/event-stream")
    assert messages[:-1] == [
        {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": text}}
        for text in ("Tool execution started", "Tool processing data", "Tool execution completed")
    ]
    assert messages[-1]["result"]["content"] == [{"type": "text", "text": "Logging test completed"}]


async def test_sync_tool_log_message_is_streamed(wire: Any) -> None:
    meta = wire.meta(**{"io.modelcontextprotocol/logLevel": "debug"})

    response, messages = await wire.stream(tool_request("test_logging_tool", {}, meta=meta))

    assert response["Content-Type"].startswith("text/event-stream")
    assert [m.get("method") for m in messages] == ["notifications/message", None]


async def test_log_messages_below_the_requested_level_are_dropped(wire: Any) -> None:
    meta = wire.meta(**{"io.modelcontextprotocol/logLevel": "warning"})

    response, messages = await wire.stream(tool_request("test_tool_with_logging", {}, meta=meta))

    assert response["Content-Type"] == "application/json"
    assert len(messages) == 1 and "result" in messages[0]


# ------------------------------------------------------------------ MRTR

CONFIRM = {"confirm": {"action": "accept", "content": {"ok": True}}}
ELICIT = {"elicitation": {}}


async def test_input_required_round_trip_completes(wire: Any) -> None:
    meta = wire.meta(ELICIT)
    _, first = await wire.call(tool_request("test_input_required_result_request_state", {}, meta=meta))

    asked = first["result"]
    assert asked["resultType"] == "input_required"
    assert set(asked["inputRequests"]) == {"confirm"}
    assert asked["inputRequests"]["confirm"]["method"] == "elicitation/create"
    assert "ttlMs" not in asked and "cacheScope" not in asked
    assert asked["_meta"] == {META_SERVER_INFO: SERVER_INFO}
    state = asked["requestState"]
    assert isinstance(state, str) and "state-ok" != state

    retry = tool_request("test_input_required_result_request_state", {}, meta=meta, request_id=2)
    retry["params"].update(inputResponses=CONFIRM, requestState=state)
    status, second = await wire.call(retry)

    assert status == 200
    assert second == {
        "jsonrpc": "2.0",
        "id": 2,
        "result": {
            "resultType": "complete",
            "_meta": {META_SERVER_INFO: SERVER_INFO},
            "content": [{"type": "text", "text": "Confirmed with state-ok"}],
            "isError": False,
        },
    }


async def test_tampered_request_state_is_invalid_params(wire: Any) -> None:
    meta = wire.meta(ELICIT)
    _, first = await wire.call(tool_request("test_input_required_result_request_state", {}, meta=meta))
    state = first["result"]["requestState"]
    tampered = state[:-2] + ("AA" if not state.endswith("AA") else "BB")

    retry = tool_request("test_input_required_result_request_state", {}, meta=meta, request_id=2)
    retry["params"].update(inputResponses=CONFIRM, requestState=tampered)
    status, body = await wire.call(retry)

    assert (status, body) == (200, error(jsonrpc.INVALID_PARAMS, 2))


async def test_request_state_replayed_on_another_tool_is_invalid_params(wire: Any) -> None:
    meta = wire.meta(ELICIT)
    _, first = await wire.call(tool_request("test_input_required_result_request_state", {}, meta=meta))

    replay = tool_request("test_input_required_result_tampered_state", {}, meta=meta, request_id=2)
    replay["params"].update(inputResponses=CONFIRM, requestState=first["result"]["requestState"])
    status, body = await wire.call(replay)

    assert (status, body) == (200, error(jsonrpc.INVALID_PARAMS, 2))


async def test_retry_without_the_answers_asks_again(wire: Any) -> None:
    meta = wire.meta(ELICIT)
    _, first = await wire.call(tool_request("test_input_required_result_request_state", {}, meta=meta))

    retry = tool_request("test_input_required_result_request_state", {}, meta=meta, request_id=2)
    retry["params"].update(
        inputResponses={"other": {"action": "accept"}}, requestState=first["result"]["requestState"]
    )
    _, second = await wire.call(retry)

    assert second["result"]["resultType"] == "input_required"


@pytest.mark.parametrize("responses", [5, "x", [1]])
async def test_structurally_invalid_input_responses_are_invalid_params(wire: Any, responses: Any) -> None:
    request = tool_request("test_input_required_result_elicitation", {}, meta=wire.meta(ELICIT))
    request["params"]["inputResponses"] = responses

    status, body = await wire.call(request)

    assert body == error(jsonrpc.INVALID_PARAMS)


async def test_multiple_input_kinds_are_asked_at_once(wire: Any) -> None:
    meta = wire.meta({"elicitation": {}, "sampling": {}, "roots": {}})

    _, body = await wire.call(tool_request("test_input_required_result_multiple_inputs", {}, meta=meta))

    requests = body["result"]["inputRequests"]
    assert {key: item["method"] for key, item in requests.items()} == {
        "user_name": "elicitation/create",
        "greeting": "sampling/createMessage",
        "client_roots": "roots/list",
    }


async def test_prompt_can_require_input(wire: Any) -> None:
    meta = wire.meta(ELICIT)
    _, first = await wire.call(
        wire.request("prompts/get", {"name": "test_input_required_result_prompt"}, meta=meta)
    )
    assert first["result"]["resultType"] == "input_required"

    retry = wire.request(
        "prompts/get",
        {
            "name": "test_input_required_result_prompt",
            "inputResponses": {"user_context": {"action": "accept", "content": {"context": "wire"}}},
        },
        meta=meta,
        request_id=2,
    )
    _, second = await wire.call(retry)

    assert second["result"]["messages"] == [
        {"role": "user", "content": {"type": "text", "text": "Use the following context: wire"}}
    ]


# ------------------------------------------------------ HTTP-level refusals


async def test_get_without_session_is_405(async_client: Any) -> None:
    response = await async_client.get("/conformance/mcp", headers={"Accept": "text/event-stream"})

    assert response.status_code == 405
    assert set(response["Allow"].replace(" ", "").split(",")) >= {"POST"}


async def test_delete_without_session_is_405(async_client: Any) -> None:
    response = await async_client.delete("/conformance/mcp")

    assert response.status_code == 405


async def test_other_http_methods_are_405(async_client: Any) -> None:
    response = await async_client.put("/conformance/mcp", data=b"{}", content_type="application/json")

    assert response.status_code == 405


@pytest.mark.parametrize("method", ["get", "delete"])
async def test_a_browser_opening_the_url_gets_a_page_saying_what_it_is(
    async_client: Any, method: str
) -> None:
    response = await getattr(async_client, method)("/conformance/mcp", headers={"Accept": "text/html"})

    assert (response.status_code, response["Allow"]) == (405, "POST")
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    page = response.content.decode()
    assert "MCP endpoint" in page and "'django-mcp-conformance'" in page and "Streamable HTTP" in page


@pytest.mark.parametrize("debug", [False, True])
@pytest.mark.parametrize(("method", "status"), [("notification", 202), ("put", 405), ("patch", 405)])
async def test_replies_without_a_body_carry_no_content_type(
    wire: Any, async_client: Any, settings: Any, debug: Any, method: str, status: int
) -> None:
    settings.DEBUG = debug
    if method == "notification":
        notification = {
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"_meta": wire.meta()},
        }
        response = await wire.post(notification)
    else:
        response = await getattr(async_client, method)("/conformance/mcp")

    assert (response.status_code, response.content) == (status, b"")
    assert "Content-Type" not in response


@pytest.mark.django_db
def test_legacy_get_stream_under_wsgi_is_405_without_get_in_allow(client: Any) -> None:
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    opened = client.post("/conformance/mcp", initialize, content_type="application/json")
    session = opened["Mcp-Session-Id"]

    response = client.get(
        "/conformance/mcp", headers={"Mcp-Session-Id": session, "Accept": "text/event-stream"}
    )

    assert (response.status_code, response["Allow"]) == (405, "POST, DELETE")


async def test_modern_get_ignores_a_stray_last_event_id(async_client: Any) -> None:
    response = await async_client.get("/conformance/mcp", headers={"Last-Event-ID": "5"})

    assert response.status_code == 405


@pytest.mark.parametrize(
    "content_type", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data"]
)
async def test_non_json_content_type_is_415(wire: Any, content_type: str) -> None:
    status_body = await wire.post(wire.request("tools/list"), content_type=content_type)

    assert status_body.status_code == 415
    assert json.loads(status_body.content) == error(jsonrpc.INVALID_REQUEST, None)


async def test_json_content_type_with_charset_is_accepted(wire: Any) -> None:
    response = await wire.post(wire.request("tools/list"), content_type="application/json; charset=utf-8")

    assert response.status_code == 200


@pytest.mark.parametrize("accept", ["text/html", "image/png", "text/plain, text/html"])
async def test_accept_without_json_or_sse_is_406(wire: Any, accept: str) -> None:
    response = await wire.post(wire.request("tools/list"), headers={"Accept": accept})

    assert response.status_code == 406
    assert json.loads(response.content) == error(jsonrpc.INVALID_REQUEST, None)


@pytest.mark.parametrize("accept", [None, "*/*", "application/*", "application/json", "text/event-stream"])
async def test_acceptable_accept_headers_are_served(wire: Any, accept: str | None) -> None:
    if accept is None:
        response = await wire.post(wire.request("tools/list"), drop=("Accept",))
    else:
        response = await wire.post(wire.request("tools/list"), headers={"Accept": accept})

    assert response.status_code == 200


# --------------------------------------------------------------- WSGI


@pytest.mark.django_db  # closing the stream sends request_finished: old connections are closed
def test_wsgi_request_with_a_progress_token_streams_its_progress(client: Any) -> None:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {
            "name": "test_tool_with_progress",
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": {},
                "progressToken": "wsgi",
            },
        },
    }
    headers = {
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": MODERN,
        "Mcp-Method": "tools/call",
        "Mcp-Name": "test_tool_with_progress",
    }

    response = client.post(
        "/conformance/mcp", data=json.dumps(body), content_type="application/json", headers=headers
    )

    assert (response.status_code, response["Content-Type"]) == (200, "text/event-stream")
    from tests.transports.conftest import sse_messages

    messages = sse_messages(b"".join(response.streaming_content))
    response.close()
    assert {m.get("method") for m in messages[:-1]} == {"notifications/progress"}
    assert messages[-1]["result"]["content"] == [
        {"type": "text", "text": "Progress test completed for token wsgi"}
    ]


def test_wsgi_listen_is_refused_with_a_json_error(client: Any) -> None:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "subscriptions/listen",
        "params": {
            "notifications": {"toolsListChanged": True},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": {},
            },
        },
    }
    headers = {
        "Accept": "text/event-stream",
        "MCP-Protocol-Version": MODERN,
        "Mcp-Method": "subscriptions/listen",
    }

    response = client.post(
        "/conformance/mcp", data=json.dumps(body), content_type="application/json", headers=headers
    )

    assert response["Content-Type"] == "application/json"
    assert json.loads(response.content)["error"]["code"] in (
        jsonrpc.METHOD_NOT_FOUND,
        jsonrpc.INVALID_REQUEST,
    )


# ------------------------------------------------- subscriptions (live)

WAIT = 10.0  # seconds: upper bound of every live wait


def _live_headers(method: str, name: str | None = None) -> dict[str, str]:
    headers = {
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        "MCP-Protocol-Version": MODERN,
        "Mcp-Method": method,
    }
    if name is not None:
        headers["Mcp-Name"] = name
    return headers


def _live_request(method: str, params: dict[str, Any], request_id: Any) -> dict[str, Any]:
    meta = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": {**params, "_meta": meta}}


async def _next_message(lines: Any) -> dict[str, Any]:
    """Return the next ``data:`` message of an SSE line iterator (bounded)."""

    async def read() -> dict[str, Any]:
        async for line in lines:
            if line.startswith("data:") and line[5:].strip():
                return json.loads(line[5:])
        raise AssertionError("stream ended")

    return await asyncio.wait_for(read(), WAIT)


async def _trigger(client: httpx.AsyncClient, url: str, tool: str, request_id: int) -> None:
    response = await client.post(
        url,
        json=_live_request("tools/call", {"name": tool, "arguments": {}}, request_id),
        headers=_live_headers("tools/call", tool),
    )
    assert response.status_code == 200
    assert response.json()["result"]["isError"] is False


async def test_listen_stream_acknowledges_then_delivers_matching_changes(
    live_server_url: str, wire_schema: Any
) -> None:
    url = f"{live_server_url}/conformance/mcp"
    listen = _live_request("subscriptions/listen", {"notifications": {"toolsListChanged": True}}, "sub-1")
    async with httpx.AsyncClient(timeout=WAIT) as client:
        async with client.stream(
            "POST", url, json=listen, headers=_live_headers("subscriptions/listen")
        ) as stream:
            assert stream.status_code == 200
            assert stream.headers["content-type"].startswith("text/event-stream")
            lines = stream.aiter_lines()

            ack = await _next_message(lines)
            assert ack == {
                "jsonrpc": "2.0",
                "method": "notifications/subscriptions/acknowledged",
                "params": {"notifications": {"toolsListChanged": True}, "_meta": {SUBSCRIPTION_ID: "sub-1"}},
            }

            # A prompt change must not reach a tools-only stream: announce it
            # first, then a tool change; the next message must be the latter.
            await _trigger(client, url, "test_trigger_prompt_change", 2)
            await _trigger(client, url, "test_trigger_tool_change", 3)

            changed = await _next_message(lines)
            for message in (ack, changed):
                wire_schema.record(message, era="modern")
            assert changed == {
                "jsonrpc": "2.0",
                "method": "notifications/tools/list_changed",
                "params": {"_meta": {SUBSCRIPTION_ID: "sub-1"}},
            }


async def test_listen_acknowledges_only_the_honoured_filter(live_server_url: str, wire_schema: Any) -> None:
    url = f"{live_server_url}/conformance/mcp"
    wanted = {"toolsListChanged": True, "promptsListChanged": False, "unknownFlag": True}
    listen = _live_request("subscriptions/listen", {"notifications": wanted}, 41)
    async with httpx.AsyncClient(timeout=WAIT) as client:
        async with client.stream(
            "POST", url, json=listen, headers=_live_headers("subscriptions/listen")
        ) as stream:
            ack = await _next_message(stream.aiter_lines())

    wire_schema.record(ack, era="modern")
    assert ack["params"] == {"notifications": {"toolsListChanged": True}, "_meta": {SUBSCRIPTION_ID: 41}}


async def test_listen_with_a_malformed_filter_is_invalid_params(wire: Any) -> None:
    status, body = await wire.call(wire.request("subscriptions/listen", {"notifications": 5}))

    assert body == error(jsonrpc.INVALID_PARAMS)


async def test_listen_while_change_notifications_are_unavailable_is_503_with_retry_after(
    wire: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(subscriptions, "get_backend", DownBackend)
    listen = wire.request("subscriptions/listen", {"notifications": {"toolsListChanged": True}}, request_id=8)

    response = await wire.post(listen)

    assert (response.status_code, response["Retry-After"]) == (503, str(RETRY_AFTER))
    assert response["Content-Type"] == "application/json"
    assert json.loads(response.content) == error(jsonrpc.INTERNAL_ERROR, 8)


async def test_listen_stream_past_its_buffer_ends_with_its_result(wire: Any, settings: Any) -> None:
    from testproject.conformance.mcp import ConformanceServer

    settings.MCP_STREAM_BUFFER = 2
    listen = wire.request("subscriptions/listen", {"notifications": {"toolsListChanged": True}}, request_id=6)
    response = await wire.post(listen)
    assert response.status_code == 200
    chunks = aiter(response.streaming_content)
    ack = wire.sse_messages(await asyncio.wait_for(anext(chunks), WAIT))
    assert ack[0]["method"] == "notifications/subscriptions/acknowledged"

    for _ in range(10):  # nobody reads the stream meanwhile
        django_mcp.tools_changed(ConformanceServer)

    async def rest() -> list[dict[str, Any]]:
        return wire.sse_messages(b"".join([chunk async for chunk in chunks]))

    assert await asyncio.wait_for(rest(), WAIT) == [
        {"jsonrpc": "2.0", "id": 6, "result": {"resultType": "complete", "_meta": {SUBSCRIPTION_ID: 6}}}
    ]


async def test_listen_streams_over_max_streams_get_503_with_retry_after(wire: Any, settings: Any) -> None:
    gc.collect()  # streams of earlier tests that nobody holds any more
    settings.MCP_MAX_STREAMS = OPEN_STREAMS.count + 1
    listen = wire.request("subscriptions/listen", {"notifications": {"toolsListChanged": True}})

    first = await wire.post(listen)
    refused = await wire.post(listen)
    opened = first.status_code
    first.close()
    del first  # the client went away: its stream is gone
    gc.collect()
    again = await wire.post(listen)
    again.close()

    assert (opened, refused.status_code, again.status_code) == (200, 503, 200)
    assert refused["Retry-After"] == "1"
    assert json.loads(refused.content) == error(jsonrpc.INTERNAL_ERROR)


# -------------------------------------------------------- authentication


class _User:
    is_authenticated = True
    is_active = True
    pk = 1


class WhoAmITool(Tool):
    name = "whoami"
    description = "Says whether the caller is authenticated."

    def handle(self, request: McpRequest) -> McpResponse:
        return McpResponse.text(f"authenticated={request.user.is_authenticated}")


class LoginServer(Server):
    name = "login"
    login_required = True
    tools = (WhoAmITool,)


class AsyncBearer:
    async def authenticate(self, request: Any) -> Any:
        return _User() if request.headers.get("Authorization") == "Bearer good" else None


class RefusingBearer:
    async def authenticate(self, request: Any) -> Any:
        if request.headers.get("Authorization") == "Bearer expired":
            raise AuthenticationFailed('Token "expired"\n', scope="tools:call")
        return None


class SyncBearer:
    def authenticate(self, request: Any) -> Any:
        return _User() if request.headers.get("Authorization") == "Bearer good" else None


def _login_request(path: str = "/login-mcp", **headers: str) -> Any:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {
            "name": "whoami",
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": {},
            },
        },
    }
    return AsyncRequestFactory().post(
        path,
        data=json.dumps(body),
        content_type="application/json",
        headers={
            "Accept": "application/json",
            "MCP-Protocol-Version": MODERN,
            "Mcp-Method": "tools/call",
            "Mcp-Name": "whoami",
            **headers,
        },
    )


async def test_anonymous_caller_of_a_login_required_server_gets_a_bearer_challenge() -> None:
    response = await LoginServer.as_view()(_login_request())

    assert response.status_code == 401
    assert response["WWW-Authenticate"] == (
        'Bearer resource_metadata="http://testserver/.well-known/oauth-protected-resource/login-mcp"'
    )
    assert json.loads(response.content) == error(jsonrpc.INVALID_REQUEST, None)


@pytest.mark.parametrize("backend", ["AsyncBearer", "SyncBearer"])
async def test_authentication_backends_identify_the_caller(settings: Any, backend: str) -> None:
    settings.MCP_AUTHENTICATION_BACKENDS = [f"{__name__}.{backend}"]

    good = await LoginServer.as_view()(_login_request(Authorization="Bearer good"))
    bad = await LoginServer.as_view()(_login_request(Authorization="Bearer bad"))

    assert good.status_code == 200
    assert json.loads(good.content)["result"]["content"] == [{"type": "text", "text": "authenticated=True"}]
    assert bad.status_code == 401


async def test_bearer_token_in_the_query_string_is_never_read(settings: Any) -> None:
    settings.MCP_AUTHENTICATION_BACKENDS = [f"{__name__}.AsyncBearer"]

    response = await LoginServer.as_view()(_login_request("/login-mcp?access_token=good"))

    assert response.status_code == 401


async def test_origin_is_checked_before_authentication() -> None:
    response = await LoginServer.as_view()(_login_request(Origin="http://evil.example.com"))

    assert response.status_code == 403


class OpenServer(Server):
    name = "open"
    tools = (WhoAmITool,)


def _exchange(request: Any) -> Any:
    from django_mcp.transports.http import _exchange_of

    return _exchange_of(request)


async def test_anonymous_caller_of_an_open_server_is_anonymous() -> None:
    user, denied = await serving.endpoint(OpenServer).caller(_exchange(_login_request()))

    assert denied is None
    assert isinstance(user, AnonymousUser)


async def test_open_server_serves_anonymous_callers() -> None:
    response = await OpenServer.as_view()(_login_request())

    assert response.status_code == 200
    assert json.loads(response.content)["result"]["content"] == [
        {"type": "text", "text": "authenticated=False"}
    ]


def test_unimportable_authentication_backend_is_improperly_configured(settings: Any) -> None:
    settings.MCP_AUTHENTICATION_BACKENDS = ["no.such.Backend"]

    with pytest.raises(ImproperlyConfigured):
        _authn.get_authenticators()


async def test_refused_token_is_challenged_even_on_an_open_server(settings: Any) -> None:
    settings.MCP_AUTHENTICATION_BACKENDS = [f"{__name__}.RefusingBearer"]

    refused = await OpenServer.as_view()(_login_request("/open-mcp", Authorization="Bearer expired"))
    anonymous = await OpenServer.as_view()(_login_request("/open-mcp"))

    assert refused.status_code == 401
    assert refused["WWW-Authenticate"] == (
        'Bearer error="invalid_token", error_description="Token expired", '
        'resource_metadata="http://testserver/.well-known/oauth-protected-resource/open-mcp", '
        'scope="tools:call"'
    )
    assert json.loads(refused.content) == error(jsonrpc.INVALID_REQUEST, None)
    assert anonymous.status_code == 200


# ----------------------------------------------------------- hostile input


@pytest.mark.parametrize("depth", [65, 960, 5000])
async def test_deep_nesting_is_an_invalid_request_not_a_500(wire: Any, settings: Any, depth: int) -> None:
    settings.DEBUG = True  # a traceback page would leak paths and settings
    body = tool_request("test_simple_text", {})
    raw = json.dumps(body).replace('"arguments": {}', '"arguments": {"a": ' + "[" * depth + "]" * depth + "}")

    response = await wire.post(body, raw=raw.encode())

    assert (response.status_code, response["Content-Type"]) == (400, "application/json")
    assert json.loads(response.content)["error"]["code"] == jsonrpc.INVALID_REQUEST


async def test_nesting_up_to_the_limit_is_served(wire: Any, settings: Any) -> None:
    settings.MCP_MAX_JSON_DEPTH = 8
    body = tool_request("test_simple_text", {})
    # message (1) > params (2) > arguments (3) > a (4..8)
    raw = json.dumps(body).replace('"arguments": {}', '"arguments": {"a": [[[[[]]]]]}')

    response = await wire.post(body, raw=raw.encode())

    assert response.status_code == 200, response.content
    settings.MCP_MAX_JSON_DEPTH = 7
    assert (await wire.post(body, raw=raw.encode())).status_code == 400


async def test_an_unexpected_failure_in_the_view_is_a_json_error(
    wire: Any, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import django_mcp.transports._endpoint as endpoint

    settings.DEBUG = True

    def explode(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("secret detail")

    monkeypatch.setattr(endpoint, "parse_message", explode)
    response = await wire.post(tool_request("test_simple_text", {}))

    assert (response.status_code, response["Content-Type"]) == (500, "application/json")
    assert b"secret" not in response.content
    assert json.loads(response.content)["error"]["code"] == jsonrpc.INTERNAL_ERROR


async def test_without_the_auth_app_an_open_server_serves_anonymous_callers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from django.apps import apps

    installed = apps.is_installed
    monkeypatch.setattr(apps, "is_installed", lambda name: name != "django.contrib.auth" and installed(name))
    request = AsyncRequestFactory().post("/mcp", data=b"{}", content_type="application/json")

    user, denied = await serving.endpoint(OpenServer).caller(_exchange(request))

    assert (user, denied) == (None, None)


# ---------------------------------------- hidden tools and mirrored headers


class DeployInput(Schema):
    region: Annotated[str, msgspec.Meta(extra_json_schema={"x-mcp-header": "Region"})]


class GuardedDeployTool(Tool[DeployInput]):
    name = "deploy"
    permissions = ("demo.deploy",)

    def handle(self, payload: DeployInput) -> McpResponse:
        return McpResponse.text(f"deployed to {payload.region}")


class GuardedServer(Server):
    name = "guarded"
    tools = (GuardedDeployTool,)


class _Deployer:
    is_authenticated = True
    is_active = True
    pk = 2

    async def ahas_perms(self, permissions: Any) -> bool:
        return True


class DeployerBearer:
    async def authenticate(self, request: Any) -> Any:
        return _Deployer() if request.headers.get("Authorization") == "Bearer deployer" else None


def _deploy_request(name: str, **headers: str) -> Any:
    body = tool_request(name, {"region": "eu"})
    return AsyncRequestFactory().post(
        "/guarded-mcp",
        data=json.dumps(body),
        content_type="application/json",
        headers={**modern_headers(body), **headers},
    )


@pytest.mark.parametrize("headers", [{}, {"Mcp-Param-Region": "eu"}, {"Mcp-Param-Region": "us"}])
async def test_hidden_tool_with_mirrored_arguments_answers_like_an_unknown_tool(
    headers: dict[str, str],
) -> None:
    hidden = await GuardedServer.as_view()(_deploy_request("deploy", **headers))
    unknown = await GuardedServer.as_view()(_deploy_request("no-such-tool", **headers))

    assert (hidden.status_code, unknown.status_code) == (200, 200)
    hidden_body, unknown_body = json.loads(hidden.content), json.loads(unknown.content)
    assert hidden_body == error(jsonrpc.INVALID_PARAMS)
    assert unknown_body == error(jsonrpc.INVALID_PARAMS)
    assert (
        hidden_body["error"]["message"].replace("deploy", "no-such-tool") == unknown_body["error"]["message"]
    )


async def test_visible_tool_with_mirrored_arguments_needs_its_headers(settings: Any) -> None:
    settings.MCP_AUTHENTICATION_BACKENDS = [f"{__name__}.DeployerBearer"]

    missing = await GuardedServer.as_view()(_deploy_request("deploy", Authorization="Bearer deployer"))
    sent = await GuardedServer.as_view()(
        _deploy_request("deploy", Authorization="Bearer deployer", **{"Mcp-Param-Region": "eu"})
    )

    assert missing.status_code == 400
    assert json.loads(missing.content) == error(jsonrpc.HEADER_MISMATCH)
    assert sent.status_code == 200
    assert json.loads(sent.content)["result"]["content"] == [{"type": "text", "text": "deployed to eu"}]


# ------------------------------------------------------- Python calls


@pytest.mark.django_db
@pytest.mark.urls("tests.echo_server")
def test_the_view_under_djangos_wsgi_handler_costs_at_most_85_python_calls_more_than_a_bare_view(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from django.core.wsgi import get_wsgi_application

    from tests.calls import without_wire_hooks
    from tests.echo_server import FLOOR_URL, URL, echo_request
    from tests.test_wsgi import warm_python_calls

    without_wire_hooks(monkeypatch)
    app = get_wsgi_application()
    data, headers = echo_request()
    counted = {}
    for path in (URL, FLOOR_URL):
        counted[path], (status, _headers, body) = warm_python_calls(app, path, data, headers)
        assert (status, json.loads(body)["result"]["content"]) == (200, [{"type": "text", "text": "hello"}])

    # Both go through the same handler and middleware; the bare view only
    # decodes and encodes with msgspec.
    assert counted[URL] - counted[FLOOR_URL] <= 85


@pytest.mark.django_db
@pytest.mark.urls("tests.echo_server")
def test_a_sync_orm_tool_under_djangos_wsgi_handler_starts_no_thread_and_costs_a_bare_views_calls(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from django.contrib.auth import get_user_model
    from django.core.wsgi import get_wsgi_application

    from tests.calls import started, without_wire_hooks
    from tests.echo_server import ORM_FLOOR_URL, ORM_URL, orm_request
    from tests.test_wsgi import call, environ, warm_python_calls

    without_wire_hooks(monkeypatch)
    get_user_model().objects.create_user("view-orm")
    app = get_wsgi_application()
    data, headers = orm_request()
    counted = {}
    for path in (ORM_URL, ORM_FLOOR_URL):
        counted[path], (status, _headers, body) = warm_python_calls(app, path, data, headers)
        content = json.loads(body)["result"]["content"]
        assert (status, content) == (200, [{"type": "text", "text": "view-orm"}])
    with started(monkeypatch) as seen:
        for _ in range(5):
            call(app, environ(data, headers=headers, length=len(data), PATH_INFO=ORM_URL))

    # The sync tool runs inline in the worker's thread, as the bare view's
    # read does: no thread, no event loop.
    assert (seen.threads, seen.loops) == (0, 0)
    assert counted[ORM_URL] - counted[ORM_FLOOR_URL] <= 100, counted
