"""The endpoint's replies: JSON answers, refusals and SSE streams, as ``HttpReply`` values.

Builds what the endpoint (``_endpoint.py``) and its 2025-11-25 session part
(``_legacy_http.py``) send back (MCP 2026-07-28 and 2025-11-25
basic/transports, "Streamable HTTP"):

* a JSON-RPC answer or error as ``application/json``, or a reply without
  a body (202, 204) and so without a Content-Type; a 503 refusal carries
  ``Retry-After``; a 413 is marked refused early (the adapter drains the
  body, ``_body.py``); a 405 names the methods that would work;
* a ``text/event-stream`` of one request's outgoing messages (its
  notifications and, in a 2025-11-25 session, its requests to the client)
  ending with its response; the client leaving such a stream cancels a
  2026-07-28 request, while a 2025-11-25 request runs to completion;
* the long-lived streams (``subscriptions/listen``, a session's GET) with
  keep-alive comments, started before the reply so a refusal keeps its
  own status.

Every reply carries ``X-Content-Type-Options: nosniff``. SSE framing
itself is ``_sse.py``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, Final

from django_mcp.dispatcher.closing import abandon, install_signal_handlers
from django_mcp.dispatcher.codec import Reply, encode_error, encode_notification, error_reply
from django_mcp.exceptions import InternalError, InvalidRequest, McpError, ServerBusy
from django_mcp.transports import _sse
from django_mcp.transports._body import BodyTooLarge, ChunkedUnsupported
from django_mcp.transports._exchange import HttpReply

__all__ = [
    "FINISHED",
    "JSON",
    "JSON_HEADERS",
    "SSE",
    "Finished",
    "busy",
    "client_left",
    "dispatcher_reply",
    "emitter",
    "empty",
    "json_error",
    "json_reply",
    "length_required",
    "message_stream",
    "not_allowed",
    "reply_of",
    "sse_reply",
    "started",
    "stream_abandoned",
    "too_large",
    "with_keepalive",
]

# The endpoint's logger: one name for the whole HTTP transport, as configured.
logger = logging.getLogger("django_mcp.transports.http")

JSON: Final = "application/json"
SSE: Final = "text/event-stream"
#: Sent with every reply: an MCP answer is never to be sniffed as HTML.
_NOSNIFF: Final = ("X-Content-Type-Options", "nosniff")
#: The headers of every JSON answer.
JSON_HEADERS: Final = (("Content-Type", JSON), _NOSNIFF)


class Finished:
    """Marks the end of a request's outgoing messages."""


FINISHED = Finished()
"""The one ``Finished`` a request's queue receives when its result is ready."""


# ------------------------------------------------------------ JSON


def json_reply(body: bytes, status: int = 200, *headers: tuple[str, str]) -> HttpReply:
    """Return an encoded JSON-RPC message as the reply."""
    return HttpReply(status, [*JSON_HEADERS, *headers], body)


def json_error(request_id: Any, error: McpError, status: int) -> HttpReply:
    """Return ``error`` as a JSON-RPC error answer with HTTP ``status``."""
    return json_reply(encode_error(request_id, error), status)


def busy(request_id: Any, error: ServerBusy) -> HttpReply:
    """Return the 503 refusing a request or a stream, with ``Retry-After`` (seconds)."""
    reply = json_error(request_id, error, error.http_status)
    reply.headers.append(("Retry-After", str(math.ceil(error.retry_after))))
    return reply


def dispatcher_reply(reply: Reply, *, legacy: bool) -> HttpReply:
    """Return the dispatcher's ``reply`` as one JSON answer (``Retry-After`` when busy)."""
    # A 2025-11-25 session always answers JSON-RPC errors with HTTP 200.
    status = 200 if legacy and reply.error is not None else reply.status
    if isinstance(reply.error, ServerBusy):
        return json_reply(reply.body, status, ("Retry-After", str(math.ceil(reply.error.retry_after))))
    return json_reply(reply.body, status)


def too_large(error: BodyTooLarge) -> HttpReply:
    """Return the 413 refusing a body over a size limit (the adapter drains what is left)."""
    reply = json_error(None, InvalidRequest(str(error)), 413)
    reply.refused_early = True
    return reply


def length_required(error: ChunkedUnsupported) -> HttpReply:
    """Return the 411 refusing a chunked body the WSGI server cannot decode."""
    reply = json_error(None, InvalidRequest(str(error)), 411)
    reply.refused_early = True
    return reply


def empty(status: int) -> HttpReply:
    """Return a reply without a body, and so without a Content-Type."""
    return HttpReply(status, [_NOSNIFF])


def not_allowed(allow: str, *, text: str = "") -> HttpReply:
    """Return the 405 answer, naming the methods that would be served in ``Allow``.

    ``text`` is a short plain-text page (for a browser that opened the URL).
    """
    reply = HttpReply(405, [("Allow", allow), _NOSNIFF])
    if text:
        reply.headers.append(("Content-Type", "text/plain; charset=utf-8"))
        reply.body = text.encode()
    return reply


# ------------------------------------------------------------- SSE


def emitter(queue: asyncio.Queue[bytes | Finished]) -> Callable[[str, dict[str, Any]], None]:
    """Return the function that queues a request's notifications, from any thread."""
    loop = asyncio.get_running_loop()

    def emit(method: str, params: dict[str, Any]) -> None:
        message = encode_notification(method, params)
        if _running_loop() is loop:
            queue.put_nowait(message)
        else:
            # A sync handler logs from sync_to_async's worker thread:
            # asyncio queues are not thread-safe.
            loop.call_soon_threadsafe(queue.put_nowait, message)

    return emit


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def reply_of(task: asyncio.Future[Reply]) -> Reply:
    """Return a finished request task's reply (an internal error if it was cancelled)."""
    if task.cancelled():
        return error_reply(None, InternalError("Request cancelled"))
    return task.result()


