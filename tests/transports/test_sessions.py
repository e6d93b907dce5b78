"""The 2025-11-25 wire: ``initialize`` sessions on the same endpoint.

Results carry none of the 2026-07-28 fields (``resultType``, ``ttlMs``,
``cacheScope``, server-info ``_meta``); ``ping`` and ``logging/setLevel``
answer exactly ``{}``; unknown or deleted sessions are 404. The streaming
server-to-client round trip (``elicitation/create`` on the tools/call
stream, answered by a second POST) runs against the live uvicorn server.
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any
from unittest.mock import ANY

import httpx
import pytest

from django_mcp.dispatcher.sessions import LegacySession, PendingRequests
from django_mcp.protocol import jsonrpc

LEGACY = "2025-11-25"
SERVER_INFO = {"name": "django-mcp-conformance", "version": "0.1.0"}
MODERN_ONLY_KEYS = {"resultType", "ttlMs", "cacheScope", "_meta"}


def initialize_body(version: str = LEGACY, capabilities: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": capabilities or {},
            "clientInfo": {"name": "legacy-wire-tests", "version": "1.0.0"},
        },
    }


# ------------------------------------------------------------ handshake


async def test_initialize_opens_a_session_without_modern_fields(wire: Any) -> None:
    response = await wire.post(initialize_body(), drop=("Mcp-Method",))

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    session_id = response["Mcp-Session-Id"]
    assert re.fullmatch(r"[\x21-\x7e]{16,}", session_id)
    assert json.loads(response.content) == {
        "jsonrpc": "2.0",
        "id": 0,
        "result": {
            "protocolVersion": LEGACY,
            "capabilities": {
                "tools": {"listChanged": True},
                "resources": {"listChanged": True, "subscribe": True},
                "prompts": {"listChanged": True},
                "completions": {},
                "logging": {},
            },
            "serverInfo": SERVER_INFO,
        },
    }


async def test_initialize_with_harness_headers_is_still_a_handshake(wire: Any) -> None:
    response = await wire.post(
        initialize_body(), headers={"MCP-Protocol-Version": LEGACY, "Mcp-Method": "initialize"}
    )

    assert response.status_code == 200
    assert "Mcp-Session-Id" in response


@pytest.mark.parametrize(
    ("asked", "agreed"), [("2025-06-18", "2025-06-18"), ("2024-11-05", LEGACY), ("9999", LEGACY)]
)
async def test_initialize_negotiates_a_legacy_version(wire: Any, asked: str, agreed: str) -> None:
    response = await wire.post(initialize_body(asked), drop=("Mcp-Method",))

    assert json.loads(response.content)["result"]["protocolVersion"] == agreed


async def test_session_ids_are_unique(wire: Any) -> None:
    first = await wire.initialize()
    second = await wire.initialize()

    assert first != second


async def test_initialize_without_capabilities_is_invalid_params(wire: Any) -> None:
    body = initialize_body()
    del body["params"]["capabilities"]

    response = await wire.post(body, drop=("Mcp-Method",))

    assert "Mcp-Session-Id" not in response
    assert json.loads(response.content) == {
        "jsonrpc": "2.0",
        "id": 0,
        "error": {"code": jsonrpc.INVALID_PARAMS, "message": ANY},
    }


async def test_initialized_notification_is_accepted_with_202(wire: Any) -> None:
    session_id = await wire.initialize()

    response = await wire.post(
        {"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=wire.session_headers(session_id)
    )

    assert response.status_code == 202
    assert response.content == b""


async def test_second_initialize_in_a_session_is_refused(wire: Any) -> None:
    session_id = await wire.initialize()

    status, body = await wire.legacy(session_id, "initialize", initialize_body()["params"])

    assert status == 400
    assert body["error"]["code"] == jsonrpc.INVALID_REQUEST


async def test_request_without_session_or_meta_is_400(wire: Any) -> None:
    response = await wire.post({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}, drop=("Mcp-Method",))

    assert response.status_code == 400
    assert json.loads(response.content) == {
        "jsonrpc": "2.0",
        "id": 3,
        "error": {"code": jsonrpc.INVALID_REQUEST, "message": ANY},
    }


async def test_legacy_version_header_without_session_or_meta_is_400(wire: Any) -> None:
    response = await wire.post(
        {"jsonrpc": "2.0", "id": 3, "method": "tools/list"}, headers={"MCP-Protocol-Version": LEGACY}
    )

    assert response.status_code == 400


# -------------------------------------------------------------- results


async def test_list_results_carry_no_modern_fields(wire: Any) -> None:
    session_id = await wire.initialize()

    for method in ("tools/list", "prompts/list", "resources/list", "resources/templates/list"):
        status, body = await wire.legacy(session_id, method)
        assert status == 200
        assert not MODERN_ONLY_KEYS & set(body["result"]), method


async def test_tool_call_result_carries_no_modern_fields(wire: Any) -> None:
    session_id = await wire.initialize()

    status, body = await wire.legacy(session_id, "tools/call", {"name": "test_simple_text", "arguments": {}})

    assert (status, body) == (
        200,
        {
            "jsonrpc": "2.0",
            "id": 1,
            "result": {
                "content": [{"type": "text", "text": "This is a simple text response for testing."}],
                "isError": False,
            },
        },
    )


async def test_read_result_carries_no_modern_fields(wire: Any) -> None:
    session_id = await wire.initialize()

    _, body = await wire.legacy(session_id, "resources/read", {"uri": "test://static-text"})

    assert body["result"] == {
        "contents": [
            {
                "uri": "test://static-text",
                "text": "This is the content of the static text resource.",
                "mimeType": "text/plain",
            }
        ]
    }


@pytest.mark.parametrize(
    ("method", "params"),
    [
        ("ping", None),
        ("logging/setLevel", {"level": "info"}),
        ("resources/subscribe", {"uri": "test://watched-resource"}),
        ("resources/unsubscribe", {"uri": "test://watched-resource"}),
    ],
)
async def test_session_utilities_answer_exactly_an_empty_object(
    wire: Any, method: str, params: dict[str, Any] | None
) -> None:
    session_id = await wire.initialize()

    status, body = await wire.legacy(session_id, method, params, request_id="u-1")

    assert (status, body) == (200, {"jsonrpc": "2.0", "id": "u-1", "result": {}})


async def test_set_level_with_an_unknown_level_is_invalid_params(wire: Any) -> None:
    session_id = await wire.initialize()

    _, body = await wire.legacy(session_id, "logging/setLevel", {"level": "loud"})

    assert body == {"jsonrpc": "2.0", "id": 1, "error": {"code": jsonrpc.INVALID_PARAMS, "message": ANY}}


async def test_set_level_makes_later_calls_stream_log_messages(wire: Any) -> None:
    session_id = await wire.initialize()
    await wire.legacy(session_id, "logging/setLevel", {"level": "info"})

    response, messages = await wire.stream(
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "test_tool_with_logging"}},
        headers=wire.session_headers(session_id),
        drop=("Mcp-Method", "Mcp-Name"),
    )

    assert response["Content-Type"].startswith("text/event-stream")
    assert [m.get("method") for m in messages] == ["notifications/message"] * 3 + [None]
    assert not MODERN_ONLY_KEYS & set(messages[-1]["result"])


async def test_legacy_progress_is_streamed(wire: Any) -> None:
    session_id = await wire.initialize()

    response, messages = await wire.stream(
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "test_tool_with_progress", "_meta": {"progressToken": "p"}},
        },
        headers=wire.session_headers(session_id),
        drop=("Mcp-Method", "Mcp-Name"),
    )

    assert [m.get("method") for m in messages] == ["notifications/progress"] * 3 + [None]


async def test_resource_not_found_uses_the_legacy_code(wire: Any) -> None:
    session_id = await wire.initialize()

    status, body = await wire.legacy(session_id, "resources/read", {"uri": "test://nope"})

    assert (status, body) == (
        200,
        {
            "jsonrpc": "2.0",
            "id": 1,
            "error": {
                "code": jsonrpc.LEGACY_RESOURCE_NOT_FOUND,
                "message": ANY,
                "data": {"uri": "test://nope"},
            },
        },
    )


@pytest.mark.parametrize("method", ["server/discover", "subscriptions/listen", "unknown/method"])
async def test_modern_only_and_unknown_methods_are_not_found_in_a_session(wire: Any, method: str) -> None:
    session_id = await wire.initialize()

    _, body = await wire.legacy(session_id, method, {})

    assert body == {"jsonrpc": "2.0", "id": 1, "error": {"code": jsonrpc.METHOD_NOT_FOUND, "message": ANY}}


async def test_client_response_post_is_accepted_with_202(wire: Any) -> None:
    session_id = await wire.initialize()

    response = await wire.post(
        {"jsonrpc": "2.0", "id": "nobody-asked", "result": {}}, headers=wire.session_headers(session_id)
    )

    assert response.status_code == 202


async def test_unsupported_version_header_in_a_session_is_400(wire: Any) -> None:
    session_id = await wire.initialize()

    response = await wire.post(
        {"jsonrpc": "2.0", "id": 1, "method": "ping"},
        headers={**wire.session_headers(session_id), "MCP-Protocol-Version": "1999-01-01"},
    )

    assert response.status_code == 400


# ------------------------------------------------------------- lifetime


async def test_unknown_session_is_404(wire: Any) -> None:
    response = await wire.post(
        {"jsonrpc": "2.0", "id": 1, "method": "ping"}, headers=wire.session_headers("no-such-session")
    )

    assert response.status_code == 404
    assert json.loads(response.content) == {
        "jsonrpc": "2.0",
        "id": 1,
        "error": {"code": jsonrpc.INVALID_REQUEST, "message": ANY},
    }


async def test_delete_ends_the_session(wire: Any, async_client: Any) -> None:
    session_id = await wire.initialize()

    deleted = await async_client.delete("/conformance/mcp", headers={"Mcp-Session-Id": session_id})
    after = await wire.post(
        {"jsonrpc": "2.0", "id": 1, "method": "ping"}, headers=wire.session_headers(session_id)
    )
    again = await async_client.delete("/conformance/mcp", headers={"Mcp-Session-Id": session_id})

    assert 200 <= deleted.status_code < 300
    assert after.status_code == 404
    assert again.status_code == 404


async def test_get_of_an_unknown_session_is_404(async_client: Any) -> None:
    response = await async_client.get(
        "/conformance/mcp", headers={"Mcp-Session-Id": "no-such-session", "Accept": "text/event-stream"}
    )

    assert response.status_code == 404


async def test_get_without_accepting_sse_is_406(wire: Any, async_client: Any) -> None:
    session_id = await wire.initialize()

    response = await async_client.get(
        "/conformance/mcp", headers={"Mcp-Session-Id": session_id, "Accept": "application/json"}
    )

    assert response.status_code == 406


def test_wsgi_get_of_a_session_is_405(client: Any) -> None:
    body = initialize_body()
    started = client.post(
        "/conformance/mcp",
        data=json.dumps(body),
        content_type="application/json",
        headers={"Accept": "application/json"},
    )

    response = client.get(
        "/conformance/mcp",
        headers={"Mcp-Session-Id": started["Mcp-Session-Id"], "Accept": "text/event-stream"},
    )

    assert response.status_code == 405


async def test_session_of_another_server_is_unknown() -> None:
    session = await LegacySession.create(
        server="other.Server", version=LEGACY, capabilities={}, client_info=None
    )

    assert (
        await LegacySession.load(session.id, server="testproject.conformance.mcp.ConformanceServer") is None
    )
    assert (await LegacySession.load(session.id, server="other.Server")) == session


async def test_pending_requests_resolve_only_their_own_session() -> None:
    pending = PendingRequests()
    future = pending.expect("s1", "r1")

    assert pending.resolve("s2", "r1", result={}) is False
    assert pending.resolve("s1", "r1", result={"ok": True}) is True
    assert await future == {"ok": True}
    assert pending.resolve("s1", "r1", result={}) is False


# ------------------------------------------------ streaming round trip (live)

WAIT = 10.0  # seconds: upper bound of every live wait


async def _messages(lines: Any) -> Any:
    async for line in lines:
        if line.startswith("data:") and line[5:].strip():
            yield json.loads(line[5:])


async def _live_initialize(
    client: httpx.AsyncClient, url: str, capabilities: dict[str, Any]
) -> dict[str, str]:
    response = await client.post(
        url,
        json=initialize_body(capabilities=capabilities),
        headers={"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": LEGACY},
    )
    assert response.status_code == 200
    headers = {
        "Accept": "application/json, text/event-stream",
        "Mcp-Session-Id": response.headers["mcp-session-id"],
        "MCP-Protocol-Version": LEGACY,
    }
    initialized = await client.post(
        url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers
    )
    assert initialized.status_code == 202
    return headers


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            {"result": {"action": "accept", "content": {"username": "ada", "email": "ada@example.com"}}},
            {
                "content": [
                    {
                        "type": "text",
                        "text": "User response: action=accept, "
                        'content={"username":"ada","email":"ada@example.com"}',
                    }
                ],
                "isError": False,
            },
        ),
        ({"error": {"code": -1, "message": "user closed the dialog"}}, None),
    ],
)
async def test_legacy_elicitation_round_trip_over_the_tool_stream(
    live_server_url: str, wire_schema: Any, answer: dict[str, Any], expected: dict[str, Any] | None
) -> None:
    url = f"{live_server_url}/conformance/mcp"
    async with httpx.AsyncClient(timeout=WAIT) as client:
        headers = await _live_initialize(client, url, {"elicitation": {}})
        call = {
            "jsonrpc": "2.0",
            "id": 5,
            "method": "tools/call",
            "params": {"name": "test_elicitation", "arguments": {"message": "Who are you?"}},
        }

        async def run() -> tuple[dict[str, Any], dict[str, Any]]:
            async with client.stream("POST", url, json=call, headers=headers) as stream:
                assert stream.status_code == 200
                assert stream.headers["content-type"].startswith("text/event-stream")
                messages = _messages(stream.aiter_lines())
                asked = await anext(messages)
                assert asked["method"] == "elicitation/create"
                assert asked["params"]["message"] == "Who are you?"
                assert set(asked["params"]["requestedSchema"]["properties"]) == {"username", "email"}
                reply = await client.post(
                    url, json={"jsonrpc": "2.0", "id": asked["id"], **answer}, headers=headers
                )
                assert reply.status_code == 202
                return asked, await anext(messages)

        asked, final = await asyncio.wait_for(run(), WAIT)

    wire_schema.record(asked, era="legacy")
    wire_schema.record(final, era="legacy", method="tools/call")
    assert isinstance(asked["id"], str | int)
    assert final["id"] == 5
    if expected is None:
        assert final["error"]["code"] == jsonrpc.INTERNAL_ERROR
    else:
        assert final["result"] == expected


async def test_legacy_get_stream_delivers_list_changes_without_subscription_ids(
    live_server_url: str, wire_schema: Any
) -> None:
    url = f"{live_server_url}/conformance/mcp"
    async with httpx.AsyncClient(timeout=WAIT) as client:
        headers = await _live_initialize(client, url, {})

        async def run() -> dict[str, Any]:
            get_headers = {**headers, "Accept": "text/event-stream"}
            async with client.stream("GET", url, headers=get_headers) as stream:
                assert stream.status_code == 200
                assert stream.headers["content-type"].startswith("text/event-stream")
                lines = stream.aiter_lines()
                # The first line is a comment sent once the stream listens.
                assert (await anext(lines)).startswith(":")
                trigger = {
                    "jsonrpc": "2.0",
                    "id": 9,
                    "method": "tools/call",
                    "params": {"name": "test_trigger_tool_change", "arguments": {}},
                }
                called = await client.post(url, json=trigger, headers=headers)
                assert called.status_code == 200
                return await anext(_messages(lines))

        changed = await asyncio.wait_for(run(), WAIT)

    wire_schema.record(changed, era="legacy")
    assert changed == {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}


async def test_each_request_of_a_session_renews_its_idle_timeout(settings) -> None:  # type: ignore[no-untyped-def]
    from unittest import mock

    from django_mcp.dispatcher.sessions import LegacySession

    session = await LegacySession.create(
        server="s", version="2025-11-25", capabilities={}, client_info=None, timeout=123
    )
    cache = LegacySession._cache()
    with mock.patch.object(cache, "atouch", wraps=cache.atouch) as touch:
        assert await LegacySession.load(session.id, server="s", timeout=123) == session
    touch.assert_awaited_once_with("django_mcp:session:" + session.id, 123)
