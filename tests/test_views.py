"""``django_mcp.views.bad_request``: JSON-RPC for MCP endpoints, Django's page elsewhere."""

from __future__ import annotations

import json

from django.core.exceptions import DisallowedHost, SuspiciousOperation
from django.test import RequestFactory

from django_mcp.protocol import jsonrpc
from django_mcp.views import bad_request


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
