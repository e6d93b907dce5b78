"""The endpoint's input and output: one HTTP request and its reply, as plain values.

``HttpExchange`` is what an adapter (the Django view, ``McpASGIApp``,
``McpWSGIApp``, ``McpTestClient``) knows of a request: method, path,
headers, a body source, the peer's address, the scheme and server name,
whether it can send an event stream, and how to find the caller's session
user. Django's ``HttpRequest`` is not part of it: an adapter that has one
hands it over; one that has none gives a function that builds it, called
only when something needs it (an ``MCP_AUTHENTICATION_BACKENDS`` backend,
``MCP_CLIENT_IP``, a handler reading ``request.http_request``).

``HttpReply`` is what the endpoint answers: status, headers, and a body or
an async stream of SSE events, with what to run once the stream is over.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, Final

from django_mcp.transports._body import Body
from django_mcp.transports._headers import McpHeaders

__all__ = ["NOT_BUILT", "HttpExchange", "HttpReply"]

NOT_BUILT: Final = object()
"""``HttpExchange.request`` until Django's request is built."""


@dataclasses.dataclass(eq=False, slots=True, kw_only=True)
class HttpExchange:
    """One HTTP request as the endpoint sees it."""

    method: str
    #: The full path (``SCRIPT_NAME`` included), as Django's ``request.path``.
    path: str
    headers: McpHeaders
    #: The body, or where it comes from (read by the endpoint within the limit).
    body: Body | bytes
    #: The peer's address (``REMOTE_ADDR``); None when unknown.
    client: str | None = None
    #: The scheme the server saw; ``_origin.request_scheme`` applies a
    #: proxy's ``SECURE_PROXY_SSL_HEADER``, only where a scheme is needed
    #: (the Host of a request without one, the challenge's metadata URL).
    scheme: str = "http"
    #: ``SERVER_NAME`` and ``SERVER_PORT``, the host when no ``Host`` header came.
    server: tuple[str, str] = ("", "")
    #: True when the adapter can send a ``text/event-stream`` answering a POST.
    can_stream: bool = False
    #: True when it can also hold a stream open for as long as a client
    #: listens (``subscriptions/listen``, a session's GET): ASGI, or a WSGI
    #: server with threads to spare (``wsgi.multithread``).
    long_streams: bool = False
    #: A call made inside the process (the test client, the admin
    #: playground): no network peer, so no ``Host``/``Origin`` to check.
    in_process: bool = False
    #: Return the caller's user from the session (the view: Django's
    #: ``request.auser``); None: the endpoint reads the session cookie.
    session_user: Callable[[], Awaitable[Any]] | None = None
    #: The caller's session (fast paths: from the cookie, not loaded yet).
    session: Any = None
    #: The caller, once the endpoint knows it.
    user: Any = None
    #: Build Django's request for this exchange (called at most once).
    build_request: Callable[[HttpExchange], Any] | None = None
    #: Django's request, once built (``NOT_BUILT`` before).
    request: Any = NOT_BUILT
    #: The body, once read by the endpoint.
    body_bytes: bytes = b""

    def django_request(self) -> Any:
        """Return Django's ``HttpRequest`` for this exchange, built on the first call.

        None when the adapter can build none (the test client).
        """
        if self.request is NOT_BUILT:
            self.request = self.build_request(self) if self.build_request is not None else None
        return self.request


@dataclasses.dataclass(eq=False, slots=True)
class HttpReply:
    """What the endpoint answers: status, headers, and a body or an event stream."""

    status: int
    headers: list[tuple[str, str]] = dataclasses.field(default_factory=list)
    body: bytes = b""
    #: The ``text/event-stream`` body, sent event by event; None for ``body``.
    stream: AsyncIterator[bytes] | None = None
    #: Run once the stream is over, whether it was sent or the client left first.
    closed: Callable[[], None] | None = None
    #: A stream that idles for long (listen, a session's GET): the adapter
    #: may let the request's own thread go while it is open.
    long_lived: bool = False
    #: True when the request body may not have been read whole: the adapter
    #: drains it before the answer goes, and closes the connection when some
    #: of it is left unread (``_body.py``).
    refused_early: bool = False

    def header(self, name: str) -> str | None:
        """Return the value of header ``name`` (case-insensitive), None if absent."""
        lowered = name.lower()
        for key, value in self.headers:
            if key.lower() == lowered:
                return value
        return None
