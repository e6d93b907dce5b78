"""The Streamable HTTP view's replies: JSON answers and SSE streams.

Builds what ``McpView`` (``http.py``) and its 2025-11-25 session part
(``_legacy_http.py``) send back (MCP 2026-07-28 and 2025-11-25
basic/transports, "Streamable HTTP"):

* a JSON-RPC answer or error as ``application/json``, or a reply without
  a body (202, 204, 405) and so without a Content-Type; a 503 refusal
  carries ``Retry-After``;
* a ``text/event-stream`` of one request's outgoing messages (its
  notifications and, in a 2025-11-25 session, its requests to the client)
  ending with its response; the client leaving such a stream cancels a
  2026-07-28 request, while a 2025-11-25 request runs to completion;
* the long-lived streams (``subscriptions/listen``, a session's GET) with
  keep-alive comments, started before the response so a refusal keeps its
  own status.

SSE framing itself is ``_sse.py``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from django.http import HttpResponse, StreamingHttpResponse

from django_mcp.dispatcher import ServerBusy
from django_mcp.dispatcher.closing import install_signal_handlers
from django_mcp.dispatcher.codec import Reply, encode_error, encode_notification, error_reply
from django_mcp.dispatcher.sessions import StreamClaim
from django_mcp.exceptions import InternalError, McpError
from django_mcp.transports import _sse
from django_mcp.transports._threads import release_request_thread

__all__ = [
    "FINISHED",
    "JSON",
    "RETRY_AFTER",
    "SSE",
    "Finished",
    "busy",
    "client_left",
    "emitter",
    "empty",
    "json_error",
    "message_stream",
    "not_allowed",
    "reply_of",
    "sse_response",
    "started",
    "with_keepalive",
]

# The view's logger: one name for the whole HTTP transport, as configured.
logger = logging.getLogger("django_mcp.transports.http")

JSON = "application/json"
SSE = "text/event-stream"
#: Seconds a client refused as busy should wait before retrying.
RETRY_AFTER = "1"


class Finished:
    """Marks the end of a request's outgoing messages."""


FINISHED = Finished()
"""The one ``Finished`` a request's queue receives when its result is ready."""


# ------------------------------------------------------------ JSON


def json_error(request_id: Any, error: McpError, status: int) -> HttpResponse:
    """Return ``error`` as a JSON-RPC error answer with HTTP ``status``."""
    return HttpResponse(encode_error(request_id, error), status=status, content_type=JSON)


def busy(request_id: Any, error: ServerBusy) -> HttpResponse:
    """Return the 503 refusing a request or a stream, with ``Retry-After``."""
    response = json_error(request_id, error, error.http_status)
    retry_after = getattr(error, "retry_after", None)  # NotificationsUnavailable's
    response["Retry-After"] = RETRY_AFTER if retry_after is None else str(math.ceil(retry_after))
    return response


def empty(status: int) -> HttpResponse:
    """Return a reply without a body, and so without a Content-Type."""
    response = HttpResponse(status=status)
    del response["Content-Type"]  # Django's default is text/html
    return response


def not_allowed(allow: str = "POST, GET, DELETE") -> HttpResponse:
    """Return the 405 answer, with the methods served in ``Allow``."""
    response = empty(405)
    response["Allow"] = allow
    return response


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
    """Yield queued messages as SSE events, ending with the response."""
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


def sse_response(stream: AsyncIterator[bytes], *, claim: StreamClaim | None = None) -> StreamingHttpResponse:
    """Return ``stream`` as an SSE response; with ``claim``, one that frees the session's stream slot."""
    if claim is None:
        response = StreamingHttpResponse(stream, content_type=SSE)
    else:
        response = _ClaimedSseResponse(_released_after(stream, claim), claim=claim, content_type=SSE)
    for name, value in _sse.SSE_HEADERS.items():
        response[name] = value
    return response


class _ClaimedSseResponse(StreamingHttpResponse):
    """A session's GET stream: frees the session's stream slot when closed.

    Django closes every response it served, also when the client left
    before the first event (when the stream's own ``finally`` never runs).
    """

    def __init__(self, stream: AsyncIterator[bytes], *, claim: StreamClaim, content_type: str) -> None:
        super().__init__(stream, content_type=content_type)
        self._claim = claim

    def close(self) -> None:
        """Free the stream slot, then close as usual."""
        try:
            self._claim.release()
        finally:
            super().close()


async def _released_after(source: AsyncIterator[bytes], claim: StreamClaim) -> AsyncIterator[bytes]:
    """Yield ``source``, then free the session's stream slot."""
    try:
        async for item in source:
            yield item
    finally:
        await claim.arelease()


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
    stream when it returns False; setting ``ended`` ends it at once. A
    long-lived stream holds no thread: the request's is released first.
    """
    release_request_thread()
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
        for pending in (step, stop):
            if pending is not None and not pending.done():
                pending.cancel()
                with contextlib.suppress(BaseException):
                    await pending
