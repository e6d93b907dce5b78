"""A request body within ``MCP_MAX_REQUEST_SIZE``: the one size rule, and the lingering close.

One rule for every way to serve, checked as early as it can be:

* a declared ``Content-Length`` over the limit is refused before any byte
  of the body is read;
* a body without one (chunked) is counted as it arrives and refused as soon
  as it passes the limit, never held whole;
* under Django's own handler, ``DATA_UPLOAD_MAX_MEMORY_SIZE`` may refuse
  it first (Django reads the body).

Every refusal is ``BodyTooLarge``, answered 413 by the endpoint
(``_replies.too_large``). A refusal sent while the client is still sending
would reach it as a connection reset: a server closes a socket with unread
data by a reset, which throws away the answer the client has not read yet,
and uvicorn closes the connection as soon as an answer marked
``Connection: close`` ends, so nothing read after the answer helps. The
adapter therefore reads and discards the rest of a refused body BEFORE it
sends the 413 (``Body.drain``), within two bounds:

* ``DRAIN_BYTES`` (64 MiB) in all: a body declared larger is not read at
  all, a chunked one is read up to it;
* ``DRAIN_SECONDS`` (10 s) from the refusal on: a client sending slower
  than that is not waited for.

A body read to its end leaves the connection clean: the 413 goes without
``Connection: close`` and the connection may carry the next request. A body
left unread (past a bound) is logged (WARNING on
``django_mcp.transports.http``, with its size and the bound, never its
content) and its 413 asks the server to close the connection (under ASGI;
a WSGI server decides that itself: gunicorn reads at most 64 KiB more, then
closes); a client still sending then may see a reset instead of its 413.
Under ASGI, a client that asked for ``Expect: 100-continue`` and has sent
nothing yet gets its 413 at once (and a closed connection): reading would
make the server invite the body only to throw it away. Under WSGI the
server has invited it already (gunicorn sends ``100 Continue`` before the
application runs), so it is read like any other.

A chunked body needs a server that decodes it: every ASGI server does; a
WSGI server says so with ``wsgi.input_terminated`` (gunicorn, for one).
Elsewhere a body sent without ``Content-Length`` cannot be read whole and
is refused (``ChunkedUnsupported``, 411) rather than taken as empty.

Body sources: ``ReadyBody`` (bytes in hand), ``ChunkedBody`` (an async
iterator of chunks: the ASGI ``receive`` loop), ``wsgi_body`` (a WSGI
``wsgi.input``, read in pieces).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Mapping
from typing import IO, Any, Final, Protocol

__all__ = [
    "DRAIN_BYTES",
    "DRAIN_SECONDS",
    "Body",
    "BodyTooLarge",
    "ChunkedBody",
    "ChunkedUnsupported",
    "ReadyBody",
    "wsgi_body",
]

# The HTTP transport's logger: one name for the endpoint and its adapters.
logger = logging.getLogger("django_mcp.transports.http")

DRAIN_BYTES: Final = 64 * 1024 * 1024
"""The largest refused body read and discarded so its 413 arrives (bytes).

A declared ``Content-Length`` above it is not read at all; a chunked body
is read up to it. Reading a body only to refuse it costs bandwidth, so the
bound is a few times the largest body a client sends by mistake (an upload
inlined as Base64), not the largest a link can carry.
"""

DRAIN_SECONDS: Final = 10.0
"""The longest a refused body is read for, from the refusal on (seconds)."""

#: How large one piece read from a stream is (bytes).
CHUNK: Final = 64 * 1024


class BodyTooLarge(Exception):
    """The body passes a size limit; ``setting`` names it."""

    def __init__(self, setting: str = "MCP_MAX_REQUEST_SIZE") -> None:
        self.setting = setting
        super().__init__(f"Request exceeds {setting}")

    def __repr__(self) -> str:
        return f"BodyTooLarge(setting={self.setting!r})"


class ChunkedUnsupported(Exception):
    """A body without ``Content-Length`` that this WSGI server does not decode."""

    def __init__(self) -> None:
        super().__init__(
            "Request body without Content-Length: this WSGI server cannot read it "
            "(it does not set wsgi.input_terminated); send Content-Length or use an ASGI server"
        )


class Body(Protocol):
    """Where an adapter's request body comes from."""

    #: The ``Content-Length`` the client declared (None: chunked, unknown).
    declared: int | None

    async def read(self, limit: int) -> bytes:
        """Return the whole body; raise ``BodyTooLarge`` past ``limit`` bytes."""

    async def drain(self) -> bool:
        """Read and discard what is left of a refused body, within the bounds.

        Return True when the body was read to its end (the connection may
        carry another request), False when some of it was left unread (the
        connection must close).
        """


class ReadyBody:
    """A body already in hand (read by Django's handler, or built in-process)."""

    __slots__ = ("data", "declared")

    def __init__(self, data: bytes, *, declared: int | None = None) -> None:
        self.data = data
        self.declared: int | None = len(data) if declared is None else declared

    async def read(self, limit: int) -> bytes:
        """Return the body; raise ``BodyTooLarge`` past ``limit`` bytes."""
        if len(self.data) > limit:
            raise BodyTooLarge()
        return self.data

    async def drain(self) -> bool:
        """Return True: nothing is left to read."""
        return True


