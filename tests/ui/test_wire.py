"""MCP Apps on the wire, every way to serve: the view (ASGI, WSGI), ``McpASGIApp``, ``McpWSGIApp``, STDIO.

The server declares ``io.modelcontextprotocol/ui`` in ``server/discover``
and ``initialize``; ``tools/list`` carries each linked tool's ``_meta.ui``;
``resources/read`` of the App answers the page as
``text/html;profile=mcp-app`` with its ``_meta.ui``; a tool answers text
whether or not the client renders Apps, and tells which from the request
(2026-07-28) or the session (2025-11-25).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from typing import Any

import pytest
from django.test import AsyncClient
from django.urls import path

from django_mcp import AppResource, Csp, McpRequest, McpResponse, Server, Tool
from django_mcp.transports.stdio import serve_stdio
from tests import direct_clients
from tests.wire import ACCEPT, CLIENT_INFO, modern_headers, modern_meta, modern_request, tool_request

URL = "/apps/mcp"
UI = "io.modelcontextprotocol/ui"
MIME = "text/html;profile=mcp-app"
APPS: dict[str, Any] = {"extensions": {UI: {"mimeTypes": [MIME]}}}
LEGACY = "2025-11-25"


class LoansApp(AppResource):
    """The reader's loans."""

    template_name = "shelf/apps/loans.html"
    csp = Csp(connect_domains=("https://api.example.com",))
    permissions = ("clipboard_write",)
    prefers_border = True

    def get_context_data(self) -> dict[str, Any]:
        return {**super().get_context_data(), "heading": "Your loans"}


class LoansTool(Tool):
    """List the reader's loans."""

    app = LoansApp

    def handle(self, request: McpRequest) -> list[McpResponse]:
        return [
            McpResponse.text("1 loan: Dune, due 2026-12-20."),
            McpResponse.structured({"loans": [{"title": "Dune"}], "inApp": request.supports_apps}),
        ]


class RefreshLoansTool(Tool):
    """Reload the loans (the App's refresh button)."""

    app = LoansApp
    app_visibility = ("app",)

    def handle(self) -> McpResponse:
        return McpResponse.text("Reloaded.")


class AppsServer(Server):
    name = "apps"
    tools = (LoansTool, RefreshLoansTool)


urlpatterns = [path("apps/mcp", AppsServer.as_view())]

SERVED_BY = {
    "view-asgi": AsyncClient,
    "fast-asgi": direct_clients.ASGIAppClient,
    "fast-wsgi": direct_clients.WSGIAppClient,
    "view-wsgi": direct_clients.PlainWSGIClient,
}


@pytest.fixture(params=sorted(SERVED_BY))
def client(request: pytest.FixtureRequest, settings: Any) -> Any:
    """Return a test client serving ``AppsServer`` one way (each test runs every way)."""
    settings.ROOT_URLCONF = __name__
    return SERVED_BY[request.param]()


async def _modern(
    client: Any, method: str, params: Mapping[str, Any] | None = None, *, capabilities: Any = None
) -> dict[str, Any]:
    body = modern_request(method, params, meta=modern_meta(capabilities))
    response = await client.post(
        URL, data=json.dumps(body), content_type="application/json", headers=modern_headers(body)
    )
    assert response.status_code == 200, response.content
    answer: dict[str, Any] = json.loads(response.content)
    return answer


async def _call(client: Any, name: str, *, capabilities: Any = None) -> dict[str, Any]:
    body = tool_request(name, {}, meta=modern_meta(capabilities))
    response = await client.post(
        URL, data=json.dumps(body), content_type="application/json", headers=modern_headers(body)
    )
    assert response.status_code == 200, response.content
    answer: dict[str, Any] = json.loads(response.content)
    return answer["result"]


async def _legacy_session(client: Any, capabilities: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    body = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {"protocolVersion": LEGACY, "capabilities": dict(capabilities), "clientInfo": CLIENT_INFO},
    }
    response = await client.post(
        URL, data=json.dumps(body), content_type="application/json", headers={"Accept": ACCEPT}
    )
    assert response.status_code == 200, response.content
    session = str(response["Mcp-Session-Id"])
    headers = {"Accept": ACCEPT, "Mcp-Session-Id": session, "MCP-Protocol-Version": LEGACY}
    notified = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    sent = await client.post(URL, data=json.dumps(notified), content_type="application/json", headers=headers)
    assert sent.status_code == 202
    return session, json.loads(response.content)["result"]


async def _legacy(client: Any, session: str, method: str, params: Mapping[str, Any]) -> dict[str, Any]:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": dict(params)}
    headers = {"Accept": ACCEPT, "Mcp-Session-Id": session, "MCP-Protocol-Version": LEGACY}
    response = await client.post(URL, data=json.dumps(body), content_type="application/json", headers=headers)
    assert response.status_code == 200, response.content
    answer: dict[str, Any] = json.loads(response.content)
    return answer["result"]


async def test_discover_declares_the_extension_with_the_mime_type_served(client: Any) -> None:
    result = (await _modern(client, "server/discover"))["result"]

    assert result["capabilities"]["extensions"] == {UI: {"mimeTypes": [MIME]}}
    assert "resources" in result["capabilities"]


async def test_tools_list_carries_each_linked_tools_ui_meta(client: Any) -> None:
    tools = (await _modern(client, "tools/list", capabilities=APPS))["result"]["tools"]

    assert {tool["name"]: tool["_meta"] for tool in tools} == {
        "loans": {"ui": {"resourceUri": "ui://apps/loans", "visibility": ["model", "app"]}},
        "refresh-loans": {"ui": {"resourceUri": "ui://apps/loans", "visibility": ["app"]}},
    }