async def message_stream(
    first: bytes,
    queue: asyncio.Queue[bytes | Finished],
    task: asyncio.Future[Reply],
    *,
    cancel_on_close: bool,
) -> AsyncIterator[bytes]:
    """Yield queued messages as SSE events, ending with the response.

    Closed before the response (the client left), it cancels the request
    (``cancel_on_close``, 2026-07-28) or waits for its handler to end
    (2025-11-25), so the request's thread and sync work stay its own until
    then. ``stream_abandoned`` covers a stream closed before it started.
    """
    try:
        yield _sse.event(first)
        while True:
            item = await queue.get()
            if isinstance(item, Finished):
                yield _sse.event(reply_of(task).body)
                return
            yield _sse.event(item)
    finally:
        client_left(task, cancel=cancel_on_close)
        if not task.done() and not cancel_on_close:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.shield(task)


def stream_abandoned(task: asyncio.Future[Reply], *, cancel: bool) -> Callable[[], None]:
    """Return an ``HttpReply.closed`` that calls ``client_left`` on ``task``'s own loop.

    A stream whose client left before its first event never runs its own
    ``finally``; the adapter still calls ``closed``, possibly from another
    thread (it is sync work to them).
    """
    loop = asyncio.get_running_loop()

    def closed() -> None:
        if task.done():
            return
        with contextlib.suppress(RuntimeError):  # the loop has closed: nothing left to stop
            loop.call_soon_threadsafe(lambda: client_left(task, cancel=cancel))

    return closed


def client_left(task: asyncio.Future[Reply], *, cancel: bool) -> None:
    """Handle a client gone before the request's result (nothing if it is done)."""
    if task.done():
        return
    if cancel:
        # 2026-07-28: closing the response stream cancels the request.
        task.cancel()
    else:
        # 2025-11-25 transports: a disconnection is not a cancellation (only
        # notifications/cancelled is); the handler runs to completion.
        task.add_done_callback(_result_discarded)


def _result_discarded(task: asyncio.Future[Reply]) -> None:
    if not task.cancelled():
        logger.debug("A 2025-11-25 request finished after its client left; its result is discarded")


def sse_reply(
    stream: AsyncIterator[bytes], *, closed: Callable[[], None] | None = None, long_lived: bool = False
) -> HttpReply:
    """Return ``stream`` as an SSE reply.

    ``closed`` runs once the stream is over, also when the client left
    before its first event (when the stream's own ``finally`` never runs).
    A ``long_lived`` stream (listen, a session's GET) needs no thread of the
    request's own while it idles: the adapter may let it go.
    """
    headers = [("Content-Type", SSE), *_sse.SSE_HEADERS.items(), _NOSNIFF]
    return HttpReply(200, headers, stream=stream, closed=closed, long_lived=long_lived)


async def started(stream: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    """Return ``stream`` once its first item is ready, so a refusal keeps its own status.

    A stream's first step starts listening to change events, which fails
    while the event backend cannot deliver (``NotificationsUnavailable``):
    the client must get that as a 503, not as a 200 stream that ends at
    once. It also makes sure a server shutdown ends the stream
    (``install_signal_handlers``).
    """
    install_signal_handlers()
    try:
        first = await anext(stream)
    except StopAsyncIteration:
        first = None
    return _resumed(first, stream)


async def _resumed(first: bytes | None, rest: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    """Yield ``first`` (unless None), then the rest of the stream it came from."""
    try:
        if first is not None:
            yield first
            async for item in rest:
                yield item
    finally:
        aclose = getattr(rest, "aclose", None)
        if aclose is not None:
            await aclose()


async def with_keepalive(
    source: AsyncIterator[bytes],
    interval: float,
    *,
    alive: Callable[[], Awaitable[bool]] | None = None,
    ended: asyncio.Event | None = None,
) -> AsyncIterator[bytes]:
    """Yield SSE events from ``source``, with a comment when it stays idle.

    An empty item from ``source`` becomes a comment too ("the stream is live").
    ``alive()`` is awaited at least every ``interval`` seconds and ends the
    stream when it returns False; setting ``ended`` ends it at once.
    """
    iterator = source.__aiter__()
    step: asyncio.Future[bytes] | None = None
    stop = asyncio.ensure_future(ended.wait()) if ended is not None else None
    loop = asyncio.get_running_loop()
    checked = loop.time()
    try:
        while True:
            if step is None:
                step = asyncio.ensure_future(iterator.__anext__())
            waiting: set[asyncio.Future[Any]] = {step} if stop is None else {step, stop}
            done, _ = await asyncio.wait(waiting, timeout=interval, return_when=asyncio.FIRST_COMPLETED)
            if stop is not None and stop.done():
                return
            if alive is not None and (step not in done or loop.time() - checked >= interval):
                checked = loop.time()
                if not await alive():
                    return
            if step not in done:
                yield _sse.KEEPALIVE
                continue
            try:
                item = step.result()
            except StopAsyncIteration:
                return
            step = None
            yield _sse.event(item) if item else _sse.KEEPALIVE
    finally:
        await abandon(step, stop)