class ChunkedBody:
    """A body that arrives in chunks, counted as they come.

    ``expects_continue``: the client sent ``Expect: 100-continue`` and the
    server sends ``100 Continue`` only once the body is first read (ASGI).
    """

    __slots__ = ("_chunks", "_done", "_size", "declared", "expects_continue")

    def __init__(
        self, chunks: AsyncIterator[bytes], *, declared: int | None, expects_continue: bool = False
    ) -> None:
        self._chunks = chunks
        self._done = False
        self._size = 0
        self.declared = declared
        self.expects_continue = expects_continue

    async def read(self, limit: int) -> bytes:
        """Return the body; raise ``BodyTooLarge`` as soon as it passes ``limit`` bytes."""
        if self.declared is not None and self.declared > limit:
            raise BodyTooLarge()
        parts: list[bytes] = []
        async for chunk in self._chunks:
            self._size += len(chunk)
            if self._size > limit:
                raise BodyTooLarge()
            parts.append(chunk)
        self._done = True
        return b"".join(parts)

    async def drain(self) -> bool:
        """Discard the rest of the body: at most ``DRAIN_BYTES`` in all, for ``DRAIN_SECONDS``.

        Return True once it was read to its end, False when it was left
        unread (logged, save for a client still waiting to send it).
        """
        if self._done:
            return True
        if self.declared is not None and self.declared > DRAIN_BYTES:
            logger.warning(
                "A refused request body declared %d bytes, over the drain bound of %d bytes "
                "(DRAIN_BYTES): not read; the connection closes and the client may not get its 413",
                self.declared,
                DRAIN_BYTES,
            )
            return False
        if self.expects_continue and self._size == 0:
            return False  # nothing sent: reading would invite the body only to throw it away
        deadline = time.monotonic() + DRAIN_SECONDS
        try:
            # A task can wait on a slow client for at most the bound; under
            # WSGI (no task) each read blocks, and the deadline is checked
            # between reads.
            async with asyncio.timeout(DRAIN_SECONDS) if _in_task() else contextlib.nullcontext():
                async for chunk in self._chunks:
                    self._size += len(chunk)
                    if self._size > DRAIN_BYTES:
                        logger.warning(
                            "A refused request body passed the drain bound of %d bytes "
                            "(DRAIN_BYTES) without its end: the rest is not read; the "
                            "connection closes and the client may not get its 413",
                            DRAIN_BYTES,
                        )
                        return False
                    if time.monotonic() > deadline:
                        raise TimeoutError
        except TimeoutError:
            logger.warning(
                "A refused request body was not complete after %g s (DRAIN_SECONDS), %d bytes "
                "read: the rest is not read; the connection closes and the client may not get its 413",
                DRAIN_SECONDS,
                self._size,
            )
            return False
        self._done = True
        return True


def _in_task() -> bool:
    """Return True when an asyncio task runs this code (not a WSGI request's first step)."""
    try:
        return asyncio.current_task() is not None
    except RuntimeError:  # no loop at all
        return False


class _Unreadable:
    """A chunked body a WSGI server does not decode: refused, never taken as empty."""

    declared: int | None = None

    async def read(self, limit: int) -> bytes:
        """Refuse the body."""
        raise ChunkedUnsupported()

    async def drain(self) -> bool:
        """Return False: nothing can be read, the connection must close."""
        return False


class _SizedBody(ChunkedBody):
    """A WSGI body of a declared length: read with plain blocking reads, as a WSGI application reads.

    The length is known and within the limit once ``read`` starts, so no
    chunk needs counting on the way; a refused body is still drained chunk
    by chunk (``ChunkedBody.drain``).
    """

    __slots__ = ("_stream",)

    def __init__(self, stream: IO[bytes], declared: int) -> None:
        super().__init__(_pieces(stream, declared), declared=declared)
        self._stream = stream

    async def read(self, limit: int) -> bytes:
        """Return the body (shorter when the client sent less); raise ``BodyTooLarge`` past ``limit``."""
        declared: int = self.declared  # type: ignore[assignment]  # always given here
        if declared > limit:
            raise BodyTooLarge()
        data = self._stream.read(declared) if declared else b""
        while len(data) < declared:  # a short read: the rest as it comes
            piece = self._stream.read(declared - len(data))
            if not piece:
                break
            data += piece
        self._size = len(data)
        self._done = True
        return data


def wsgi_body(environ: Mapping[str, Any], declared: int | None) -> Body:
    """Return the body source of a WSGI request (``wsgi.input``) declaring ``declared`` bytes.

    ``declared`` is the request's ``McpHeaders.content_length``, parsed once.
    """
    stream: IO[bytes] = environ["wsgi.input"]
    if declared is not None:
        return _SizedBody(stream, declared)
    if environ.get("wsgi.input_terminated"):
        return ChunkedBody(_pieces(stream, None), declared=None)
    if "chunked" in str(environ.get("HTTP_TRANSFER_ENCODING", "")).lower():
        return _Unreadable()
    return ReadyBody(b"")


async def _pieces(stream: IO[bytes], total: int | None) -> AsyncIterator[bytes]:
    """Yield ``stream`` in pieces: ``total`` bytes, or up to its end when None.

    The reads block the WSGI thread, as a WSGI application's reads do.
    """
    left = total
    while left is None or left > 0:
        piece = stream.read(CHUNK if left is None else min(CHUNK, left))
        if not piece:
            return
        if left is not None:
            left -= len(piece)
        yield piece
