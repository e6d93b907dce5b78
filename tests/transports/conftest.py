"""Helpers shared by the HTTP transport tests: build and send MCP POSTs.

The request builders come from ``tests/wire.py``. ``wire`` drives the
conformance fixture server mounted at ``/conformance/mcp`` through Django's
``AsyncClient`` (ASGI requests, so SSE answers are possible); its methods
return the response and its decoded JSON-RPC message(s).

``test_http.py`` runs twice: through the plain view under Django's handler
(``view``) and through ``McpASGIApp``'s fast path (``fast-asgi``): its
``async_client`` (and so ``wire``) is parametrized by ``pytest_generate_tests``.
``test_http_wsgi.py`` runs a subset through ``McpWSGIApp``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

import pytest
from django.test.client import FakePayload

from tests.wire import ACCEPT, CLIENT_INFO, modern_headers, modern_meta, modern_request

URL = "/conformance/mcp"
LEGACY = "2025-11-25"


def sse_messages(raw: bytes) -> list[dict[str, Any]]:
    """Return the JSON-RPC messages of an SSE body (one ``data:`` line each)."""
    messages = []
    for line in raw.decode().splitlines():
        if line.startswith("data:"):
            data = line[len("data:") :].strip()
            if data:
                messages.append(json.loads(data))
    return messages


class Wire:
    """Send MCP POSTs to the conformance endpoint and decode the answers."""

    meta = staticmethod(modern_meta)
    request = staticmethod(modern_request)
    headers = staticmethod(modern_headers)
    sse_messages = staticmethod(sse_messages)

    def __init__(self, client: Any) -> None:
        self.client = client

    async def post(
        self,
        body: Any,
        *,
        headers: Mapping[str, str] | None = None,
        drop: Iterable[str] = (),
        content_type: str = "application/json",
        raw: bytes | None = None,
    ) -> Any:
        """POST ``body`` with the conforming headers, then ``headers``.

        Conforming headers named in ``drop`` are left out before ``headers``
        are added; ``raw`` replaces the encoded body.
        """
        sent = modern_headers(body) if isinstance(body, Mapping) else {"Accept": ACCEPT}
        dropped = {name.lower() for name in drop}
        sent = {k: v for k, v in sent.items() if k.lower() not in dropped}
        sent.update(headers or {})
        data = raw if raw is not None else json.dumps(body).encode()
        return await self.client.post(URL, data=data, content_type=content_type, headers=sent)

    async def post_raw_headers(
        self, body: Mapping[str, Any], headers: list[tuple[str, str]], *, host: str = "testserver"
    ) -> Any:
        """POST with an exact ASGI header list (duplicates kept)."""
        data = json.dumps(body).encode()
        scope_headers = [
            (b"host", host.encode()),
            (b"content-type", b"application/json"),
            (b"content-length", str(len(data)).encode()),
            *((name.lower().encode(), value.encode("latin-1")) for name, value in headers),
        ]
        return await self.client.request(
            method="POST",
            path=URL,
            headers=scope_headers,
            query_string="",
            _body_file=FakePayload(data),
        )

    async def call(self, body: Any, **kwargs: Any) -> tuple[int, dict[str, Any]]:
        """POST and return ``(status, decoded JSON body)`` of a JSON answer."""
        response = await self.post(body, **kwargs)
        assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
        return response.status_code, json.loads(response.content)

    async def stream(self, body: Any, **kwargs: Any) -> tuple[Any, list[dict[str, Any]]]:
        """POST and return the response and every message of its body (JSON or SSE)."""
        response = await self.post(body, **kwargs)
        if response.streaming:
            chunks = [chunk async for chunk in response.streaming_content]
            return response, sse_messages(b"".join(chunks))
        if not response.content:
            return response, []
        return response, [json.loads(response.content)]

    async def initialize(self, capabilities: Mapping[str, Any] | None = None) -> str:
        """Open a 2025-11-25 session and return its id."""
        body = {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": LEGACY,
                "capabilities": dict(capabilities or {}),
                "clientInfo": CLIENT_INFO,
            },
        }
        response = await self.post(body, headers={"Accept": ACCEPT}, drop=("Mcp-Method",))
        assert response.status_code == 200
        session_id = response["Mcp-Session-Id"]
        notified = await self.post(
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            headers=self.session_headers(session_id),
        )
        assert notified.status_code == 202
        return str(session_id)

    @staticmethod
    def session_headers(session_id: str) -> dict[str, str]:
        """Return the headers of a request inside a 2025-11-25 session."""
        return {"Accept": ACCEPT, "Mcp-Session-Id": session_id, "MCP-Protocol-Version": LEGACY}

    async def legacy(
        self, session_id: str, method: str, params: Mapping[str, Any] | None = None, *, request_id: Any = 1
    ) -> tuple[int, dict[str, Any]]:
        """Send a request inside a 2025-11-25 session; return ``(status, JSON)``."""
        body: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            body["params"] = dict(params)
        response = await self.post(
            body, headers=self.session_headers(session_id), drop=("Mcp-Method", "Mcp-Name")
        )
        assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
        return response.status_code, json.loads(response.content)


#: How ``async_client`` serves requests in the modules that run both ways.
SERVED_BY = {
    "view": None,
    "fast-asgi": "ASGIAppClient",
    "fast-wsgi": "WSGIAppClient",
    "plain-wsgi": "PlainWSGIClient",
}


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Run every test of ``test_http.py`` through the plain view and the fast ASGI path."""
    if metafunc.module.__name__.endswith("test_http") and "served_by" in metafunc.fixturenames:
        metafunc.parametrize("served_by", ["view", "fast-asgi"], indirect=True)


@pytest.fixture
def served_by(request: pytest.FixtureRequest) -> str:
    """Return how the test's ``async_client`` serves (``view`` unless parametrized)."""
    return str(getattr(request, "param", "view"))


@pytest.fixture
def async_client(served_by: str) -> Any:
    """Return Django's ``AsyncClient``, or one served by a fast path (``served_by``)."""
    from django.test import AsyncClient

    from tests import direct_clients

    name = SERVED_BY[served_by]
    return AsyncClient() if name is None else getattr(direct_clients, name)()


@pytest.fixture
def wire(async_client: Any) -> Wire:
    """Return a ``Wire`` bound to Django's async test client."""
    return Wire(async_client)
