"""``AppResource`` and ``Csp``: declaration checks, ``_meta.ui`` and the rendered page."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured

from django_mcp import AppResource, CacheHint, Csp, Server
from django_mcp.server.compiler import compile_server
from django_mcp.testing import McpTestClient

APPS = {"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}}


@pytest.fixture
def templates(settings: Any, tmp_path: Any) -> Any:
    """Serve templates from ``tmp_path``; return it."""
    settings.TEMPLATES = [{"BACKEND": "django.template.backends.django.DjangoTemplates", "DIRS": [tmp_path]}]
    return tmp_path


def _server(*resources: type[AppResource]) -> type[Server]:
    class ShopServer(Server):
        name = "shop"

    ShopServer.resources = resources
    return ShopServer


def _compile_error(*resources: type[AppResource]) -> str:
    with pytest.raises(ImproperlyConfigured) as info:
        compile_server(_server(*resources))
    return str(info.value)


# ------------------------------------------------------------------- Csp


def test_csp_publishes_only_the_declared_lists_in_camel_case() -> None:
    csp = Csp(connect_domains=["https://api.example.com"], base_uri_domains=("https://cdn.example.com",))

    assert csp.connect_domains == ("https://api.example.com",)
    assert csp.to_wire() == {
        "connectDomains": ["https://api.example.com"],
        "baseUriDomains": ["https://cdn.example.com"],
    }
    assert Csp().to_wire() == {}


@pytest.mark.parametrize(
    "origin",
    [
        "https://*.example.com",
        "wss://realtime.example.com",
        "http://localhost:8000",
        "https://a.b.example.com",
    ],
)
def test_csp_accepts_origins_and_wildcard_subdomains(origin: str) -> None:
    assert Csp(resource_domains=(origin,)).resource_domains == (origin,)


@pytest.mark.parametrize(
    "origin",
    [
        "example.com",
        "https://example.com/path",
        "https://example.com; script-src *",
        "'unsafe-eval'",
        "https://exa mple.com",
        "",
        42,
    ],
)
def test_csp_refuses_what_is_not_an_origin(origin: Any) -> None:
    with pytest.raises(ValueError, match="is not an origin"):
        Csp(connect_domains=(origin,))


def test_csp_refuses_a_bare_string_for_a_list() -> None:
    with pytest.raises(ValueError, match="must be a tuple of origins"):
        Csp(frame_domains="https://example.com")  # type: ignore[arg-type]


# --------------------------------------------------------------- compiling


def test_an_app_is_listed_at_its_default_ui_uri_with_its_ui_meta() -> None:
    class OrdersApp(AppResource):
        """Open orders, newest first."""

        template_name = "orders.html"
        csp = Csp(connect_domains=("https://api.example.com",), frame_domains=("https://maps.example.com",))
        permissions = ("camera", "clipboard_write")
        domain = "orders.example-host.com"
        prefers_border = False

    entry = compile_server(_server(OrdersApp)).resources["ui://shop/orders"]

    assert entry.name == "orders"
    assert entry.mime_type == "text/html;profile=mcp-app"
    assert entry.cache == CacheHint(ttl_ms=600_000, scope="public")
    assert entry.permissions == ()
    assert entry.definition.meta == {
        "ui": {
            "csp": {
                "connectDomains": ["https://api.example.com"],
                "frameDomains": ["https://maps.example.com"],
            },
            "permissions": {"camera": {}, "clipboardWrite": {}},
            "domain": "orders.example-host.com",
            "prefersBorder": False,
        }
    }


def test_an_app_keeps_its_own_uri_name_cache_and_meta() -> None:
    class BoardApp(AppResource):
        name = "stock-board"
        uri = "ui://warehouse/board"
        template_name = "board.html"
        cache = CacheHint(ttl_ms=60_000, scope="public")
        meta = {"com.example/owner": "ops"}

    entry = compile_server(_server(BoardApp)).resources["ui://warehouse/board"]

    assert (entry.name, entry.cache.ttl_ms) == ("stock-board", 60_000)
    assert entry.definition.meta == {"com.example/owner": "ops", "ui": {}}


@pytest.mark.parametrize(
    "uri", ["https://shop.example.com/orders", "ui:/orders", "ui://shop/my orders", "ui://"]
)
def test_an_app_uri_must_be_ui(uri: str) -> None:
    class OrdersApp(AppResource):
        template_name = "orders.html"

    OrdersApp.uri = uri

    assert f"OrdersApp.uri must be a ui:// URI without spaces, such as 'ui://shop/orders', got {uri!r}" in (
        _compile_error(OrdersApp)
    )


def test_a_server_name_that_makes_no_uri_is_a_compile_error() -> None:
    class OrdersApp(AppResource):
        template_name = "orders.html"

    class SpacedServer(Server):
        name = "my shop"
        resources = (OrdersApp,)

    with pytest.raises(ImproperlyConfigured, match="got 'ui://my shop/orders'"):
        compile_server(SpacedServer)


@pytest.mark.parametrize(
    ("attribute", "value", "message"),
    [
        ("template_name", None, "OrdersApp.template_name must name the Django template of the page"),
        ("uri_template", "ui://shop/{id}", "OrdersApp: an App has one fixed ui:// uri, not a uri_template"),
        ("csp", {"connect_domains": ()}, "OrdersApp.csp must be a django_mcp.Csp"),
        ("permissions", ("shop.view_order",), "OrdersApp.permissions must be a tuple of sandbox permissions"),
        ("permissions", "camera", "OrdersApp.permissions must be a tuple of sandbox permissions"),
        ("domain", "", "OrdersApp.domain must be None or a host name"),
        ("prefers_border", "yes", "OrdersApp.prefers_border must be None, True or False"),
        ("meta", {"ui": {"prefersBorder": True}}, "OrdersApp.meta sets 'ui', which django_mcp publishes"),
    ],
)
def test_a_bad_app_declaration_is_a_compile_error(attribute: str, value: Any, message: str) -> None:
    class OrdersApp(AppResource):
        template_name = "orders.html"

    setattr(OrdersApp, attribute, value)

    assert message in _compile_error(OrdersApp)


def test_two_apps_at_one_uri_are_a_compile_error() -> None:
    class OrdersApp(AppResource):
        template_name = "orders.html"

    class OtherOrdersApp(AppResource):
        name = "orders"
        template_name = "other.html"

    assert "duplicate resource URI 'ui://shop/orders'" in _compile_error(OrdersApp, OtherOrdersApp)


# ----------------------------------------------------------------- reading


def test_reading_an_app_renders_its_template_with_its_context(templates: Any) -> None:
    (templates / "orders.html").write_text(
        "<!DOCTYPE html><title>{{ title }}</title><p>{{ note }}</p><p>{{ user }}{{ request }}</p>",
        encoding="utf-8",
    )

    class OrdersApp(AppResource):
        template_name = "orders.html"
        prefers_border = True

        def get_context_data(self) -> dict[str, Any]:
            return {**super().get_context_data(), "title": "Orders", "note": "<b>bold</b> & more"}

    client = McpTestClient(_server(OrdersApp), client_capabilities=APPS)
    read = asyncio.run(client.read_resource("ui://shop/orders")).assert_ok()

    assert read.contents == [
        {
            "uri": "ui://shop/orders",
            "mimeType": "text/html;profile=mcp-app",
            # Autoescaped; no user or request in the context.
            "text": "<!DOCTYPE html><title>Orders</title><p>&lt;b&gt;bold&lt;/b&gt; &amp; more</p><p></p>",
            "_meta": {"ui": {"prefersBorder": True}},
        }
    ]
    assert (read.result["ttlMs"], read.result["cacheScope"]) == (600_000, "public")


def test_the_default_context_holds_the_app(templates: Any) -> None:
    (templates / "orders.html").write_text("{{ app.template_name }}", encoding="utf-8")

    class OrdersApp(AppResource):
        template_name = "orders.html"

    assert OrdersApp().render() == "orders.html"
    assert type(OrdersApp().render()) is str


def test_a_listed_app_carries_its_ui_meta_in_resources_list() -> None:
    class OrdersApp(AppResource):
        """Open orders."""

        template_name = "orders.html"
        csp = Csp(resource_domains=("https://cdn.example.com",))

    client = McpTestClient(_server(OrdersApp), client_capabilities=APPS)
    listed = asyncio.run(client.list_resources()).items

    assert listed == [
        {
            "uri": "ui://shop/orders",
            "name": "orders",
            "description": "Open orders.",
            "mimeType": "text/html;profile=mcp-app",
            "_meta": {"ui": {"csp": {"resourceDomains": ["https://cdn.example.com"]}}},
        }
    ]
