"""Serve MCP endpoints without Django's request handler: ``McpASGIApp``.

``McpASGIApp`` wraps the project's ASGI application. A request to an MCP
endpoint (a path that resolves, through ``ROOT_URLCONF``, to an ``McpView``:
``Server.as_view()``, ``django_mcp.urls``; the verdict is cached per path)
is served here; everything else (the admin, the site, WebSocket and
lifespan events) goes to the wrapped application untouched.

An MCP request is served by the view itself: the body is read here, a real
``ASGIRequest`` is built from the scope, the session and authentication
middleware set ``request.session``, ``request.user`` and ``request.auser``
as Django would, and the view function is awaited
(``django_mcp.transports._direct`` lists which middleware run). So every
rule, limit, header and error is the view's. What is left out is Django's
per-request machinery: the ``request_started`` and ``request_finished``
signals (and their thread hops) and the middleware an MCP endpoint does not
use. A request's sync work (the session lookup, the ORM, a sync tool)
runs, as under Django's handler, in a thread of the request's own; but
that thread is lent from a pool (``SYNC_THREADS``, up to 64 kept idle)
rather than started and joined for every request, and its old database
connections are closed after the request as ``request_finished`` would
(``close_old_connections``), so ``CONN_MAX_AGE`` connections live on.

Oversized requests are refused before their body is read:

* a ``Content-Length`` above ``MCP_MAX_REQUEST_SIZE``: 413 at once;
* no ``Content-Length`` (a chunked body): counted as it arrives, 413 as
  soon as it passes the limit.

That 413 is the view's own answer (JSON-RPC -32600 without an ``id``), sent
with ``Connection: close`` since the rest of the body is never read. It
comes before the Host, Origin and authentication checks.

Responses are sent as Django's handler sends them; a stream's chunks as
they come, and a client that disconnects cancels the request (and closes
the stream) as under Django. Wrap the application in the project's
``asgi.py``::

    from django.core.asgi import get_asgi_application

    from django_mcp.asgi import McpASGIApp

    application = McpASGIApp(get_asgi_application())

``McpASGIApp(app, direct=False)`` only refuses oversized requests and hands
every request to ``app`` (the plain view under Django's handler).
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from typing import Any, Final, TypeVar

from asgiref.sync import SyncToAsync, ThreadSensitiveContext, sync_to_async
from django.core.handlers.asgi import ASGIRequest, get_script_prefix
from django.db import close_old_connections, connections
from django.http import HttpResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.urls import set_script_prefix

from django_mcp.conf import get_settings
from django_mcp.dispatcher.codec import encode_error
from django_mcp.exceptions import InvalidRequest
from django_mcp.transports._direct import Endpoint, endpoint, request_error, serve

__all__ = ["McpASGIApp"]

logger = logging.getLogger(__name__)
_T = TypeVar("_T")

# As django-stubs types Django's ASGIHandler, so that it can be wrapped.
Scope = dict[str, Any]
Message = Mapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: Bytes per ``http.response.body`` message (Django's ``ASGIHandler.chunk_size``).
CHUNK_SIZE = 2**16


class _Disconnected(Exception):
    """The client went away."""


class McpASGIApp:
    """Wrap an ASGI application; serve its MCP endpoints directly.

    With ``direct=False`` MCP requests go to ``app`` too, once they passed
    the early size check (the plain view under Django's handler).
    """

    def __init__(self, app: ASGIApp, *, direct: bool = True) -> None:
        self.app = app
        self.direct = direct

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one ASGI connection."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        found = endpoint(_path_info(scope))
        if found is None:
            await self.app(scope, receive, send)
            return
        limit = get_settings().limits.max_request_size
        declared = _content_length(scope)
        if declared is not None and declared > limit:
            await _refuse(send)
            return
        if declared is not None and not self.direct:
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
        body = b"".join(chunks)
        if not self.direct:
            await self.app(scope, _replay(body, receive), send)
            return
        # As under Django's handler, the request's thread-sensitive sync work
        # (session, ORM, a sync tool) runs in a thread of its own; here one
        # lent from SYNC_THREADS for the request, kept for a later one.
        context = ThreadSensitiveContext()
        token = SyncToAsync.thread_sensitive_context.set(context)
        lease = _Lease()
        SyncToAsync.context_to_thread_executor[context] = lease
        try:
            await _answer(scope, body, found, receive, send)
        finally:
            SyncToAsync.context_to_thread_executor.pop(context, None)  # gone if a stream let it go
            SyncToAsync.thread_sensitive_context.reset(token)
            await lease.finish()


class _Lease(Executor):
    """A request's sync thread: taken from ``SYNC_THREADS`` when first needed.

    ``finish`` closes old database connections there, as
    ``request_finished`` would, and gives the thread back. A stream lets
    its thread go early (``release_request_thread``: ``shutdown``).
    """

    __slots__ = ("executor",)

    def __init__(self) -> None:
        self.executor: ThreadPoolExecutor | None = None

    def submit(self, fn: Callable[..., _T], /, *args: Any, **kwargs: Any) -> Future[_T]:
        """Run ``fn`` in the request's sync thread."""
        if self.executor is None:
            self.executor = SYNC_THREADS.take()
        return self.executor.submit(fn, *args, **kwargs)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:  # noqa: FBT001, FBT002 - as Executor
        """Give the thread back once the work already submitted is done."""
        executor, self.executor = self.executor, None
        if executor is not None:
            executor.submit(SYNC_THREADS.give_back, executor)

    async def finish(self) -> None:
        """End the request: close its old connections, give its thread back."""
        executor, self.executor = self.executor, None
        if executor is not None:
            await asyncio.wrap_future(executor.submit(close_old_connections))
            SYNC_THREADS.give_back(executor)


class _SyncThreads:
    """Single-thread executors lent to requests; at most ``keep`` wait idle."""

    def __init__(self, keep: int) -> None:
        self.keep = keep
        self.idle: list[ThreadPoolExecutor] = []
        self.lock = threading.Lock()

    def take(self) -> ThreadPoolExecutor:
        with self.lock:
            if self.idle:
                return self.idle.pop()
        return ThreadPoolExecutor(max_workers=1, thread_name_prefix="mcp-asgi-sync")

    def give_back(self, executor: ThreadPoolExecutor) -> None:
        with self.lock:
            if len(self.idle) < self.keep:
                self.idle.append(executor)
                return
        _retire(executor)

    def clear(self) -> None:
        """Let every idle thread go (its connections closed)."""
        with self.lock:
            idle, self.idle = self.idle, []
        for executor in idle:
            _retire(executor)


def _retire(executor: ThreadPoolExecutor) -> None:
    executor.submit(connections.close_all)
    executor.shutdown(wait=False)


#: The threads requests run their sync work in (Django starts one per request).
SYNC_THREADS: Final = _SyncThreads(keep=64)


async def _answer(scope: Scope, body: bytes, found: Endpoint, receive: Receive, send: Send) -> None:
    """Serve one MCP request; a disconnect cancels it, as in Django's ``ASGIHandler``."""
    set_script_prefix(get_script_prefix(scope))
    try:
        request: ASGIRequest | None = ASGIRequest(scope, io.BytesIO(body))
    except UnicodeDecodeError:
        logger.warning("Bad Request (UnicodeDecodeError)", exc_info=True)
        request = None
    if request is None:
        await _send_response(request_error(400), send)
        return

    # The request runs in this task; a listener task waits for the client
    # to go away meanwhile and then cancels it (one task per request where
    # Django's handler makes two and waits on both).
    this = asyncio.current_task()
    assert this is not None
    gone = False

    def on_listened(listener: asyncio.Task[None]) -> None:
        nonlocal gone
        if not listener.cancelled() and isinstance(listener.exception(), _Disconnected):
            gone = True
            this.cancel()

    listening = asyncio.create_task(_listen_for_disconnect(receive))
    listening.add_done_callback(on_listened)
    try:
        response = await serve(request, found)
        await _send_response(response, send)
    except asyncio.CancelledError:
        if not gone:
            raise
        this.uncancel()  # cancelled for the client that left: nobody to answer
        return
    finally:
        listening.remove_done_callback(on_listened)
        listening.cancel()
    if response.streaming:
        # A stream's close() frees what it holds (a session's stream slot)
        # and sends request_finished: sync work, off the event loop.
        await sync_to_async(response.close)()


async def _listen_for_disconnect(receive: Receive) -> None:
    message = await receive()
    if message["type"] == "http.disconnect":
        raise _Disconnected
    raise AssertionError(f"Invalid ASGI message after request body: {message['type']}")


async def _send_response(response: HttpResponseBase, send: Send) -> None:
    """Send ``response`` as Django's ``ASGIHandler.send_response`` does."""
    headers = [(name.encode("ascii"), value.encode("latin1")) for name, value in response.items()]
    for cookie in response.cookies.values():
        headers.append((b"Set-Cookie", cookie.output(header="").encode("ascii").strip()))
    await send({"type": "http.response.start", "status": response.status_code, "headers": headers})
    if isinstance(response, StreamingHttpResponse):
        content: AsyncIterator[bytes] = aiter(response)
        async with contextlib.aclosing(content):  # type: ignore[type-var]
            async for part in content:
                for start in range(0, len(part), CHUNK_SIZE):
                    await send(
                        {
                            "type": "http.response.body",
                            "body": part[start : start + CHUNK_SIZE],
                            "more_body": True,
                        }
                    )
        await send({"type": "http.response.body"})
    else:
        assert isinstance(response, HttpResponse)
        await send({"type": "http.response.body", "body": response.content})


def _path_info(scope: Scope) -> str:
    # As Django's ASGIRequest computes it.
    path: str = scope["path"]
    script_name = get_script_prefix(scope)
    return path.removeprefix(script_name) if script_name else path


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
