"""``Tool.app`` and ``Tool.app_visibility``: ``_meta.ui`` on tools, linked Apps served."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured

from django_mcp import AppResource, McpResponse, Resource, Server, Tool
from django_mcp.protocol._base import UNSET
from django_mcp.server.compiler import compile_server

UI = {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}


class OrdersApp(AppResource):
    template_name = "orders.html"


class OrdersTool(Tool):
    app = OrdersApp

    def handle(self) -> McpResponse:
        return McpResponse.text("3 open orders")


class RefreshOrdersTool(Tool):
    app = OrdersApp
    app_visibility = ("app",)

    def handle(self) -> McpResponse:
        return McpResponse.text("refreshed")


class PlainTool(Tool):
    def handle(self) -> McpResponse:
        return McpResponse.text("plain")


def _server(tools: tuple[type[Tool], ...], resources: tuple[type[Resource], ...] = ()) -> type[Server]:
    class ShopServer(Server):
        name = "shop"

    ShopServer.tools = tools
    ShopServer.resources = resources
    return ShopServer


def test_a_linked_tool_publishes_the_app_uri_and_its_visibility() -> None:
    compiled = compile_server(_server((OrdersTool, RefreshOrdersTool, PlainTool)))

    assert compiled.tools["orders"].definition.meta == {
        "ui": {"resourceUri": "ui://shop/orders", "visibility": ["model", "app"]}
    }
    assert compiled.tools["refresh-orders"].definition.meta == {
        "ui": {"resourceUri": "ui://shop/orders", "visibility": ["app"]}
    }
    assert compiled.legacy_tools["orders"].meta == compiled.tools["orders"].definition.meta
    assert compiled.tools["plain"].definition.meta is UNSET


def test_an_app_only_tools_link_is_served_unlisted_and_declares_the_extension() -> None:
    compiled = compile_server(_server((OrdersTool, RefreshOrdersTool)))

    assert dict(compiled.resources) == {}
    assert list(compiled.unlisted_apps) == ["ui://shop/orders"]
    assert compiled.capabilities.resources is not None
    assert compiled.capabilities.extensions == UI
    assert compiled.legacy_capabilities.extensions == UI


def test_a_listed_app_is_linked_at_its_listed_uri() -> None:
    class BoardApp(AppResource):
        uri = "ui://warehouse/board"
        template_name = "board.html"

    class BoardTool(Tool):
        app = BoardApp

        def handle(self) -> McpResponse:
            return McpResponse.text("board")

    compiled = compile_server(_server((BoardTool,), (BoardApp,)))

    assert list(compiled.resources) == ["ui://warehouse/board"]
    assert dict(compiled.unlisted_apps) == {}
    assert compiled.tools["board"].definition.meta == {
        "ui": {"resourceUri": "ui://warehouse/board", "visibility": ["model", "app"]}
    }


def test_a_server_without_apps_declares_no_ui_extension() -> None:
    compiled = compile_server(_server((PlainTool,)))

    assert "io.modelcontextprotocol/ui" not in (compiled.capabilities.extensions or {})
    assert "io.modelcontextprotocol/ui" not in (compiled.legacy_capabilities.extensions or {})


def test_an_unlisted_app_whose_uri_a_resource_takes_is_a_compile_error() -> None:
    class ClashResource(Resource):
        uri = "ui://shop/orders"

        def handle(self) -> McpResponse:
            return McpResponse.text("clash")

    with pytest.raises(ImproperlyConfigured, match="duplicate resource URI 'ui://shop/orders'"):
        compile_server(_server((OrdersTool,), (ClashResource,)))


@pytest.mark.parametrize(
    ("attributes", "message"),
    [
        ({"app": OrdersTool}, "LinkTool.app must be an AppResource subclass"),
        ({"app": Resource}, "LinkTool.app must be an AppResource subclass"),
        ({"app": "ui://shop/orders"}, "LinkTool.app must be an AppResource subclass"),
        ({"app": OrdersApp, "app_visibility": ()}, "LinkTool.app_visibility must be"),
        ({"app": OrdersApp, "app_visibility": "app"}, "LinkTool.app_visibility must be"),
        ({"app": OrdersApp, "app_visibility": ("user",)}, "LinkTool.app_visibility must be"),
        ({"app": OrdersApp, "app_visibility": ("app", "app")}, "LinkTool.app_visibility must be"),
        ({"app_visibility": ("app",)}, "LinkTool.app_visibility is set but the tool links no App"),
        ({"app": OrdersApp, "meta": {"ui": {}}}, "LinkTool.meta sets 'ui'"),
    ],
)
def test_a_bad_link_is_a_compile_error(attributes: dict[str, Any], message: str) -> None:
    class LinkTool(Tool):
        def handle(self) -> McpResponse:
            return McpResponse.text("link")

    for name, value in attributes.items():
        setattr(LinkTool, name, value)

    with pytest.raises(ImproperlyConfigured, match=message.replace("(", r"\(")):
        compile_server(_server((LinkTool,)))


def test_model_only_visibility_is_accepted() -> None:
    class ModelOnlyTool(Tool):
        app = OrdersApp
        app_visibility = ("model",)

        def handle(self) -> McpResponse:
            return McpResponse.text("model")

    meta = compile_server(_server((ModelOnlyTool,))).tools["model-only"].definition.meta
    assert meta == {"ui": {"resourceUri": "ui://shop/orders", "visibility": ["model"]}}
