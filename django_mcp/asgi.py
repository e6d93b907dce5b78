"""Serve MCP endpoints without Django's request handler: ``McpASGIApp``.

``McpASGIApp`` wraps the project's ASGI application. A request to an MCP
endpoint (a path that resolves, through ``ROOT_URLCONF``, to a view of
``Server.as_view()`` or ``django_mcp.urls``; the verdict is cached per path)
is served here; everything else (the admin, the site, WebSocket and
lifespan events) goes to the wrapped application untouched. Wrap the
application in the project's ``asgi.py``::

    from django.core.asgi import get_asgi_application

    from django_mcp.asgi import McpASGIApp

    application = McpASGIApp(get_asgi_application())

An MCP request is answered by the same endpoint as the view
(``django_mcp.transports._endpoint``): this module only translates the ASGI
scope and messages into an ``HttpExchange`` and its ``HttpReply`` back into
messages, so every rule, limit, header and error is the view's. No Django
``HttpRequest`` or ``HttpResponse`` is built for it, no middleware runs and
no ``request_started``/``request_finished`` signal is sent: the endpoint
applies ``ALLOWED_HOSTS``, the proxy settings and the session cookie itself
(``_origin.py``, ``_identity.py``), and Django's request is built only when
something asks for it (an authentication backend, ``MCP_CLIENT_IP``, a
handler reading ``request.http_request``).

A request's thread-sensitive sync work (a session looked up, the ORM, a
sync tool) runs in a thread of its own, as under Django's handler, but that
thread is lent from a pool (``_threads.REQUEST_THREADS``) and its old
database connections are closed when it is given back, so ``CONN_MAX_AGE``
connections live on. A long-lived stream gives its thread back as soon as
it starts.

The body: a ``Content-Length`` above ``MCP_MAX_REQUEST_SIZE`` is refused
(413) before any of it is read, a chunked body as soon as it passes the
limit; what the client still sends is read and discarded before the
refusal is sent (at most ``DRAIN_BYTES``, ``DRAIN_SECONDS``; ``_body.py``),
so the answer reaches it rather than a connection reset. A client that
disconnects cancels its request (and closes its stream), as under Django.

``McpASGIApp(app, direct=False)`` only refuses oversized requests and hands
every request to ``app`` (the plain view under Django's handler).
Constructing either loads the URLconf: a server mounted with ``as_view()``
that does not compile stops the application from starting.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import io
from typing import Final

from django.core.handlers.asgi import ASGIRequest, get_script_prefix
from django.urls import get_resolver, set_script_prefix

from django_mcp._sync import run_sync
from django_mcp._types import ASGIApp, Message, Receive, Scope, Send
from django_mcp.conf import get_settings
from django_mcp.registry import registry
from django_mcp.transports._body import Body, BodyTooLarge, ChunkedBody
from django_mcp.transports._endpoint import Endpoint
from django_mcp.transports._exchange import HttpExchange, HttpReply
from django_mcp.transports._headers import McpHeaders
from django_mcp.transports._identity import attach_caller, find_session
from django_mcp.transports._replies import too_large
from django_mcp.transports._threads import REQUEST_THREADS, Lease
from django_mcp.transports.http import endpoint_at

__all__ = ["McpASGIApp"]

#: Bytes per ``http.response.body`` message (Django's ``ASGIHandler.chunk_size``).
CHUNK_SIZE: Final = 2**16


class _Gone(BaseException):
    """The client went away (an ``http.disconnect``): nobody to answer."""


class McpASGIApp:
    """Wrap an ASGI application; serve its MCP endpoints directly.

    With ``direct=False`` MCP requests go to ``app`` too, once they passed
    the early size check (the plain view under Django's handler).
    """

    def __init__(self, app: ASGIApp, *, direct: bool = True) -> None:
        self.app = app
        self.direct = direct
        get_resolver().url_patterns  # noqa: B018 - loads the URLconf: as_view() compiles its servers
        registry.check_mounted()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one ASGI connection."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        script_prefix = get_script_prefix(scope)
        endpoint = endpoint_at(_path_info(scope, script_prefix))
        if endpoint is None:
            await self.app(scope, receive, send)
        elif self.direct:
            await _serve(endpoint, scope, receive, send, script_prefix)
        else:
            await _size_checked(self.app, scope, receive, send)


async def _serve(endpoint: Endpoint, scope: Scope, receive: Receive, send: Send, script_prefix: str) -> None:
    """Serve one MCP request with the endpoint; a disconnect cancels it, as in Django's ``ASGIHandler``."""
    set_script_prefix(script_prefix)
    connection = _Connection(receive)
    exchange = _exchange_of(scope, connection)
    with REQUEST_THREADS.lease() as lease:  # the request's sync work goes to one thread, taken when needed
        try:
            reply = await endpoint.serve(exchange)
            await _send_reply(reply, send, lease, exchange.body)  # type: ignore[arg-type]  # a ChunkedBody
        except _Gone:
            return  # gone before its request was complete: nobody to answer
        except asyncio.CancelledError:
            if not connection.gone:
                raise
            asyncio.current_task().uncancel()  # type: ignore[union-attr]  # cancelled for the client that left
        finally:
            connection.stop_listening()


def _exchange_of(scope: Scope, connection: _Connection) -> HttpExchange:
    headers = McpHeaders.from_asgi(scope["headers"])
    client = scope.get("client")
    server = scope.get("server") or ("", "")
    exchange = HttpExchange(
        method=scope["method"],
        path=scope["path"],
        headers=headers,
        body=ChunkedBody(
            connection, declared=headers.content_length, expects_continue=_expects_continue(headers)
        ),
        client=client[0] if client else None,
        scheme=scope.get("scheme", "http"),
        server=(str(server[0]), str(server[1] if server[1] is not None else "")),
        can_stream=True,
        long_streams=True,
        build_request=functools.partial(_django_request, scope),
    )
    find_session(exchange)
    return exchange


def _expects_continue(headers: McpHeaders) -> bool:
    """Return True when the client waits for ``100 Continue`` before it sends its body."""
    expect = headers.joined("expect")
    return expect is not None and expect.lower() == "100-continue"


def _django_request(scope: Scope, exchange: HttpExchange) -> ASGIRequest:
    """Return Django's request for the exchange, as its middleware would have left it."""
    request = ASGIRequest(scope, io.BytesIO(exchange.body_bytes))
    attach_caller(request, exchange)
    return request


class _Connection:
    """One connection's ``receive``: the body's chunks, then a watch for the client leaving.

    Iterating it yields the body's chunks (an iterator class rather than an
    async generator, which the event loop would track and finalize).
    """

    def __init__(self, receive: Receive, *, listen: bool = True) -> None:
        self.receive = receive
        self.listen = listen
        self.gone = False
        self._complete = False
        self._starting: asyncio.Handle | None = None
        self._listening: asyncio.Task[None] | None = None
        self._served = asyncio.current_task()

    def __aiter__(self) -> _Connection:
        return self

    async def __anext__(self) -> bytes:
        """Return the body's next chunk; once it is complete, watch for a disconnect."""
        if self._complete:
            raise StopAsyncIteration
        message = await self.receive()
        if message["type"] == "http.disconnect":
            self.gone = True
            raise _Gone
        if not message.get("more_body", False):
            self._complete = True
            if self.listen:
                self._listen()
        chunk: bytes = message.get("body", b"")
        return chunk

    def _listen(self) -> None:
        # Only a request that gives the event loop a turn can notice a client
        # leaving, so the watch starts at the loop's next turn: a request
        # answered without waiting (an async tool) is over before then, and
        # costs no task at all.
        self._starting = asyncio.get_running_loop().call_soon(self._start_listening)

    def _start_listening(self) -> None:
        # The request runs in the serving task; this one waits for the client
        # to go away meanwhile and then cancels it (one task per request where
        # Django's handler makes two and waits on both).
        self._starting = None
        served = self._served

        def listened(listener: asyncio.Task[None]) -> None:
            if not listener.cancelled() and isinstance(listener.exception(), _Gone):
                self.gone = True
                if served is not None:
                    served.cancel()

        self._listening = asyncio.create_task(self._disconnected())
        self._listening.add_done_callback(listened)

    async def _disconnected(self) -> None:
        message = await self.receive()
        if message["type"] == "http.disconnect":
            raise _Gone
        raise AssertionError(f"Invalid ASGI message after request body: {message['type']}")

    def stop_listening(self) -> None:
        """Stop watching for a disconnect (the request is over)."""
        if self._starting is not None:
            self._starting.cancel()
        if self._listening is not None:
            self._listening.cancel()


async def _send_reply(reply: HttpReply, send: Send, lease: Lease, body: Body) -> None:
    """Send the endpoint's ``reply``: one body, or an event stream chunk by chunk."""
    headers = list(map(_raw_header, reply.headers))
    if reply.stream is None:
        headers.append((b"content-length", str(len(reply.body)).encode("ascii")))
        # A refused body is read before its refusal goes: uvicorn closes the
        # connection as soon as an answer marked "close" ends, and a close
        # with unread data is a reset that loses the answer. Raises _Gone
        # when the client leaves meanwhile.
        if reply.refused_early and not await body.drain():
            headers.append((b"connection", b"close"))  # some of it is left unread
        await send({"type": "http.response.start", "status": reply.status, "headers": headers})
        await send({"type": "http.response.body", "body": reply.body})
        return
    if reply.long_lived:
        lease.release()  # an idle stream holds no thread of its own
    try:
        await send({"type": "http.response.start", "status": reply.status, "headers": headers})
        async with contextlib.aclosing(reply.stream):  # type: ignore[type-var]
            async for part in reply.stream:
                for start in range(0, len(part), CHUNK_SIZE):
                    chunk = part[start : start + CHUNK_SIZE]
                    await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body"})
    finally:
        if reply.closed is not None:
            # Frees what the stream held (a session's stream slot): sync work.
            await run_sync(reply.closed)


@functools.lru_cache(maxsize=256)  # most replies send the same few headers
def _raw_header(header: tuple[str, str]) -> tuple[bytes, bytes]:
    """Return a reply header as ASGI sends it: lowercase name, bytes."""
    name, value = header
    return name.lower().encode("latin-1"), value.encode("latin-1")


def _path_info(scope: Scope, script_name: str) -> str:
    # As Django's ASGIRequest computes it (script_name: get_script_prefix(scope)).
    path: str = scope["path"]
    return path.removeprefix(script_name) if script_name else path


# ------------------------------------------------------------ direct=False


async def _size_checked(app: ASGIApp, scope: Scope, receive: Receive, send: Send) -> None:
    """Hand an MCP request to ``app`` once its body is known to be within the limit."""
    limit = get_settings().limits.max_request_size
    headers = McpHeaders.from_asgi(scope["headers"])
    declared = headers.content_length
    connection = _Connection(receive, listen=False)
    body = ChunkedBody(connection, declared=declared, expects_continue=_expects_continue(headers))
    if declared is not None and declared <= limit:
        await app(scope, receive, send)
        return
    try:
        data = await body.read(limit)
    except _Gone:
        return
    except BodyTooLarge as error:
        with contextlib.suppress(_Gone):  # gone while its body was drained: nobody to answer
            await _send_reply(too_large(error), send, REQUEST_THREADS.lease(), body)
        return
    await app(scope, _replay(data, receive), send)


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
