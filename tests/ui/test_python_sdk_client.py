"""The official MCP Python SDK client (``mcp``) lists an App tool and reads its page.

The SDK client speaks to ``McpASGIApp`` in process, through an ``httpx2``
ASGI transport (no socket), on both eras: ``mode="auto"`` discovers and
adopts 2026-07-28, ``mode="legacy"`` opens a 2025-11-25 session. The client
declares the extension with the SDK's ``advertise()``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx2
import mcp_types as types
import pytest
from django.core.asgi import get_asgi_application
from django.urls import path
from mcp import Client
from mcp.client.extension import advertise
from mcp.client.streamable_http import streamable_http_client

from django_mcp import AppResource, Csp, McpRequest, McpResponse, Server, Tool
from django_mcp.asgi import McpASGIApp

UI = "io.modelcontextprotocol/ui"
MIME = "text/html;profile=mcp-app"
TIMEOUT = 30


class ShelfApp(AppResource):
    """What is on the shelf."""

    template_name = "shelf/apps/loans.html"
    csp = Csp(resource_domains=("https://covers.example.com",))
    prefers_border = False

    def get_context_data(self) -> dict[str, Any]:
        return {**super().get_context_data(), "heading": "On the shelf"}


class ShelfTool(Tool):
    """List the books on the shelf."""

    app = ShelfApp

    def handle(self, request: McpRequest) -> list[McpResponse]:
        return [
            McpResponse.text("2 books: Dune, Hyperion."),
            McpResponse.structured({"books": ["Dune", "Hyperion"], "inApp": request.supports_apps}),
        ]


class ShelfServer(Server):
    name = "shelf-apps"
    tools = (ShelfTool,)


urlpatterns = [path("shelf/mcp", ShelfServer.as_view())]


@pytest.fixture(autouse=True)
def _urls(settings: Any) -> None:
    settings.ROOT_URLCONF = __name__


@asynccontextmanager
async def connect(mode: str, *, apps: bool) -> AsyncIterator[Client]:
    """Connect an SDK client to ``ShelfServer`` in process."""
    app = McpASGIApp(get_asgi_application())
    http = httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app), base_url="http://testserver")
    extensions = [advertise(UI, {"mimeTypes": [MIME]})] if apps else []
    async with http:
        transport = streamable_http_client("http://testserver/shelf/mcp", http_client=http)
        client = Client(transport, mode=mode, read_timeout_seconds=TIMEOUT, extensions=extensions)
        async with client:
            yield client


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_the_sdk_lists_the_app_tool_and_reads_its_page(mode: str) -> None:
    with anyio.fail_after(TIMEOUT):
        async with connect(mode, apps=True) as client:
            assert client.protocol_version == ("2026-07-28" if mode == "auto" else "2025-11-25")
            extensions = client.server_capabilities.extensions or {}
            assert extensions[UI] == {"mimeTypes": [MIME]}

            [tool] = (await client.list_tools()).tools
            assert tool.name == "shelf"
            linked = {"resourceUri": "ui://shelf-apps/shelf", "visibility": ["model", "app"]}
            assert tool.meta == {"ui": linked}

            read = await client.read_resource("ui://shelf-apps/shelf")
            [content] = read.contents
            assert isinstance(content, types.TextResourceContents)
            assert content.mime_type == MIME
            assert content.text.startswith("<!DOCTYPE html>")
            assert "<h1>On the shelf</h1>" in content.text
            assert content.meta == {
                "ui": {"csp": {"resourceDomains": ["https://covers.example.com"]}, "prefersBorder": False}
            }

            result = await client.call_tool("shelf", {})
            assert result.structured_content == {"books": ["Dune", "Hyperion"], "inApp": True}


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_an_sdk_client_without_apps_gets_the_text(mode: str) -> None:
    with anyio.fail_after(TIMEOUT):
        async with connect(mode, apps=False) as client:
            result = await client.call_tool("shelf", {})

    assert isinstance(result.content[0], types.TextContent)
    assert result.content[0].text == "2 books: Dune, Hyperion."
    assert result.structured_content == {"books": ["Dune", "Hyperion"], "inApp": False}
