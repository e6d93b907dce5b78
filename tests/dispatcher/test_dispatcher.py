"""The transport-agnostic dispatcher: error mapping, era shaping, the method table.

These tests drive ``django_mcp.dispatcher`` directly (no HTTP), so they
also cover what the STDIO transport relies on. One section checks the
suite's own wire-schema fixture (``tests/conftest.py``): that it sees the
HTTP view's own errors and that it rejects what the spec schemas reject.
"""

from __future__ import annotations

import dataclasses
import json
import threading
from typing import Any
from unittest.mock import ANY, AsyncMock

import msgspec
import pytest

from django_mcp import McpResponse, Prompt, PromptArgument, Resource, Server, Tool
from django_mcp import dispatcher as dispatch_module
from django_mcp.conf import Limits, McpSettings
from django_mcp.dispatcher import Dispatcher, InFlight
from django_mcp.dispatcher.codec import encode_error, encode_notification, parse_message
from django_mcp.dispatcher.context import CallContext, check_version, modern_context
from django_mcp.exceptions import (
    InvalidParams,
    MissingMeta,
    UnsupportedProtocolVersion,
)
from django_mcp.protocol import jsonrpc
from testproject.conformance.mcp import ConformanceServer
from tests.wire import MODERN, modern_request, serve


@pytest.fixture
def dispatcher() -> Dispatcher:
    return Dispatcher(ConformanceServer.compiled())


def legacy_context() -> CallContext:
    return CallContext(era="legacy", protocol_version="2025-11-25", client_capabilities={})


# ------------------------------------------------------------ contexts


@pytest.mark.parametrize(
    "meta",
    [
        None,
        {},
        {"io.modelcontextprotocol/clientCapabilities": {}},
        {"io.modelcontextprotocol/protocolVersion": MODERN},
        {
            "io.modelcontextprotocol/protocolVersion": 20260728,
            "io.modelcontextprotocol/clientCapabilities": {},
        },
    ],
)
def test_incomplete_meta_is_missing_meta_with_http_400(meta: Any) -> None:
    params = {} if meta is None else {"_meta": meta}
    envelope = parse_message(
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": params})
    )

    with pytest.raises(MissingMeta) as caught:
        modern_context(envelope)

    assert (caught.value.code, caught.value.http_status) == (jsonrpc.INVALID_PARAMS, 400)


@pytest.mark.parametrize("version", ["2025-11-25", "2024-11-05", "v999", ""])
def test_check_version_refuses_everything_but_modern_revisions(version: str) -> None:
    with pytest.raises(UnsupportedProtocolVersion) as caught:
        check_version(version)

    assert caught.value.data == {"supported": [MODERN], "requested": version}
    assert caught.value.http_status == 400


# ------------------------------------------------------------- respond


async def test_modern_list_result_carries_result_type_and_cache_hints(dispatcher: Dispatcher) -> None:
    status, body = await serve(dispatcher, modern_request("tools/list"))

    result = body["result"]
    assert status == 200
    assert result["resultType"] == "complete"
    assert isinstance(result["ttlMs"], int) and result["cacheScope"] in ("public", "private")
    assert [tool["name"] for tool in result["tools"]][:2] == ["test_simple_text", "test_image_content"]


async def test_unknown_method_reply_is_404(dispatcher: Dispatcher) -> None:
    status, body = await serve(dispatcher, modern_request("nope/nope", request_id="x"))

    assert (status, body) == (
        404,
        {"jsonrpc": "2.0", "id": "x", "error": {"code": jsonrpc.METHOD_NOT_FOUND, "message": ANY}},
    )


async def test_legacy_context_shapes_results_without_modern_fields(dispatcher: Dispatcher) -> None:
    ping = await dispatcher.respond(
        parse_message(b'{"jsonrpc":"2.0","id":1,"method":"ping"}'), legacy_context()
    )
    tools = await dispatcher.respond(
        parse_message(b'{"jsonrpc":"2.0","id":2,"method":"tools/list"}'), legacy_context()
    )

    assert json.loads(ping.body) == {"jsonrpc": "2.0", "id": 1, "result": {}}
    assert not {"resultType", "ttlMs", "cacheScope", "_meta"} & set(json.loads(tools.body)["result"])


