"""Closing a 2026-07-28 response stream cancels the request's handler.

MCP 2026-07-28 streamable-http: on HTTP the client cancels a request by
closing its response stream. These tests run the real Django ASGI handler
and ``McpASGIApp`` with an in-memory ASGI peer: the request's first SSE
event arrives (or its headers are being sent), the peer sends
``http.disconnect``, and the handler must see its task cancelled; a closed
``subscriptions/listen`` stream must stop listening. A 2025-11-25
session's request is different: a disconnection is not a cancellation
there (only ``notifications/cancelled`` is), so its handler runs to
completion, its sync work still served, under ASGI and under WSGI.
"""

from __future__ import annotations

import asyncio
import json
import types
from collections.abc import Iterator
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIHandler
from django.urls import path

from django_mcp import McpRequest, McpResponse, Server, Tool
from django_mcp._serving import serving
from django_mcp.asgi import McpASGIApp
from django_mcp.dispatcher.sessions import LegacySession
from django_mcp.events import get_backend
from tests.wire import ACCEPT, modern_headers, modern_meta, modern_request


class Signals:
    """Per-test events the tool reports through (bound to the test's loop)."""

    started: asyncio.Event
    cancelled: asyncio.Event
    finished: asyncio.Event


class WaitForeverTool(Tool):
    """Report progress, then wait until cancelled."""

    async def handle(self, request: McpRequest):  # type: ignore[no-untyped-def]
        yield McpResponse.progress(1, 2, "started")
        Signals.started.set()
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            Signals.cancelled.set()
            raise
        yield McpResponse.text("never")


class FinishSlowlyTool(Tool):
    """Report progress, wait a little, then finish (unless cancelled)."""

    async def handle(self, request: McpRequest):  # type: ignore[no-untyped-def]
        yield McpResponse.progress(1, 2, "started")
        Signals.started.set()
        try:
            await asyncio.sleep(0.2)
        except asyncio.CancelledError:
            Signals.cancelled.set()
            raise
        # Sync work after the client may have left: still the request's.
        await sync_to_async(lambda: None)()
        Signals.finished.set()
        yield McpResponse.text("done")


class CancellableServer(Server):
    name = "cancellable"
    tools = (WaitForeverTool, FinishSlowlyTool)


urls = types.ModuleType("cancellation_urls")
urls.urlpatterns = [path("mcp", CancellableServer.as_view())]  # type: ignore[attr-defined]


@pytest.fixture(autouse=True)
def _urls(settings: Any) -> Iterator[None]:
    settings.ROOT_URLCONF = urls
    yield


