"""``declares_apps``: reading a client's MCP Apps declaration."""

from __future__ import annotations

from typing import Any

import pytest

from django_mcp.protocol.ui import declares_apps
from django_mcp.request import McpRequest


@pytest.mark.parametrize(
    ("capabilities", "declared"),
    [
        ({"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}}, True),
        ({"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ("text/html;profile=mcp-app",)}}}, True),
        ({"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/uri-list"]}}}, False),
        ({"extensions": {"io.modelcontextprotocol/ui": {}}}, False),
        ({"extensions": {"io.modelcontextprotocol/ui": True}}, False),
        ({"extensions": {"io.modelcontextprotocol/tasks": {}}}, False),
        ({"extensions": []}, False),
        ({}, False),
    ],
)
def test_apps_are_declared_only_with_the_html_mime_type(capabilities: dict[str, Any], declared: bool) -> None:  # noqa: FBT001
    assert declares_apps(capabilities) is declared
    request = McpRequest(
        method="tools/call",
        params={},
        meta={},
        protocol_version="2026-07-28",
        client_capabilities=capabilities,
    )
    assert request.supports_apps is declared