async def test_legacy_resource_not_found_uses_the_legacy_code(dispatcher: Dispatcher) -> None:
    envelope = parse_message(
        b'{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"test://none"}}'
    )

    reply = await dispatcher.respond(envelope, legacy_context())

    assert json.loads(reply.body)["error"] == {
        "code": jsonrpc.LEGACY_RESOURCE_NOT_FOUND,
        "message": ANY,
        "data": {"uri": "test://none"},
    }


async def test_session_methods_need_a_session(dispatcher: Dispatcher) -> None:
    envelope = parse_message(
        b'{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"info"}}'
    )

    reply = await dispatcher.respond(envelope, legacy_context())

    assert json.loads(reply.body)["error"]["code"] == jsonrpc.METHOD_NOT_FOUND


# ------------------------------------------------------ failing handlers


class BoomTool(Tool):
    name = "boom"
    description = "Always raises."

    def handle(self) -> McpResponse:
        raise RuntimeError("secret-detail-42")


class BoomResource(Resource):
    name = "boom"
    uri = "test://boom"
    description = "Always raises."

    def handle(self) -> McpResponse:
        raise RuntimeError("secret-detail-42")


class StructuredTool(Tool):
    name = "structured"
    description = "Returns fractional numbers and nulls as structured content."

    def handle(self) -> McpResponse:
        return McpResponse.structured({"ratio": 0.5, "missing": None, "items": [1.25, None]})


class FailingServer(Server):
    name = "failing"
    tools = (BoomTool, StructuredTool)
    resources = (BoomResource,)


@pytest.fixture
def failing() -> Dispatcher:
    return Dispatcher(FailingServer.compiled())


async def test_tool_exception_is_a_tool_error_without_details(failing: Dispatcher) -> None:
    status, body = await serve(failing, modern_request("tools/call", {"name": "boom"}))

    assert status == 200
    assert body["result"]["isError"] is True
    assert "secret-detail-42" not in json.dumps(body)


async def test_resource_exception_is_an_internal_error_without_details(failing: Dispatcher) -> None:
    status, body = await serve(failing, modern_request("resources/read", {"uri": "test://boom"}))

    assert body == {"jsonrpc": "2.0", "id": 1, "error": {"code": jsonrpc.INTERNAL_ERROR, "message": ANY}}
    assert "secret-detail-42" not in json.dumps(body)


async def test_failures_release_the_concurrency_slot(failing: Dispatcher, settings: Any) -> None:
    settings.MCP_MAX_CONCURRENT_REQUESTS = 1

    await serve(failing, modern_request("resources/read", {"uri": "test://boom"}))
    status, _ = await serve(failing, modern_request("tools/list"))

    assert status == 200


async def test_structured_content_may_hold_fractions_and_nulls(failing: Dispatcher) -> None:
    status, body = await serve(failing, modern_request("tools/call", {"name": "structured"}))

    assert status == 200
    assert body["result"]["structuredContent"] == {"ratio": 0.5, "missing": None, "items": [1.25, None]}


