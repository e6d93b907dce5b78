"""Every ``MCP_*`` limit, exceeded over the HTTP wire.

Each limit is shrunk with the ``settings`` fixture and exceeded with a real
request to the conformance fixture server at ``/conformance/mcp``: the
answer is always a JSON-RPC error object with a specific status, never a
500 or an HTML page.
"""

from __future__ import annotations

import json
import math
from typing import Any
from unittest.mock import ANY

import pytest

from django_mcp.protocol import jsonrpc
from tests.wire import modern_headers, modern_meta, modern_request, tool_request

URL = "/conformance/mcp"
TOOL_COUNT = 34  # tools of testproject.conformance.mcp.ConformanceServer


async def post(client: Any, body: dict[str, Any]) -> Any:
    return await client.post(
        URL, data=json.dumps(body), content_type="application/json", headers=modern_headers(body)
    )


async def call(client: Any, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    response = await post(client, body)
    assert response["Content-Type"] == "application/json"
    return response.status_code, json.loads(response.content)


def error(code: int, request_id: Any = 1) -> dict[str, Any]:
    body: dict[str, Any] = {"jsonrpc": "2.0"}
    if request_id is not None:
        body["id"] = request_id
    body["error"] = {"code": code, "message": ANY}
    return body


async def all_pages(client: Any, method: str, key: str) -> list[dict[str, Any]]:
    """Follow ``nextCursor`` to the end; return every page's result."""
    pages: list[dict[str, Any]] = []
    cursor = None
    for page_number in range(100):  # bounded: more pages than any test needs
        params = {} if cursor is None else {"cursor": cursor}
        status, body = await call(client, modern_request(method, params, request_id=page_number))
        assert status == 200, body
        pages.append(body["result"])
        cursor = body["result"].get("nextCursor")
        if cursor is None:
            return pages
    raise AssertionError("nextCursor chain did not end")


# ------------------------------------------------------- request size


async def test_request_above_max_request_size_is_413_with_a_json_rpc_error(
    async_client: Any, settings: Any
) -> None:
    settings.MCP_MAX_REQUEST_SIZE = 200
    body = tool_request("test_simple_text", {"pad": "x" * 300})

    response = await post(async_client, body)

    assert response.status_code == 413
    assert response["Content-Type"] == "application/json"
    assert json.loads(response.content) == error(jsonrpc.INVALID_REQUEST, None)


async def test_request_exactly_at_max_request_size_is_served(async_client: Any, settings: Any) -> None:
    body = modern_request("tools/list")
    settings.MCP_MAX_REQUEST_SIZE = len(json.dumps(body).encode())

    status, _ = await call(async_client, body)

    assert status == 200


async def test_request_above_django_upload_limit_is_413_not_an_html_400(
    async_client: Any, settings: Any
) -> None:
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 100
    body = tool_request("test_simple_text", {"pad": "x" * 300})

    response = await post(async_client, body)

    assert response.status_code == 413
    assert json.loads(response.content) == error(jsonrpc.INVALID_REQUEST, None)


# ------------------------------------------------------ response size


@pytest.mark.parametrize(
    ("method", "params"),
    [
        ("tools/call", {"name": "test_image_content"}),
        ("tools/list", {}),
        ("resources/read", {"uri": "test://static-binary"}),
    ],
)
async def test_response_above_max_response_size_is_an_internal_error(
    async_client: Any, settings: Any, method: str, params: dict[str, Any]
) -> None:
    settings.MCP_MAX_RESPONSE_SIZE = 200

    status, body = await call(async_client, modern_request(method, params, request_id="big"))

    assert (status, body) == (200, error(jsonrpc.INTERNAL_ERROR, "big"))


async def test_response_size_error_on_a_stream_is_the_final_event(async_client: Any, settings: Any) -> None:
    settings.MCP_MAX_RESPONSE_SIZE = 100
    body = tool_request("test_tool_with_progress", meta=modern_meta(progressToken="p"))

    response = await post(async_client, body)
    raw = b"".join([chunk async for chunk in response.streaming_content])
    messages = [json.loads(line[5:]) for line in raw.decode().splitlines() if line.startswith("data:")]

    assert [m.get("method") for m in messages[:-1]] == ["notifications/progress"] * 3
    assert messages[-1] == error(jsonrpc.INTERNAL_ERROR)


async def test_small_response_under_the_limit_is_served(async_client: Any, settings: Any) -> None:
    settings.MCP_MAX_RESPONSE_SIZE = 400

    status, body = await call(async_client, tool_request("test_simple_text"))

    assert status == 200
    assert body["result"]["isError"] is False


# ---------------------------------------------------------- metadata


async def test_result_meta_above_max_metadata_size_is_an_internal_error(
    async_client: Any, settings: Any
) -> None:
    settings.MCP_MAX_METADATA_SIZE = 10  # bytes: smaller than the server-info _meta

    status, body = await call(async_client, tool_request("test_simple_text"))

    assert (status, body) == (200, error(jsonrpc.INTERNAL_ERROR))


async def test_result_meta_within_max_metadata_size_is_served(async_client: Any, settings: Any) -> None:
    settings.MCP_MAX_METADATA_SIZE = 200

    status, body = await call(async_client, modern_request("server/discover"))

    assert status == 200
    assert "io.modelcontextprotocol/serverInfo" in body["result"]["_meta"]


# ------------------------------------------------------------- pages


@pytest.mark.parametrize(("default", "maximum", "size"), [(4, 100, 4), (50, 3, 3), (1, 1, 1)])
async def test_page_size_settings_split_tools_list(
    async_client: Any, settings: Any, default: int, maximum: int, size: int
) -> None:
    settings.MCP_DEFAULT_PAGE_SIZE = default
    settings.MCP_MAX_PAGE_SIZE = maximum

    pages = await all_pages(async_client, "tools/list", "tools")

    assert len(pages) == math.ceil(TOOL_COUNT / size)
    assert all(len(page["tools"]) == size for page in pages[:-1])
    assert 1 <= len(pages[-1]["tools"]) <= size
    assert all("nextCursor" in page for page in pages[:-1])
    assert "nextCursor" not in pages[-1]
    assert len({page["cacheScope"] for page in pages}) == 1


async def test_pages_concatenate_to_the_unpaged_list_in_order(async_client: Any, settings: Any) -> None:
    _, whole = await call(async_client, modern_request("tools/list"))
    settings.MCP_DEFAULT_PAGE_SIZE = 5

    pages = await all_pages(async_client, "tools/list", "tools")

    names = [tool["name"] for page in pages for tool in page["tools"]]
    assert names == [tool["name"] for tool in whole["result"]["tools"]]
    assert len(names) == len(set(names)) == TOOL_COUNT
    assert names[0] == "test_simple_text"


async def test_paging_is_deterministic(async_client: Any, settings: Any) -> None:
    settings.MCP_DEFAULT_PAGE_SIZE = 3

    first = await all_pages(async_client, "tools/list", "tools")
    second = await all_pages(async_client, "tools/list", "tools")
    replay_cursor = first[0]["nextCursor"]
    _, replayed = await call(async_client, modern_request("tools/list", {"cursor": replay_cursor}))
    _, replayed_again = await call(async_client, modern_request("tools/list", {"cursor": replay_cursor}))

    assert first == second
    assert replayed["result"] == replayed_again["result"] == first[1]


@pytest.mark.parametrize(
    ("method", "key", "count"),
    [
        ("prompts/list", "prompts", 5),
        # The three declared resources and the release-notes skill's SKILL.md.
        ("resources/list", "resources", 4),
        ("resources/templates/list", "resourceTemplates", 1),
    ],
)
async def test_every_list_is_paged(
    async_client: Any, settings: Any, method: str, key: str, count: int
) -> None:
    settings.MCP_DEFAULT_PAGE_SIZE = 2

    pages = await all_pages(async_client, method, key)

    assert sum(len(page[key]) for page in pages) == count
    assert len(pages) == math.ceil(count / 2)


async def test_default_page_holds_the_whole_small_catalog(async_client: Any) -> None:
    status, body = await call(async_client, modern_request("tools/list"))

    assert status == 200
    assert len(body["result"]["tools"]) == TOOL_COUNT
    assert "nextCursor" not in body["result"]


async def test_cursor_survives_a_page_size_change(async_client: Any, settings: Any) -> None:
    _, whole = await call(async_client, modern_request("tools/list"))
    settings.MCP_DEFAULT_PAGE_SIZE = 10
    _, first = await call(async_client, modern_request("tools/list"))
    settings.MCP_DEFAULT_PAGE_SIZE = 20

    status, body = await call(
        async_client, modern_request("tools/list", {"cursor": first["result"]["nextCursor"]})
    )

    assert status == 200
    names = [tool["name"] for tool in body["result"]["tools"]]
    assert names == [tool["name"] for tool in whole["result"]["tools"][10:30]]


# ------------------------------------------------------- concurrency


async def test_requests_beyond_max_concurrent_requests_get_a_busy_error(
    async_client: Any, settings: Any
) -> None:
    settings.MCP_MAX_CONCURRENT_REQUESTS = 0

    response = await post(async_client, tool_request("test_simple_text", request_id=8))

    assert response.status_code == 503
    assert response["Retry-After"]
    assert response["Content-Type"] == "application/json"
    assert json.loads(response.content) == error(jsonrpc.INTERNAL_ERROR, 8)


async def test_busy_limit_counts_requests_in_flight_and_frees_them(async_client: Any, settings: Any) -> None:
    settings.MCP_MAX_CONCURRENT_REQUESTS = 1
    settings.MCP_QUEUE_TIMEOUT = 0  # refuse at once instead of waiting for the slot
    # The progress tool answers with a stream once its first notification is
    # out; it is still running (in flight) until the stream is read.
    slow = await post(
        async_client,
        tool_request("test_tool_with_progress", meta=modern_meta(progressToken="p")),
    )
    assert slow["Content-Type"].startswith("text/event-stream")

    busy_status, busy = await call(async_client, modern_request("tools/list", request_id=2))
    raw = b"".join([chunk async for chunk in slow.streaming_content])
    after_status, _ = await call(async_client, modern_request("tools/list", request_id=3))

    assert (busy_status, busy) == (503, error(jsonrpc.INTERNAL_ERROR, 2))
    assert b'"result"' in raw
    assert after_status == 200
