"""Refuse oversized MCP requests before Django reads them: ``McpASGIApp``.

Django's ``ASGIHandler`` reads a request's whole body (spooling it to a
temporary file) before any middleware or view runs, so the view's
``MCP_MAX_REQUEST_SIZE`` check answers 413 only once all of the body has
arrived. ``McpASGIApp`` wraps the project's ASGI application and answers
HTTP requests to MCP endpoints itself when they are too large:

* a ``Content-Length`` above ``MCP_MAX_REQUEST_SIZE``: 413 at once, without
  reading any of the body;
* no ``Content-Length`` (a chunked body): the body is read here, counted as
  it arrives, and refused with 413 as soon as it passes the limit; a body
  within the limit is handed on to Django whole.

The 413 is the view's own answer (JSON-RPC -32600 without an ``id``), sent
with ``Connection: close`` since the rest of the body is never read. It
comes before the Host, Origin and authentication checks, which the view
still applies to everything it serves. Everything else passes through
untouched: other paths, WebSocket and lifespan events, and MCP requests
whose ``Content-Length`` is within the limit.

An MCP endpoint is a path that resolves, through ``ROOT_URLCONF``, to an
``McpView`` (``Server.as_view()``, ``django_mcp.urls``); the answer is cached
per path. Wrap the application in the project's ``asgi.py``::

    from django.core.asgi import get_asgi_application

    from django_mcp.asgi import McpASGIApp

    application = McpASGIApp(get_asgi_application())
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Final

from django.core.handlers.asgi import get_script_prefix
from django.core.signals import setting_changed
from django.dispatch import receiver

from django_mcp.conf import get_settings
from django_mcp.dispatcher.codec import encode_error
from django_mcp.exceptions import InvalidRequest
from django_mcp.transports.http import is_mcp_path

__all__ = ["McpASGIApp"]

# As django-stubs types Django's ASGIHandler, so that it can be wrapped.
Scope = dict[str, Any]
Message = Mapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: Distinct paths whose verdict (MCP endpoint or not) is remembered.
_CACHED_PATHS: Final = 1024


class McpASGIApp:
    """Wrap an ASGI application; refuse oversized MCP requests early."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one ASGI connection."""
        if scope["type"] != "http" or not _is_mcp_endpoint(_path_info(scope)):
            await self.app(scope, receive, send)
            return
        limit = get_settings().limits.max_request_size
        declared = _content_length(scope)
        if declared is not None:
            if declared > limit:
                await _refuse(send)
            else:
                await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return  # gone before its request was complete: nobody to answer
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                await _refuse(send)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        await self.app(scope, _replay(b"".join(chunks), receive), send)


def _path_info(scope: Scope) -> str:
    # As Django's ASGIRequest computes it.
    path: str = scope["path"]
    script_name = get_script_prefix(scope)
    return path.removeprefix(script_name) if script_name else path


@functools.lru_cache(maxsize=_CACHED_PATHS)
def _is_mcp_endpoint(path_info: str) -> bool:
    return is_mcp_path(path_info)


@receiver(setting_changed)
def _forget_paths(*, setting: str, **kwargs: Any) -> None:
    if setting == "ROOT_URLCONF":
        _is_mcp_endpoint.cache_clear()


def _content_length(scope: Scope) -> int | None:
    for name, value in scope["headers"]:
        if name.lower() == b"content-length":
            return int(value) if value.isdigit() else None
    return None


async def _refuse(send: Send) -> None:
    body = encode_error(None, InvalidRequest("Request exceeds MCP_MAX_REQUEST_SIZE"))
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode("ascii")),
        (b"connection", b"close"),
    ]
    await send({"type": "http.response.start", "status": 413, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def _replay(body: bytes, receive: Receive) -> Receive:
    """Return a ``receive`` that gives ``body`` in one message, then defers to ``receive``."""
    delivered = False

    async def replayed() -> Message:
        nonlocal delivered
        if delivered:
            return await receive()
        delivered = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replayed
