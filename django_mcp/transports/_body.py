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
would reach it as a connection reset (the server closes a socket with
unread data), so the adapter then reads and discards what is still coming,
at most ``DRAIN_BYTES`` bytes and, where it can wait, ``DRAIN_SECONDS``
seconds, before it closes: the lingering close of HTTP servers.

A chunked body needs a server that decodes it: every ASGI server does; a
WSGI server says so with ``wsgi.input_terminated`` (gunicorn, for one).
Elsewhere a body sent without ``Content-Length`` cannot be read whole and
is refused (``ChunkedUnsupported``, 411) rather than taken as empty.

Body sources: ``ReadyBody`` (bytes in hand), ``ChunkedBody`` (an async
iterator of chunks: the ASGI ``receive`` loop), ``wsgi_body`` (a WSGI
``wsgi.input``, read in pieces).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
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

DRAIN_BYTES: Final = 16 * 1024 * 1024
"""The most a refused request's remaining body is read for (bytes)."""

DRAIN_SECONDS: Final = 2.0
"""The longest a refused request's remaining body is waited for (seconds)."""

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

    async def drain(self) -> None:
        """Read and discard what is left of a refused body (bounded)."""


class ReadyBody:
    """A body already in hand (read by Django's handler, or built in-process)."""

    __slots__ = ("_drain", "data", "declared")

    def __init__(
        self, data: bytes, *, declared: int | None = None, drain: Callable[[], None] | None = None
    ) -> None:
        self.data = data
        self.declared: int | None = len(data) if declared is None else declared
        self._drain = drain

    async def read(self, limit: int) -> bytes:
        """Return the body; raise ``BodyTooLarge`` past ``limit`` bytes."""
        if len(self.data) > limit:
            raise BodyTooLarge()
        return self.data

    async def drain(self) -> None:
        """Run the adapter's own drain, if it has one."""
        if self._drain is not None:
            self._drain()


class ChunkedBody:
    """A body that arrives in chunks, counted as they come."""

    __slots__ = ("_chunks", "_done", "declared")

    def __init__(self, chunks: AsyncIterator[bytes], *, declared: int | None) -> None:
        self._chunks = chunks
        self._done = False
        self.declared = declared

    async def read(self, limit: int) -> bytes:
        """Return the body; raise ``BodyTooLarge`` as soon as it passes ``limit`` bytes."""
        if self.declared is not None and self.declared > limit:
            raise BodyTooLarge()
        parts: list[bytes] = []
        size = 0
        async for chunk in self._chunks:
            size += len(chunk)
            if size > limit:
                raise BodyTooLarge()
            parts.append(chunk)
        self._done = True
        return b"".join(parts)

    async def drain(self) -> None:
        """Discard the rest of the body, at most ``DRAIN_BYTES`` of it."""
        if self._done:
            return
        self._done = True
        left = DRAIN_BYTES
        async for chunk in self._chunks:
            left -= len(chunk)
            if left <= 0:
                return


class _Unreadable:
    """A chunked body a WSGI server does not decode: refused, never taken as empty."""

    declared: int | None = None

    async def read(self, limit: int) -> bytes:
        """Refuse the body."""
        raise ChunkedUnsupported()

    async def drain(self) -> None:
        """Nothing can be read: the server closes the connection."""


def wsgi_body(environ: Mapping[str, Any], declared: int | None) -> Body:
    """Return the body source of a WSGI request (``wsgi.input``) declaring ``declared`` bytes.

    ``declared`` is the request's ``McpHeaders.content_length``, parsed once.
    """
    stream: IO[bytes] = environ["wsgi.input"]
    if declared is not None:
        return ChunkedBody(_pieces(stream, declared), declared=declared)
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