class AsgiPeer:
    """Play the ASGI server: feed one request, collect what Django sends."""

    def __init__(
        self,
        method: str,
        params: dict[str, Any],
        meta: dict[str, Any] | None = None,
        *,
        session_id: str | None = None,
        app: str = "django",
        leave_at_start: bool = False,
    ) -> None:
        self.app = app
        #: Leave while the response's headers are being sent (before any event).
        self.leave_at_start = leave_at_start
        if session_id is None:
            body = modern_request(method, params, meta=meta)
            sent = modern_headers(body)
        else:  # a 2025-11-25 request inside a session: no modern _meta
            body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {**params, "_meta": meta or {}}}
            sent = {"Accept": ACCEPT, "Mcp-Session-Id": session_id, "MCP-Protocol-Version": "2025-11-25"}
        headers = [
            (b"host", b"localhost"),
            (b"content-type", b"application/json"),
            *((name.lower().encode(), value.encode()) for name, value in sent.items()),
        ]
        self.scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "POST",
            "scheme": "http",
            "path": "/mcp",
            "raw_path": b"/mcp",
            "query_string": b"",
            "root_path": "",
            "headers": headers,
            "client": ("127.0.0.1", 50000),
            "server": ("localhost", 80),
        }
        self.inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.inbox.put_nowait({"type": "http.request", "body": json.dumps(body).encode(), "more_body": False})
        self.chunks: list[bytes] = []
        self.first_chunk = asyncio.Event()

    async def receive(self) -> dict[str, Any]:
        return await self.inbox.get()

    async def send(self, message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start" and self.leave_at_start:
            self.disconnect()
            await asyncio.sleep(0.05)  # the disconnect is noticed meanwhile
        if message["type"] == "http.response.body" and message.get("body"):
            self.chunks.append(message["body"])
            self.first_chunk.set()

    def start(self) -> asyncio.Task[None]:
        handler = ASGIHandler()
        app = McpASGIApp(handler) if self.app == "fast" else handler
        return asyncio.ensure_future(app(self.scope, self.receive, self.send))

    def disconnect(self) -> None:
        self.inbox.put_nowait({"type": "http.disconnect"})


APPS = pytest.mark.parametrize("app", ["django", "fast"])


@APPS
async def test_disconnecting_from_the_response_stream_cancels_the_tool(app: str) -> None:
    Signals.started, Signals.cancelled = asyncio.Event(), asyncio.Event()
    peer = AsgiPeer(
        "tools/call", {"name": "wait-forever", "arguments": {}}, meta=modern_meta(progressToken="t"), app=app
    )
    served = peer.start()
    await asyncio.wait_for(peer.first_chunk.wait(), timeout=5)
    assert b"notifications/progress" in peer.chunks[0]
    await asyncio.wait_for(Signals.started.wait(), timeout=5)

    peer.disconnect()

    await asyncio.wait_for(Signals.cancelled.wait(), timeout=5)
    await asyncio.wait_for(served, timeout=5)


async def test_leaving_before_the_first_event_cancels_the_tool() -> None:
    Signals.started, Signals.cancelled = asyncio.Event(), asyncio.Event()
    peer = AsgiPeer(
        "tools/call",
        {"name": "wait-forever", "arguments": {}},
        meta=modern_meta(progressToken="t"),
        app="fast",
        leave_at_start=True,
    )

    await asyncio.wait_for(peer.start(), timeout=5)

    await asyncio.wait_for(Signals.cancelled.wait(), timeout=5)
    assert peer.chunks == []


@APPS
async def test_disconnecting_from_a_legacy_response_stream_lets_the_tool_finish(app: str) -> None:
    # 2025-11-25 transports: a disconnection is not a cancellation.
    Signals.started, Signals.cancelled, Signals.finished = asyncio.Event(), asyncio.Event(), asyncio.Event()
    session = await LegacySession.create(
        server=serving.dispatcher(CancellableServer).compiled.key,
        version="2025-11-25",
        capabilities={},
        client_info=None,
    )
    peer = AsgiPeer(
        "tools/call",
        {"name": "finish-slowly", "arguments": {}},
        meta={"progressToken": "t"},
        session_id=session.id,
        app=app,
    )
    served = peer.start()
    await asyncio.wait_for(peer.first_chunk.wait(), timeout=5)
    assert b"notifications/progress" in peer.chunks[0]
    await asyncio.wait_for(Signals.started.wait(), timeout=5)

    peer.disconnect()

    await asyncio.wait_for(served, timeout=5)
    await asyncio.wait_for(Signals.finished.wait(), timeout=5)
    assert not Signals.cancelled.is_set()


# Closing the stream sends request_finished, whose close_old_connections()
# checks (on Django 6.1) a connection an earlier test left in that thread.
@pytest.mark.django_db
async def test_disconnecting_from_a_listen_stream_stops_listening() -> None:
    backend = get_backend()
    peer = AsgiPeer("subscriptions/listen", {"notifications": {"toolsListChanged": True}})
    app = peer.start()
    await asyncio.wait_for(peer.first_chunk.wait(), timeout=5)
    ack = json.loads(peer.chunks[0].removeprefix(b"data: "))
    assert ack["method"] == "notifications/subscriptions/acknowledged"
    assert len(backend._listeners) == 1  # type: ignore[attr-defined]

    peer.disconnect()

    await asyncio.wait_for(app, timeout=5)
    assert backend._listeners == set()  # type: ignore[attr-defined]


@pytest.mark.django_db
def test_closing_a_legacy_stream_under_wsgi_lets_the_tool_finish() -> None:
    from asgiref.sync import async_to_sync
    from django.core.wsgi import get_wsgi_application

    from django_mcp.dispatcher import IN_FLIGHT
    from django_mcp.wsgi import McpWSGIApp
    from tests.test_wsgi import environ

    Signals.started, Signals.cancelled, Signals.finished = asyncio.Event(), asyncio.Event(), asyncio.Event()
    dispatcher = serving.dispatcher(CancellableServer)
    session = async_to_sync(LegacySession.create)(
        server=dispatcher.compiled.key, version="2025-11-25", capabilities={}, client_info=None
    )
    params = {"name": "finish-slowly", "arguments": {}, "_meta": {"progressToken": "t"}}
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}).encode()
    headers = {"Accept": ACCEPT, "Mcp-Session-Id": session.id, "MCP-Protocol-Version": "2025-11-25"}
    env = environ(body, headers=headers, length=len(body), PATH_INFO="/mcp", **{"wsgi.multithread": True})
    in_flight = IN_FLIGHT.count
    answer = McpWSGIApp(get_wsgi_application())(env, lambda status, headers: None)
    events = iter(answer)  # held, as a server holds it while it writes
    assert b"notifications/progress" in next(events)

    answer.close()  # the client left: the server closes the response

    # close() returned once the handler had ended, its sync work done.
    assert Signals.finished.is_set()
    assert not Signals.cancelled.is_set()
    assert IN_FLIGHT.count == in_flight
    assert not dispatcher.legacy_calls._tasks  # type: ignore[attr-defined]
