"""``subscriptions/listen``: acknowledgement, filtering and delivery."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import django_mcp
from django_mcp import McpRequest, McpResponse, Resource, Server, Tool
from django_mcp.dispatcher import Dispatcher, modern_context, parse_message
from django_mcp.dispatcher.subscriptions import SUBSCRIPTION_ID


class OpenResource(Resource):
    uri = "demo://open"

    def handle(self) -> McpResponse:
        return McpResponse.text("open")


class SecretResource(Resource):
    uri = "demo://secret"

    def authorize(self, request: McpRequest) -> bool:
        return False

    def handle(self) -> McpResponse:
        return McpResponse.text("secret")


class ItemResource(Resource):
    uri_template = "demo://items/{id}"

    def handle(self, id: str) -> McpResponse:  # noqa: A002 - the template variable
        return McpResponse.text(id)


class NoopTool(Tool):
    """Do nothing."""

    def handle(self) -> McpResponse:
        return McpResponse.text("ok")


class WatchedServer(Server):
    name = "watched"
    tools = (NoopTool,)
    resources = (OpenResource, SecretResource, ItemResource)


def _listen(notifications: dict[str, Any], request_id: Any = "sub-1") -> Any:
    body = {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "subscriptions/listen",
        "params": {
            "notifications": notifications,
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
            },
        },
    }
    envelope = parse_message(json.dumps(body))
    return Dispatcher(WatchedServer.compiled()).listen(envelope, modern_context(envelope))


async def test_acknowledgement_keeps_only_uris_the_caller_may_read() -> None:
    stream = _listen(
        {
            "toolsListChanged": True,
            "promptsListChanged": True,  # the server has no prompts: dropped
            "resourceSubscriptions": ["demo://open", "demo://secret", "demo://items/7", "demo://nowhere"],
        }
    )
    ack = json.loads(await asyncio.wait_for(anext(stream), timeout=2))
    await stream.aclose()
    assert ack == {
        "jsonrpc": "2.0",
        "method": "notifications/subscriptions/acknowledged",
        "params": {
            "notifications": {
                "toolsListChanged": True,
                "resourceSubscriptions": ["demo://open", "demo://items/7"],
            },
            "_meta": {SUBSCRIPTION_ID: "sub-1"},
        },
    }


async def test_updates_are_delivered_only_for_watched_uris_with_the_subscription_id() -> None:
    stream = _listen({"resourceSubscriptions": ["demo://items/7"]}, request_id=9)
    await asyncio.wait_for(anext(stream), timeout=2)  # the acknowledgement
    django_mcp.resource_updated(WatchedServer, "demo://open")  # not watched
    django_mcp.tools_changed(WatchedServer)  # not asked for
    django_mcp.resource_updated(WatchedServer, "demo://items/7")
    message = json.loads(await asyncio.wait_for(anext(stream), timeout=2))
    await stream.aclose()
    assert message == {
        "jsonrpc": "2.0",
        "method": "notifications/resources/updated",
        "params": {"uri": "demo://items/7", "_meta": {SUBSCRIPTION_ID: 9}},
    }
