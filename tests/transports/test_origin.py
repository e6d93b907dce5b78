"""DNS-rebinding protection: Origin and Host checks of the HTTP view.

A present ``Origin`` must be loopback or listed in ``MCP_ALLOWED_ORIGINS``
(403 with an id-less JSON-RPC error otherwise); ``Host`` must pass
``ALLOWED_HOSTS``. Both eras and every HTTP method are checked.
"""

from __future__ import annotations

import json
from typing import Any
from unittest.mock import ANY

import pytest

from django_mcp.protocol import jsonrpc
from django_mcp.transports._headers import McpHeaders
from django_mcp.transports._origin import (
    is_loopback_host,
    normalize_origin,
    origin_allowed,
    request_host,
    request_scheme,
)

MODERN = "2026-07-28"
FORBIDDEN = {"jsonrpc": "2.0", "error": {"code": jsonrpc.INVALID_REQUEST, "message": ANY}}


@pytest.mark.parametrize(
    "origin",
    [
        "http://evil.example.com",
        "https://evil.example.com:8443",
        "null",
        "file://",
        "http://127.0.0.1.evil.example.com",
        "http://localhost.evil.example.com",
        "not a url",
    ],
)
async def test_foreign_origin_is_403(wire: Any, origin: str) -> None:
    response = await wire.post(wire.request("server/discover"), headers={"Origin": origin})

    assert response.status_code == 403
    assert json.loads(response.content) == FORBIDDEN


@pytest.mark.parametrize(
    "origin",
    [
        "http://localhost",
        "http://localhost:3000",
        "https://127.0.0.1:8443",
        "http://127.1.2.3",
        "http://[::1]:6274",
        "HTTP://LOCALHOST:5173",
    ],
)
async def test_loopback_origin_is_served(wire: Any, origin: str) -> None:
    response = await wire.post(wire.request("server/discover"), headers={"Origin": origin})

    assert response.status_code == 200


async def test_absent_origin_is_served(wire: Any) -> None:
    response = await wire.post(wire.request("server/discover"))

    assert response.status_code == 200


async def test_allowed_origins_setting_is_honoured(wire: Any, settings: Any) -> None:
    settings.MCP_ALLOWED_ORIGINS = ["https://app.example.com", "https://other.example.com:8443/"]

    allowed = await wire.post(wire.request("server/discover"), headers={"Origin": "https://app.example.com"})
    with_port = await wire.post(
        wire.request("server/discover"), headers={"Origin": "https://other.example.com:8443"}
    )
    other_scheme = await wire.post(
        wire.request("server/discover"), headers={"Origin": "http://app.example.com"}
    )
    other_port = await wire.post(
        wire.request("server/discover"), headers={"Origin": "https://app.example.com:444"}
    )

    assert [r.status_code for r in (allowed, with_port, other_scheme, other_port)] == [200, 200, 403, 403]


async def test_foreign_origin_is_checked_before_parsing(wire: Any) -> None:
    response = await wire.post({}, raw=b"not json", headers={"Origin": "http://evil.example.com"})

    assert response.status_code == 403


async def test_foreign_origin_is_refused_on_the_legacy_handshake(wire: Any) -> None:
    body = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "c", "version": "1"},
        },
    }

    response = await wire.post(
        body, headers={"Origin": "http://evil.example.com", "MCP-Protocol-Version": "2025-11-25"}
    )

    assert response.status_code == 403
    assert "Mcp-Session-Id" not in response


@pytest.mark.parametrize("method", ["get", "delete"])
async def test_foreign_origin_is_refused_on_get_and_delete(async_client: Any, method: str) -> None:
    response = await getattr(async_client, method)(
        "/conformance/mcp", headers={"Origin": "http://evil.example.com"}
    )

    assert response.status_code == 403


async def test_rebinding_probe_with_foreign_host_is_refused(wire: Any) -> None:
    response = await wire.post_raw_headers(
        wire.request("server/discover"),
        [
            ("Origin", "http://evil.example.com"),
            ("MCP-Protocol-Version", MODERN),
            ("Mcp-Method", "server/discover"),
        ],
        host="evil.example.com",
    )

    assert 400 <= response.status_code < 500


