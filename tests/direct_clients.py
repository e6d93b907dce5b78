"""Django test clients that serve through ``McpASGIApp`` or ``McpWSGIApp`` instead of Django's handler.

They are ``AsyncClient`` subclasses, so a test written for Django's async
test client (``tests/transports/conftest.py``'s ``wire``) runs unchanged
through a fast path: the scope Django's client builds is sent to the ASGI
application (or turned into a WSGI environ, served in a thread without an
event loop), and the answer is rebuilt as an ``HttpResponse`` (or, when it
streams, a ``StreamingHttpResponse`` whose ``close()`` disconnects the
client, as a browser closing the connection).
"""

from __future__ import annotations

import asyncio
import io
import sys
from collections.abc import AsyncIterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from django.core.asgi import get_asgi_application
from django.core.handlers.asgi import ASGIRequest
from django.core.wsgi import get_wsgi_application
from django.http import HttpResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.test import AsyncClient

from django_mcp.asgi import McpASGIApp
from django_mcp.wsgi import McpWSGIApp

__all__ = ["ASGIAppClient", "WSGIAppClient"]


def _body(scope: dict[str, Any]) -> bytes:
    payload = scope.pop("_body_file", None)
    return payload.read() if payload is not None else b""


def _rebuilt(
    status: int, headers: list[tuple[bytes, bytes]], content: bytes | AsyncIterator[bytes]
) -> HttpResponseBase:
    response: HttpResponseBase
    if isinstance(content, bytes):
        response = HttpResponse(content, status=status)
    else:
        response = StreamingHttpResponse(content, status=status)
    del response["Content-Type"]
    for name, value in headers:
        if name.lower() == b"set-cookie":
            response.cookies.load(value.decode("latin-1"))
        else:
            response[name.decode("latin-1")] = value.decode("latin-1")
    return response


class _ASGIHandler:
    """Serve a Django test client's scope through an ASGI application."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.closing: set[asyncio.Task[None]] = set()

    async def __call__(self, scope: dict[str, Any]) -> HttpResponseBase:
        # A stream the test closed is gone before the next request.
        if self.closing:
            await asyncio.gather(*self.closing, return_exceptions=True)
            self.closing.clear()
        body = _body(scope)
        scope.setdefault("path", "/")
        scope["raw_path"] = scope["path"].encode()
        request = ASGIRequest(dict(scope), io.BytesIO(body))
        gone = asyncio.Event()
        sent: asyncio.Queue[Mapping[str, Any]] = asyncio.Queue()
        messages = [{"type": "http.request", "body": body, "more_body": False}]

        async def receive() -> Mapping[str, Any]:
            if messages:
                return messages.pop(0)
            await gone.wait()
            return {"type": "http.disconnect"}

        async def run() -> None:
            try:
                await self.app(scope, receive, sent.put)
            finally:
                await sent.put({"type": "app.done"})

        task = asyncio.create_task(run())
        start = await sent.get()
        if start["type"] == "app.done":
            await task
            raise AssertionError("the application sent no response")
        first = await sent.get()
        if not first.get("more_body", False):
            gone.set()
            await task
            response = _rebuilt(start["status"], list(start["headers"]), first.get("body", b""))
        else:

            async def chunks() -> AsyncIterator[bytes]:
                message = first
                try:
                    while message["type"] == "http.response.body":
                        if message.get("body"):
                            yield message["body"]
                        if not message.get("more_body", False):
                            return
                        message = await sent.get()
                finally:
                    gone.set()

            response = _rebuilt(start["status"], list(start["headers"]), chunks())
            response.close = lambda: self._disconnect(gone, task)  # type: ignore[method-assign]
        response.asgi_request = request  # type: ignore[attr-defined]
        return response

    def _disconnect(self, gone: asyncio.Event, task: asyncio.Task[None]) -> None:
        gone.set()
        self.closing.add(task)


async def _replayed(content: bytes) -> AsyncIterator[bytes]:
    """Yield a stream the WSGI application sent whole (the thread read it to its end)."""
    yield content


class _WSGIHandler:
    """Serve a Django test client's scope through a WSGI application, in a thread."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any]) -> HttpResponseBase:
        body = _body(scope)
        request = ASGIRequest(dict(scope), io.BytesIO(body))
        environ: dict[str, Any] = {
            "REQUEST_METHOD": scope["method"],
            "SCRIPT_NAME": "",
            "PATH_INFO": scope["path"],
            "QUERY_STRING": scope.get("query_string", b"").decode("latin-1")
            if isinstance(scope.get("query_string"), bytes)
            else scope.get("query_string", ""),
            "SERVER_NAME": "testserver",
            "SERVER_PORT": "80",
            "SERVER_PROTOCOL": "HTTP/1.1",
            "REMOTE_ADDR": "127.0.0.1",
            "wsgi.version": (1, 0),
            "wsgi.url_scheme": scope.get("scheme", "http"),
            "wsgi.input": io.BytesIO(body),
            "wsgi.errors": sys.stderr,
            # A WSGI server without threads to spare: long-lived streams are
            # refused (test_wsgi.py serves them on a threaded one).
            "wsgi.multithread": False,
            "wsgi.multiprocess": False,
            "wsgi.run_once": False,
        }
        for raw_name, raw_value in scope.get("headers", []):
            name = raw_name.decode("latin-1").upper().replace("-", "_")
            value = raw_value.decode("latin-1")
            key = name if name in ("CONTENT_TYPE", "CONTENT_LENGTH") else f"HTTP_{name}"
            environ[key] = f"{environ[key]},{value}" if key in environ else value
        started: dict[str, Any] = {}

        def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> None:
            started["status"] = int(status.split(" ", 1)[0])
            started["headers"] = [(n.encode("latin-1"), v.encode("latin-1")) for n, v in headers]

        def serve() -> bytes:
            result = self.app(environ, start_response)
            try:
                return b"".join(result)
            finally:
                close = getattr(result, "close", None)
                if close is not None:
                    close()

        # A thread of the request's own: McpWSGIApp's per-thread loop and
        # sync thread (and the test database connection there) end with it.
        with ThreadPoolExecutor(max_workers=1) as thread:
            content = await asyncio.wrap_future(thread.submit(serve))
        headers = started["headers"]
        if {name.lower(): value for name, value in headers}.get(b"content-type", b"").startswith(
            b"text/event-stream"
        ):
            response = _rebuilt(started["status"], headers, _replayed(content))
        else:
            response = _rebuilt(started["status"], headers, content)
        response.asgi_request = request  # type: ignore[attr-defined]
        return response


class ASGIAppClient(AsyncClient):
    """``AsyncClient`` served by ``McpASGIApp(get_asgi_application())``."""

    def __init__(self, **defaults: Any) -> None:
        super().__init__(**defaults)
        self.handler = _ASGIHandler(McpASGIApp(get_asgi_application()))  # type: ignore[assignment]


class WSGIAppClient(AsyncClient):
    """``AsyncClient`` served by ``McpWSGIApp(get_wsgi_application())``, in a thread."""

    def __init__(self, **defaults: Any) -> None:
        super().__init__(**defaults)
        self.handler = _WSGIHandler(McpWSGIApp(get_wsgi_application()))  # type: ignore[assignment]


class PlainWSGIClient(AsyncClient):
    """``AsyncClient`` served by Django's own WSGI handler (the plain view), in a thread."""

    def __init__(self, **defaults: Any) -> None:
        super().__init__(**defaults)
        self.handler = _WSGIHandler(get_wsgi_application())  # type: ignore[assignment]