async def test_unexpected_exception_in_respond_is_an_internal_error(
    dispatcher: Dispatcher, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def explode(call: Any) -> Any:
        raise KeyError("secret-detail-42")

    row = dispatch_module.METHODS["tools/list"]
    monkeypatch.setitem(dispatch_module.METHODS, "tools/list", dataclasses.replace(row, handler=explode))

    status, body = await serve(dispatcher, modern_request("tools/list"))

    assert (status, body) == (
        200,
        {"jsonrpc": "2.0", "id": 1, "error": {"code": jsonrpc.INTERNAL_ERROR, "message": ANY}},
    )


# ------------------------------------------- the wire-schema fixture itself


async def test_wire_schema_fixture_records_the_views_own_errors(async_client: Any, wire_schema: Any) -> None:
    await async_client.post("/conformance/mcp", data=b"{", content_type="application/json")

    assert (
        "modern",
        {"jsonrpc": "2.0", "error": {"code": jsonrpc.PARSE_ERROR, "message": ANY}},
    ) in wire_schema.messages


async def test_wire_schema_fixture_records_results_with_their_era(
    dispatcher: Dispatcher, wire_schema: Any
) -> None:
    await serve(dispatcher, modern_request("server/discover"))
    await dispatcher.respond(parse_message(b'{"jsonrpc":"2.0","id":2,"method":"ping"}'), legacy_context())

    assert [(era, message["id"]) for era, message in wire_schema.messages] == [("modern", 1), ("legacy", 2)]


SKILL_ENTRY = {
    "uri": "skill://a/SKILL.md",
    "frontmatter": {"name": "a", "description": "d"},
    "resources": [{"uri": "skill://a/SKILL.md", "digest": "sha256:" + "0" * 64, "size": 1}],
}


@pytest.mark.parametrize(
    ("era", "method", "message"),
    [
        ("modern", "tools/list", {"jsonrpc": "2.0", "id": 1, "result": {"tools": []}}),
        (
            "modern",
            "tools/list",
            {
                "jsonrpc": "2.0",
                "id": 1,
                "result": {"resultType": "complete", "tools": [], "ttlMs": 1.5, "cacheScope": "public"},
            },
        ),
        (
            "modern",
            "tools/list",
            {"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required", "requestState": "s"}},
        ),
        (
            "modern",
            None,
            {"jsonrpc": "2.0", "id": 1, "error": {"code": -32002, "message": "Resource not found"}},
        ),
        ("modern", None, {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "x"}}),
        ("modern", None, {"jsonrpc": "2.0", "id": 1, "error": {"code": -32022, "message": "x"}}),
        ("modern", None, {"jsonrpc": "2.0", "id": "e1", "method": "elicitation/create", "params": {}}),
        ("modern", None, {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progress": 1}}),
        ("modern", None, {"jsonrpc": "2.0", "method": "notifications/made_up"}),
        (
            "legacy",
            "tools/list",
            {"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete", "tools": []}},
        ),
        (
            "legacy",
            "ping",
            {"jsonrpc": "2.0", "id": 1, "result": {"_meta": {"io.modelcontextprotocol/serverInfo": {}}}},
        ),
        (
            "legacy",
            None,
            {"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged", "params": {}},
        ),
        # The skills extension: an upper-case digest, a skills/get cursor.
        (
            "modern",
            "skills/list",
            {
                "jsonrpc": "2.0",
                "id": 1,
                "result": {
                    "resultType": "complete",
                    "skills": [
                        dict(
                            SKILL_ENTRY,
                            resources=[{"uri": "skill://a/SKILL.md", "digest": "sha256:AB", "size": 1}],
                        )
                    ],
                    "ttlMs": 0,
                    "cacheScope": "public",
                },
            },
        ),
        (
            "modern",
            "skills/get",
            {
                "jsonrpc": "2.0",
                "id": 1,
                "result": {
                    "resultType": "complete",
                    "skill": SKILL_ENTRY,
                    "ttlMs": 0,
                    "cacheScope": "public",
                    "nextCursor": "c",
                },
            },
        ),
    ],
)
def test_wire_schema_fixture_rejects_invalid_messages(
    wire_schema: Any, era: str, method: str | None, message: Any
) -> None:
    assert wire_schema.check(message, era=era, method=method)


