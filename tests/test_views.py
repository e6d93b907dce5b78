"""``django_mcp.views``: ``bad_request`` (JSON-RPC for MCP endpoints, Django's page
elsewhere) and ``server_card_view`` (a server's card, with ETag and CORS)."""

from __future__ import annotations

import json

import pytest
from django.core.exceptions import DisallowedHost, SuspiciousOperation
from django.http import Http404, HttpRequest, HttpResponse
from django.test import Client, RequestFactory
from django.urls import path

from django_mcp import McpResponse, Server, Tool
from django_mcp.protocol import jsonrpc
from django_mcp.registry import registry
from django_mcp.server_card import MEDIA_TYPE
from django_mcp.urls import _patterns
from django_mcp.views import bad_request, server_card_view


def test_a_disallowed_host_at_an_mcp_endpoint_is_a_403_json_rpc_error() -> None:
    response = bad_request(RequestFactory().post("/conformance/mcp"), DisallowedHost("evil"))

    assert (response.status_code, response["Content-Type"]) == (403, "application/json")
    assert json.loads(response.content) == {
        "jsonrpc": "2.0",
        "error": {"code": jsonrpc.INVALID_REQUEST, "message": "Forbidden: host not allowed"},
    }


def test_another_bad_request_at_an_mcp_endpoint_is_a_400_json_rpc_error() -> None:
    response = bad_request(RequestFactory().post("/conformance/mcp"), SuspiciousOperation("odd"))

    assert response.status_code == 400
    assert json.loads(response.content)["error"]["code"] == jsonrpc.INVALID_REQUEST
    assert b"odd" not in response.content


def test_elsewhere_it_is_djangos_own_page() -> None:
    response = bad_request(RequestFactory().get("/admin/"), DisallowedHost("evil"))

    assert response.status_code == 400
    assert response["Content-Type"].startswith("text/html")


class HelloTool(Tool):
    """Say hello."""

    name = "hello"

    def handle(self) -> McpResponse:
        return McpResponse.text("hello")


class CardServer(Server):
    name = "com.example/hello"
    description = "Says hello."
    tools = (HelloTool,)


def _endpoint(request: HttpRequest) -> HttpResponse:
    return HttpResponse()


# A server card route as django_mcp.urls adds one, beside a stand-in endpoint.
urlpatterns = [
    path("mcp/hello", _endpoint, name="hello"),
    path("mcp/hello/server-card", server_card_view, {"server": CardServer, "endpoint": "hello"}),
    path("mcp/plain/server-card", server_card_view, {"server": Server, "endpoint": "hello"}),
]


def _card(**headers: str) -> HttpResponse:
    request = RequestFactory().get("/mcp/hello/server-card", headers=headers)
    return server_card_view(request, server=CardServer, endpoint="hello")


@pytest.mark.urls(__name__)
def test_the_server_card_is_served_with_its_etag_cors_and_cache_headers() -> None:
    response = _card()

    assert (response.status_code, response["Content-Type"]) == (200, MEDIA_TYPE)
    card = json.loads(response.content)
    assert card["name"] == "com.example/hello"
    assert card["remotes"][0]["url"] == "http://testserver/mcp/hello"
    assert response["ETag"].startswith('"')
    assert response["Access-Control-Allow-Origin"] == "*"
    assert response["Access-Control-Expose-Headers"] == "ETag"
    assert response["Cache-Control"] == "public, max-age=3600"


@pytest.mark.urls(__name__)
def test_a_matching_if_none_match_answers_304() -> None:
    tag = _card()["ETag"]

    unchanged = _card(if_none_match=f'"other", {tag}')
    changed = _card(if_none_match='"other"')

    assert (unchanged.status_code, unchanged.content, unchanged["ETag"]) == (304, b"", tag)
    assert changed.status_code == 200


@pytest.mark.urls(__name__)
def test_a_server_without_a_card_name_answers_404() -> None:
    # The base Server is named "django-mcp", not namespace/name.
    assert Client().get("/mcp/plain/server-card").status_code == 404
    with pytest.raises(Http404):
        server_card_view(RequestFactory().get("/"), server=Server, endpoint="hello")


@pytest.mark.urls(__name__)
def test_only_get_and_head_are_allowed() -> None:
    assert Client().head("/mcp/hello/server-card").status_code == 200
    assert Client().post("/mcp/hello/server-card").status_code == 405


def test_django_mcp_urls_adds_a_card_route_beside_each_web_server() -> None:
    saved = registry.snapshot()
    registry.restore({"web": {}, "local": {}})
    try:
        registry.web("hello", CardServer)
        registry.web("", CardServer)
        routes = {str(pattern.pattern): pattern.name for pattern in _patterns()}
    finally:
        registry.restore(saved)

    assert routes["hello/server-card"] == "hello-server-card"
    assert routes["server-card"] == "root-server-card"