async def test_foreign_host_is_refused_by_the_view_itself(wire: Any, settings: Any) -> None:
    # CommonMiddleware would refuse the Host first (an HTML 400); without it
    # the view must still refuse, with a JSON-RPC body.
    settings.MIDDLEWARE = [m for m in settings.MIDDLEWARE if not m.endswith(".CommonMiddleware")]

    response = await wire.post_raw_headers(
        wire.request("server/discover"),
        [("MCP-Protocol-Version", MODERN), ("Mcp-Method", "server/discover")],
        host="evil.example.com",
    )

    assert response.status_code == 403
    assert json.loads(response.content) == FORBIDDEN


async def test_rebinding_probe_with_loopback_host_and_origin_is_served(wire: Any) -> None:
    response = await wire.post_raw_headers(
        wire.request("server/discover"),
        [
            ("Origin", "http://127.0.0.1:8000"),
            ("MCP-Protocol-Version", MODERN),
            ("Mcp-Method", "server/discover"),
        ],
        host="127.0.0.1:8000",
    )

    assert response.status_code == 200


# ------------------------------------------------------------ helpers


@pytest.mark.parametrize(
    ("origin", "normalized"),
    [
        ("http://Example.COM", "http://example.com"),
        ("https://example.com:8443/", "https://example.com:8443"),
        ("http://[::1]:80", "http://[::1]:80"),
        ("ftp://example.com", None),
        ("http://example.com/path", None),
        ("http://example.com:notaport", None),
        ("null", None),
    ],
)
def test_normalize_origin(origin: str, normalized: str | None) -> None:
    assert normalize_origin(origin) == normalized


@pytest.mark.parametrize(
    "host", ["localhost", "LOCALHOST", "app.localhost", "127.0.0.1", "127.8.9.10", "[::1]"]
)
def test_loopback_hosts(host: str) -> None:
    assert is_loopback_host(host)


@pytest.mark.parametrize("host", ["10.0.0.1", "example.com", "localhost.example.com", "0.0.0.0", "[::]"])
def test_non_loopback_hosts(host: str) -> None:
    assert not is_loopback_host(host)


def test_origin_allowed_uses_the_normalized_allow_list() -> None:
    assert origin_allowed("https://APP.example.com", ["https://app.example.com/"])
    assert not origin_allowed("https://app.example.com.evil.net", ["https://app.example.com"])


PROXY = ("HTTP_X_FORWARDED_PROTO", "https")


@pytest.mark.parametrize(
    ("proxy", "sent", "scheme"),
    [
        (None, {"X-Forwarded-Proto": "https"}, "http"),  # no proxy configured: the header is anyone's
        (PROXY, {}, "http"),
        (PROXY, {"X-Forwarded-Proto": "https"}, "https"),
        (PROXY, {"X-Forwarded-Proto": "https, http"}, "https"),  # the first value, as Django reads it
        (PROXY, {"X-Forwarded-Proto": "http"}, "http"),
    ],
)
def test_the_request_scheme_follows_the_configured_proxy_header(
    settings: Any, proxy: tuple[str, str] | None, sent: dict[str, str], scheme: str
) -> None:
    settings.SECURE_PROXY_SSL_HEADER = proxy

    assert request_scheme("http", McpHeaders(sent.items())) == scheme


@pytest.mark.parametrize(
    ("sent", "server", "host"),
    [
        ({"Host": "example.com:8000"}, ("internal", "80"), "example.com:8000"),
        ({}, ("example.com", "80"), "example.com:80"),  # secure behind the proxy: 80 is no default
        ({}, ("example.com", "443"), "example.com"),
    ],
)
def test_a_request_without_host_is_named_by_the_server_and_the_secure_scheme(
    settings: Any, sent: dict[str, str], server: tuple[str, str], host: str
) -> None:
    settings.SECURE_PROXY_SSL_HEADER = PROXY
    headers = McpHeaders({**sent, "X-Forwarded-Proto": "https"}.items())

    assert request_host(headers, server, "http") == host