@pytest.mark.parametrize(
    ("era", "method", "message"),
    [
        # JSONValue quirk: fractions and null inside capability settings pass.
        (
            "modern",
            "server/discover",
            {
                "jsonrpc": "2.0",
                "id": 1,
                "result": {
                    "resultType": "complete",
                    "supportedVersions": [MODERN],
                    "capabilities": {"experimental": {"x": {"ratio": 0.5, "off": None}}},
                    "ttlMs": 0,
                    "cacheScope": "public",
                },
            },
        ),
        ("modern", None, {"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}}),
        ("legacy", "ping", {"jsonrpc": "2.0", "id": 1, "result": {}}),
        ("legacy", None, {"jsonrpc": "2.0", "id": "s-1", "method": "roots/list"}),
        (
            "modern",
            "skills/get",
            {
                "jsonrpc": "2.0",
                "id": 1,
                "result": {
                    "resultType": "complete",
                    "skill": SKILL_ENTRY,
                    "ttlMs": 0,
                    "cacheScope": "public",
                },
            },
        ),
    ],
)
def test_wire_schema_fixture_accepts_valid_messages(
    wire_schema: Any, era: str, method: str | None, message: Any
) -> None:
    assert wire_schema.check(message, era=era, method=method) == []


def test_wire_schema_fixture_can_be_told_to_ignore_a_test(wire_schema: Any) -> None:
    encode_error(1, InvalidParams())
    wire_schema.ignore()
    encode_notification("notifications/made_up")

    assert wire_schema.messages == []


def test_msgspec_is_the_encoder(wire_schema: Any) -> None:
    wire_schema.ignore()  # "x" is no MCP notification
    # Compact single-line JSON is what SSE framing and stdio rely on.
    assert b"\n" not in encode_notification("notifications/message", {"level": "info", "data": "a\nb"})
    assert msgspec.json.decode(encode_notification("x", {"a": 1})) == {
        "jsonrpc": "2.0",
        "method": "x",
        "params": {"a": 1},
    }


# --------------------------------------------- 2025-11-25 shape limits
#
# The 2025-11-25 schema restricts Tool.outputSchema and
# CallToolResult.structuredContent to JSON objects; 2026-07-28 allows any
# JSON value. The wire-schema fixture validates every reply below.


class ArrayTool(Tool):
    name = "array"
    description = "Returns a JSON array as structured content."
    output = {"type": "array", "items": {"type": "number"}}

    def handle(self) -> McpResponse:
        return McpResponse.structured([1, 2.5])


class ArrayServer(Server):
    name = "array"
    tools = (ArrayTool,)


async def _legacy_result(raw: bytes) -> dict[str, Any]:
    reply = await Dispatcher(ArrayServer.compiled()).respond(parse_message(raw), legacy_context())
    return json.loads(reply.body)["result"]  # type: ignore[no-any-return]


async def test_modern_tools_keep_non_object_output_schemas_and_results() -> None:
    dispatcher = Dispatcher(ArrayServer.compiled())

    _, listed = await serve(dispatcher, modern_request("tools/list"))
    _, called = await serve(dispatcher, modern_request("tools/call", {"name": "array"}))

    assert listed["result"]["tools"][0]["outputSchema"] == {"type": "array", "items": {"type": "number"}}
    assert called["result"]["structuredContent"] == [1, 2.5]


async def test_legacy_call_result_drops_non_object_structured_content() -> None:
    result = await _legacy_result(b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"array"}}')

    assert result == {"content": [{"type": "text", "text": "[1,2.5]"}], "isError": False}


async def test_legacy_tool_list_drops_non_object_output_schemas() -> None:
    result = await _legacy_result(b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}')

    assert "outputSchema" not in result["tools"][0]


async def test_legacy_sessions_get_invalid_params_instead_of_missing_capability() -> None:
    """2025-11-25 has no -32021: a missing client capability is invalid params there."""
    from django_mcp.dispatcher import Dispatcher
    from django_mcp.dispatcher.codec import parse_message
    from django_mcp.dispatcher.context import CallContext
    from django_mcp.protocol import jsonrpc
    from testproject.conformance.mcp import ConformanceServer

    dispatcher = Dispatcher(ConformanceServer.compiled())
    envelope = parse_message(
        b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"test_missing_capability"}}'
    )
    ctx = CallContext(era="legacy", protocol_version="2025-11-25", client_capabilities={})
    reply = await dispatcher.respond(envelope, ctx)
    assert reply.error is not None
    assert reply.error.code == jsonrpc.INVALID_PARAMS


