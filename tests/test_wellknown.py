"""Tests for django_mcp.wellknown: RFC 9728 protected resource metadata."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.http import HttpResponse
from django.test import Client, RequestFactory
from django.urls import include, path

from django_mcp import McpResponse, Server, Tool
from django_mcp.transports._identity import challenge
from django_mcp.wellknown import resource_metadata_errors


class PingTool(Tool):
    name = "ping"

    def handle(self) -> McpResponse:
        return McpResponse.text("pong")


class PublicServer(Server):
    name = "public"
    tools = (PingTool,)


def plain_view(request: Any) -> HttpResponse:
    return HttpResponse("not MCP")


urlpatterns = [
    path("", include("django_mcp.wellknown")),
    path("public/mcp", PublicServer.as_view()),
    path("public/mcp/", PublicServer.as_view()),
    path("plain", plain_view),
]

pytestmark = pytest.mark.urls(__name__)

ROOT = "/.well-known/oauth-protected-resource"
METADATA = {
    "authorization_servers": ["https://auth.example.com"],
    "scopes_supported": ["mcp:tools", "mcp:resources"],
}


@pytest.fixture
def configured(settings: Any) -> dict[str, Any]:
    settings.MCP_RESOURCE_METADATA = dict(METADATA)
    return settings.MCP_RESOURCE_METADATA


def test_root_document_describes_the_origin(client: Client, configured: dict[str, Any]) -> None:
    response = client.get(ROOT)

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response.json() == {
        "resource": "http://testserver",
        "authorization_servers": ["https://auth.example.com"],
        "scopes_supported": ["mcp:tools", "mcp:resources"],
        "bearer_methods_supported": ["header"],
    }


def test_path_inserted_document_names_the_endpoint(client: Client, configured: dict[str, Any]) -> None:
    response = client.get(f"{ROOT}/public/mcp")

    assert response.status_code == 200
    assert response.json() == {
        "resource": "http://testserver/public/mcp",
        "authorization_servers": ["https://auth.example.com"],
        "scopes_supported": ["mcp:tools", "mcp:resources"],
        "bearer_methods_supported": ["header"],
    }


def test_trailing_slash_names_the_same_resource(client: Client, configured: dict[str, Any]) -> None:
    assert client.get(f"{ROOT}/public/mcp/").json()["resource"] == "http://testserver/public/mcp"


def test_resource_uses_the_request_scheme_and_host(client: Client, configured: dict[str, Any]) -> None:
    response = client.get(f"{ROOT}/public/mcp", secure=True, headers={"host": "localhost"})

    assert response.json()["resource"] == "https://localhost/public/mcp"


def test_challenge_points_at_a_document_for_the_challenged_endpoint(
    client: Client, configured: dict[str, Any]
) -> None:
    from django_mcp.transports.http import _exchange_of

    request = RequestFactory().post("/public/mcp/")
    header = challenge(_exchange_of(request)).header("WWW-Authenticate")
    url = re.fullmatch(r'Bearer resource_metadata="http://testserver(/[^"]+)"', header)
    assert url is not None, header

    response = client.get(url.group(1))

    assert response.status_code == 200
    assert response.json()["resource"] == "http://testserver/public/mcp"


def test_configured_resource_and_extra_members_are_served_as_given(client: Client, settings: Any) -> None:
    settings.MCP_RESOURCE_METADATA = {
        **METADATA,
        "resource": "https://mcp.example.com/public/mcp",
        "resource_name": "Example MCP",
        "resource_documentation": "https://docs.example.com/mcp",
    }

    assert client.get(f"{ROOT}/public/mcp").json() == {
        "resource": "https://mcp.example.com/public/mcp",
        "authorization_servers": ["https://auth.example.com"],
        "scopes_supported": ["mcp:tools", "mcp:resources"],
        "bearer_methods_supported": ["header"],
        "resource_name": "Example MCP",
        "resource_documentation": "https://docs.example.com/mcp",
    }


def test_scopes_are_omitted_when_not_configured(client: Client, settings: Any) -> None:
    settings.MCP_RESOURCE_METADATA = {"authorization_servers": ["https://auth.example.com"]}

    assert client.get(ROOT).json() == {
        "resource": "http://testserver",
        "authorization_servers": ["https://auth.example.com"],
        "bearer_methods_supported": ["header"],
    }


@pytest.mark.parametrize("url", [ROOT, f"{ROOT}/public/mcp"])
def test_unconfigured_metadata_is_not_found(client: Client, settings: Any, url: str) -> None:
    settings.MCP_RESOURCE_METADATA = None

    response = client.get(url)

    assert response.status_code == 404
    assert response.json()["error"] == "not_found"


@pytest.mark.parametrize("mcp_path", ["plain", "missing/mcp"])
def test_paths_that_are_not_mcp_endpoints_are_not_found(
    client: Client, configured: dict[str, Any], mcp_path: str
) -> None:
    response = client.get(f"{ROOT}/{mcp_path}")

    assert response.status_code == 404
    assert response.json()["error"] == "not_found"


def test_documents_are_readable_cross_origin(client: Client, configured: dict[str, Any]) -> None:
    assert client.get(ROOT)["Access-Control-Allow-Origin"] == "*"

    preflight = client.options(
        f"{ROOT}/public/mcp",
        headers={
            "origin": "https://app.example.com",
            "access-control-request-method": "GET",
            "access-control-request-headers": "mcp-protocol-version",
        },
    )

    assert preflight.status_code == 204
    assert preflight["Access-Control-Allow-Origin"] == "*"
    assert preflight["Access-Control-Allow-Methods"] == "GET, HEAD, OPTIONS"


def test_only_safe_methods_are_allowed(client: Client, configured: dict[str, Any]) -> None:
    assert client.head(ROOT).status_code == 200
    assert client.post(ROOT).status_code == 405


def test_malformed_setting_raises_improperly_configured(client: Client, settings: Any) -> None:
    settings.MCP_RESOURCE_METADATA = {"authorization_servers": []}

    with pytest.raises(ImproperlyConfigured, match="MCP_RESOURCE_METADATA: 'authorization_servers'"):
        client.get(ROOT)


@pytest.mark.parametrize(
    ("value", "errors"),
    [
        (None, []),
        (METADATA, []),
        ({**METADATA, "bearer_methods_supported": ["header"], "resource": "https://x.example/mcp"}, []),
        (["https://auth.example.com"], ["must be a dict, got list"]),
        ({}, ["'authorization_servers' must be a non-empty list of issuer URLs"]),
        (
            {"authorization_servers": "https://auth.example.com"},
            ["'authorization_servers' must be a non-empty list of issuer URLs"],
        ),
        (
            {"authorization_servers": ["auth.example.com"]},
            ["'authorization_servers' must hold absolute http(s) URLs, got ['auth.example.com']"],
        ),
        ({**METADATA, "scopes_supported": "mcp"}, ["'scopes_supported' must be a list of strings"]),
        (
            {**METADATA, "bearer_methods_supported": ["header", "query"]},
            [
                "'bearer_methods_supported' may only list 'header' (tokens are read from the "
                "Authorization header only), got ['header', 'query']"
            ],
        ),
        (
            {**METADATA, "resource": "/mcp"},
            ["'resource' must be an absolute http(s) URL without a fragment, got '/mcp'"],
        ),
    ],
)
def test_resource_metadata_errors_name_each_problem(value: Any, errors: list[str]) -> None:
    assert resource_metadata_errors(value) == errors
