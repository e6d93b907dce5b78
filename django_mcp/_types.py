"""Shared aliases and protocols: the ASGI and WSGI vocabulary, what a request path may ask of HTTP.

The ASGI names follow the ASGI 3 specification (``scope``, ``receive``,
``send``); the WSGI ones PEP 3333. ``HttpSource`` is what code below the
transports (the dispatcher, ``McpRequest``) may ask of the HTTP request it
serves, without importing ``django.http``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any, Protocol

__all__ = [
    "ASGIApp",
    "Environ",
    "HttpSource",
    "Message",
    "Receive",
    "Scope",
    "Send",
    "StartResponse",
    "WSGIApp",
]

#: An ASGI connection scope (as django-stubs types Django's handler, so it can be wrapped).
Scope = dict[str, Any]
#: One ASGI event, received or sent.
Message = Mapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: A WSGI environ (PEP 3333; as django-stubs types Django's WSGI helpers).
Environ = dict[str, Any]
StartResponse = Callable[..., Any]
WSGIApp = Callable[[Environ, StartResponse], Iterable[bytes]]


class HttpSource(Protocol):
    """The HTTP request one MCP request arrived in, as the request path may see it."""

    @property
    def client(self) -> str | None:
        """Return the peer's address (``REMOTE_ADDR``), None when unknown."""

    def django_request(self) -> Any:
        """Return Django's ``HttpRequest`` for it, built on the first call."""