# ------------------------------------------------- the method table and kernel


def test_every_method_row_names_a_feature_the_capabilities_have() -> None:
    capability_fields = set(dispatch_module.ServerCapabilities.__struct_fields__)
    for name, row in dispatch_module.METHODS.items():
        assert row.name == name
        assert row.eras and row.eras <= {"modern", "legacy"}
        assert row.feature == "" or row.feature in capability_fields, name
        assert row.handler is not None or name == "subscriptions/listen"


@pytest.mark.parametrize(
    ("method", "era"),
    [("ping", "modern"), ("logging/setLevel", "modern"), ("server/discover", "legacy"), ("nope", "modern")],
)
def test_a_method_outside_its_era_is_not_found(dispatcher: Dispatcher, method: str, era: str) -> None:
    with pytest.raises(dispatch_module.MethodNotFound):
        dispatcher.route(method, era)  # type: ignore[arg-type]


async def test_only_input_methods_may_ask_the_client() -> None:
    asking = sorted(name for name, row in dispatch_module.METHODS.items() if row.asks_input)
    assert asking == ["prompts/get", "resources/read", "tools/call"]


async def test_a_dispatcher_given_settings_keeps_them_through_setting_changes(settings: Any) -> None:
    fixed = McpSettings(limits=Limits(max_response_size=100))
    dispatcher = Dispatcher(ConformanceServer.compiled(), settings=fixed)
    settings.MCP_MAX_RESPONSE_SIZE = 10_000_000

    status, body = await serve(dispatcher, modern_request("tools/list"))

    assert dispatcher.settings is fixed
    assert body["error"]["code"] == jsonrpc.INTERNAL_ERROR  # the list is over 100 bytes


async def test_a_default_dispatcher_rereads_settings_when_they_change(
    dispatcher: Dispatcher, settings: Any
) -> None:
    settings.MCP_MAX_RESPONSE_SIZE = 100

    status, body = await serve(dispatcher, modern_request("tools/list"))

    assert dispatcher.settings.limits.max_response_size == 100
    assert body["error"]["code"] == jsonrpc.INTERNAL_ERROR


def test_the_in_flight_count_is_exact_across_threads() -> None:
    in_flight = InFlight()
    admitted: list[bool] = []
    barrier = threading.Barrier(16)

    def enter() -> None:
        barrier.wait()
        admitted.append(in_flight.enter(10))

    threads = [threading.Thread(target=enter) for _ in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)

    assert (admitted.count(True), in_flight.count) == (10, 10)
    for _ in range(10):
        in_flight.leave()
    assert in_flight.count == 0


async def test_busy_dispatcher_answers_503_without_running_the_method(dispatcher: Dispatcher) -> None:
    dispatcher.settings = dataclasses.replace(dispatcher.settings, queue_timeout=0)
    dispatcher.in_flight = InFlight()
    for _ in range(dispatcher.settings.limits.max_concurrent_requests):
        dispatcher.in_flight.enter(10**6)

    status, body = await serve(dispatcher, modern_request("tools/list"))

    assert (status, body["error"]["code"]) == (503, jsonrpc.INTERNAL_ERROR)


# ------------------------------------------------ hidden looks like unknown


class VaultTool(Tool):
    name = "vault-tool"
    permissions = ("demo.open_vault",)

    def handle(self) -> McpResponse:
        return McpResponse.text("opened")


class VaultPrompt(Prompt):
    name = "vault-prompt"
    permissions = ("demo.open_vault",)
    arguments = (PromptArgument(name="topic"),)

    def handle(self, topic: str) -> McpResponse:
        return McpResponse.text(topic)

    def complete(self, argument: str, value: str) -> list[str]:
        return [value]


