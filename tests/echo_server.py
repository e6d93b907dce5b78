"""The smallest servers worth measuring: an async ``echo`` tool, a sync ORM tool.

``EchoServer`` is mounted at ``/echo/mcp``, ``OrmServer`` (ten rows read) at ``/orm/mcp``.

Tests bounding the Python calls (and threads) of one request use them with
``pytest.mark.urls("tests.echo_server")``, through every way to serve; a
bare Django view beside each answers the same call, for comparison.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec
from django.contrib.auth import get_user_model
from django.http import HttpRequest, HttpResponse
from django.urls import path
from django.views.decorators.csrf import csrf_exempt

from django_mcp import McpResponse, Server, Tool
from django_mcp.schemas import Schema
from tests.wire import modern_headers, tool_request

__all__ = [
    "FLOOR_URL",
    "ORM_FLOOR_URL",
    "ORM_URL",
    "URL",
    "EchoServer",
    "OrmServer",
    "echo_request",
    "floor",
    "orm_floor",
    "orm_request",
    "urlpatterns",
]

URL = "/echo/mcp"
#: A bare Django view answering the same call, for comparison.
FLOOR_URL = "/echo/floor"
ORM_URL = "/orm/mcp"
#: A bare sync Django view doing the same ORM read.
ORM_FLOOR_URL = "/orm/floor"


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


def first_usernames() -> str:
    """Read ten rows through the ORM (sync): the usernames, comma-separated."""
    return ",".join(get_user_model().objects.order_by("pk").values_list("username", flat=True)[:10])


class UsersTool(Tool):
    """A sync tool reading ten rows through the ORM."""

    name = "users"

    def handle(self) -> McpResponse:
        return McpResponse.text(first_usernames())


class OrmServer(Server):
    """One sync ORM tool, nothing that needs the caller's identity."""

    name = "orm"
    tools = (UsersTool,)


def orm_request() -> tuple[bytes, dict[str, str]]:
    """Return the body and the MCP headers of one 2026-07-28 ``users`` call."""
    body: dict[str, Any] = tool_request("users", {})
    return json.dumps(body).encode(), modern_headers(body)


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


@csrf_exempt
def orm_floor(request: HttpRequest) -> HttpResponse:
    """Answer a ``users`` call with the same ORM read and msgspec alone."""
    message = msgspec.json.decode(request.body)
    result = {"content": [{"type": "text", "text": first_usernames()}], "isError": False}
    answer = msgspec.json.encode({"jsonrpc": "2.0", "id": message["id"], "result": result})
    return HttpResponse(answer, content_type="application/json")


urlpatterns = [
    path(URL.lstrip("/"), EchoServer.as_view()),
    path(FLOOR_URL.lstrip("/"), floor),
    path(ORM_URL.lstrip("/"), OrmServer.as_view()),
    path(ORM_FLOOR_URL.lstrip("/"), orm_floor),
]