async def test_reading_the_app_answers_the_html_page_with_its_ui_meta(client: Any) -> None:
    result = (await _modern(client, "resources/read", {"uri": "ui://apps/loans"}, capabilities=APPS))[
        "result"
    ]

    [content] = result["contents"]
    page = content.pop("text")
    assert content == {
        "uri": "ui://apps/loans",
        "mimeType": MIME,
        "_meta": {
            "ui": {
                "csp": {"connectDomains": ["https://api.example.com"]},
                "permissions": {"clipboardWrite": {}},
                "prefersBorder": True,
            }
        },
    }
    assert page.startswith("<!DOCTYPE html>")
    assert "<h1>Your loans</h1>" in page
    assert "window.mcpApp" in page  # the bridge, inlined
    assert (result["ttlMs"], result["cacheScope"]) == (600_000, "public")


async def test_an_app_only_tool_is_still_served_to_any_client(client: Any) -> None:
    # SEP-1865 "Visibility": hosts hide it from the model; the server serves it.
    result = await _call(client, "refresh-loans", capabilities={})

    assert result["content"] == [{"type": "text", "text": "Reloaded."}]


async def test_the_unlisted_app_is_not_in_resources_list(client: Any) -> None:
    result = (await _modern(client, "resources/list"))["result"]

    assert result["resources"] == []


async def test_a_client_without_apps_gets_the_text_fallback(client: Any) -> None:
    plain = await _call(client, "loans", capabilities={})
    host = await _call(client, "loans", capabilities=APPS)

    assert plain["content"][0] == {"type": "text", "text": "1 loan: Dune, due 2026-12-20."}
    assert plain["structuredContent"] == {"loans": [{"title": "Dune"}], "inApp": False}
    assert host["content"][0] == plain["content"][0]
    assert host["structuredContent"]["inApp"] is True


async def test_a_legacy_session_declares_and_reads_the_extension(client: Any) -> None:
    session, initialized = await _legacy_session(client, APPS)
    assert initialized["capabilities"]["extensions"] == {UI: {"mimeTypes": [MIME]}}
    plain_session, _ = await _legacy_session(client, {})

    tools = (await _legacy(client, session, "tools/list", {}))["tools"]
    host = await _legacy(client, session, "tools/call", {"name": "loans", "arguments": {}})
    plain = await _legacy(client, plain_session, "tools/call", {"name": "loans", "arguments": {}})
    read = await _legacy(client, session, "resources/read", {"uri": "ui://apps/loans"})

    assert tools[0]["_meta"] == {"ui": {"resourceUri": "ui://apps/loans", "visibility": ["model", "app"]}}
    assert (host["structuredContent"]["inApp"], plain["structuredContent"]["inApp"]) == (True, False)
    assert plain["content"][0] == {"type": "text", "text": "1 loan: Dune, due 2026-12-20."}
    assert read["contents"][0]["mimeType"] == MIME
    assert read["contents"][0]["_meta"]["ui"]["prefersBorder"] is True


# ------------------------------------------------------------------ STDIO


async def _over_stdio(*messages: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Send ``messages`` to ``AppsServer`` over STDIO; return every answer, in order."""
    reader = asyncio.StreamReader()
    written: list[dict[str, Any]] = []

    async def write(line: bytes) -> None:
        written.append(json.loads(line))

    for message in messages:
        reader.feed_data(json.dumps(message).encode() + b"\n")
    reader.feed_eof()
    await asyncio.wait_for(serve_stdio(AppsServer, reader=reader, write=write, grace=1.0), 10)
    return sorted(written, key=lambda answer: str(answer.get("id")))


async def test_over_stdio_the_app_is_declared_listed_read_and_falls_back_to_text() -> None:
    discover, listed, read, plain, host = await _over_stdio(
        modern_request("server/discover", request_id="1"),
        modern_request("tools/list", request_id="2"),
        modern_request("resources/read", {"uri": "ui://apps/loans"}, request_id="3"),
        tool_request("loans", {}, request_id="4", meta=modern_meta({})),
        tool_request("loans", {}, request_id="5", meta=modern_meta(APPS)),
    )

    assert discover["result"]["capabilities"]["extensions"] == {UI: {"mimeTypes": [MIME]}}
    assert listed["result"]["tools"][0]["_meta"]["ui"]["resourceUri"] == "ui://apps/loans"
    assert read["result"]["contents"][0]["mimeType"] == MIME
    assert read["result"]["contents"][0]["_meta"]["ui"]["prefersBorder"] is True
    assert plain["result"]["content"][0] == {"type": "text", "text": "1 loan: Dune, due 2026-12-20."}
    assert (plain["result"]["structuredContent"]["inApp"], host["result"]["structuredContent"]["inApp"]) == (
        False,
        True,
    )


async def test_over_stdio_a_legacy_session_reads_the_declaration_from_initialize() -> None:
    initialize = {
        "jsonrpc": "2.0",
        "id": "0",
        "method": "initialize",
        "params": {"protocolVersion": LEGACY, "capabilities": APPS, "clientInfo": CLIENT_INFO},
    }
    call = {"jsonrpc": "2.0", "id": "1", "method": "tools/call", "params": {"name": "loans", "arguments": {}}}

    initialized, called = await _over_stdio(
        initialize, {"jsonrpc": "2.0", "method": "notifications/initialized"}, call
    )

    assert initialized["result"]["capabilities"]["extensions"] == {UI: {"mimeTypes": [MIME]}}
    assert called["result"]["structuredContent"]["inApp"] is True