class VaultResource(Resource):
    uri = "vault://secret"
    permissions = ("demo.open_vault",)

    def handle(self) -> McpResponse:
        return McpResponse.text("secret")


class VaultTemplate(Resource):
    uri_template = "vault://boxes/{id}"
    permissions = ("demo.open_vault",)

    def handle(self, id: str) -> McpResponse:  # noqa: A002 - the template variable
        return McpResponse.text(id)


class VaultServer(Server):
    name = "vault"
    tools = (VaultTool,)
    prompts = (VaultPrompt,)
    resources = (VaultResource, VaultTemplate)


class PermissionSpy:
    """A logged-in user without permissions who counts permission lookups."""

    is_active = True
    is_authenticated = True
    pk = 7

    def __init__(self) -> None:
        self.ahas_perms = AsyncMock(return_value=False)


def _complete(ref: dict[str, Any]) -> dict[str, Any]:
    return {"ref": ref, "argument": {"name": "topic", "value": "x"}}


@pytest.mark.parametrize(
    ("method", "hidden", "unknown"),
    [
        ("tools/call", {"name": "vault-tool"}, {"name": "no-such-tool"}),
        ("prompts/get", {"name": "vault-prompt", "arguments": {"topic": "x"}}, {"name": "no-such-prompt"}),
        (
            "completion/complete",
            _complete({"type": "ref/prompt", "name": "vault-prompt"}),
            _complete({"type": "ref/prompt", "name": "no-such-prompt"}),
        ),
        (
            "completion/complete",
            _complete({"type": "ref/resource", "uri": "vault://boxes/{id}"}),
            _complete({"type": "ref/resource", "uri": "vault://drawers/{id}"}),
        ),
        ("resources/read", {"uri": "vault://secret"}, {"uri": "other://secret"}),
        ("resources/read", {"uri": "vault://boxes/1"}, {"uri": "other://boxes/1"}),
    ],
    ids=["tool", "prompt", "prompt-completion", "template-completion", "resource", "template"],
)
async def test_unknown_names_cost_the_permission_lookup_of_hidden_ones(
    method: str, hidden: dict[str, Any], unknown: dict[str, Any]
) -> None:
    dispatcher = Dispatcher(VaultServer.compiled())
    answers = []
    for params in (hidden, unknown):
        user = PermissionSpy()
        status, body = await serve(dispatcher, modern_request(method, params), user=user)
        assert user.ahas_perms.await_count == 1, params
        answers.append((status, body["error"]["code"]))

    assert answers == [(200, jsonrpc.INVALID_PARAMS)] * 2


async def test_unknown_names_cost_nothing_for_anonymous_callers_or_unguarded_servers() -> None:
    user = PermissionSpy()
    user.is_active = False  # type: ignore[misc]

    _, hidden = await serve(VaultServer, modern_request("tools/call", {"name": "vault-tool"}), user=user)
    _, unknown = await serve(
        ConformanceServer, modern_request("tools/call", {"name": "nope"}), user=PermissionSpy()
    )

    assert hidden["error"]["code"] == unknown["error"]["code"] == jsonrpc.INVALID_PARAMS
    assert user.ahas_perms.await_count == 0


async def test_visible_tool_applies_the_tools_call_rule(settings: Any) -> None:
    from django_mcp.dispatcher.tools import visible_tool
    from django_mcp.request import McpRequest

    compiled = VaultServer.compiled()

    async def visible(name: Any, user: Any) -> Any:
        envelope = parse_message(msgspec.json.encode(modern_request("tools/call", {"name": name})))
        request = McpRequest.of(compiled, envelope, modern_context(envelope, user=user))
        return await visible_tool(compiled, name, request)

    permitted = PermissionSpy()
    permitted.ahas_perms.return_value = True

    assert await visible("vault-tool", permitted) is VaultServer.compiled().tools["vault-tool"]
    assert await visible("vault-tool", PermissionSpy()) is None
    assert await visible("no-such-tool", permitted) is None
    for name in ([], {}, 1, None):
        assert await visible(name, permitted) is None
