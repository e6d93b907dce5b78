"""The smallest server worth measuring: one async ``echo`` tool, mounted at ``/echo/mcp``.

Tests bounding the Python calls of one request use it with
``pytest.mark.urls("tests.echo_server")``, through every way to serve.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec
from django.http import HttpRequest, HttpResponse
from django.urls import path
from django.views.decorators.csrf import csrf_exempt

from django_mcp import McpResponse, Server, Tool
from django_mcp.schemas import Schema
from tests.wire import modern_headers, tool_request

__all__ = ["FLOOR_URL", "URL", "EchoServer", "echo_request", "floor", "urlpatterns"]

URL = "/echo/mcp"
#: A bare Django view answering the same call, for comparison.
FLOOR_URL = "/echo/floor"


class EchoInput(Schema):
    """``echo``'s arguments."""

    text: str


class EchoTool(Tool[EchoInput]):
    """Return the text unchanged."""

    name = "echo"

    async def handle(self, payload: EchoInput) -> McpResponse:
        return McpResponse.text(payload.text)


class EchoServer(Server):
    """One async tool, nothing that needs the caller's identity."""

    name = "echo"
    tools = (EchoTool,)


def echo_request() -> tuple[bytes, dict[str, str]]:
    """Return the body and the MCP headers of one 2026-07-28 ``echo`` call."""
    body: dict[str, Any] = tool_request("echo", {"text": "hello"})
    return json.dumps(body).encode(), modern_headers(body)


@csrf_exempt  # as the MCP view is: a JSON API, not a form
def floor(request: HttpRequest) -> HttpResponse:
    """Answer an ``echo`` call with msgspec alone: the least a Django view can do."""
    message = msgspec.json.decode(request.body)
    text = message["params"]["arguments"]["text"]
    result = {"content": [{"type": "text", "text": text}], "isError": False}
    answer = msgspec.json.encode({"jsonrpc": "2.0", "id": message["id"], "result": result})
    return HttpResponse(answer, content_type="application/json")


urlpatterns = [path(URL.lstrip("/"), EchoServer.as_view()), path(FLOOR_URL.lstrip("/"), floor)]
