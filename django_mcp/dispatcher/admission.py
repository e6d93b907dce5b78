"""Admission of streams, and the errors that refuse work when a process is full.

Streams (``OpenStreams``): at most ``MCP_MAX_STREAMS`` long-lived streams
(``subscriptions/listen``, 2025-11-25 ``GET`` streams) are open at the same
time. A stream runs no handler, so it takes no request slot; but each one
holds a socket and some memory for as long as its client listens. Over the
limit a new stream is refused at once with ``TooManyStreams`` (-32603, HTTP
503 with ``Retry-After``). The count is per process.

Requests are admitted by the dispatcher itself (``InFlight`` in
``django_mcp.dispatcher``), which refuses one that waited
``MCP_QUEUE_TIMEOUT`` seconds in vain with ``ServerBusy``.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import AsyncIterator, Callable
from typing import Final

from django_mcp.exceptions import TooManyStreams

__all__ = ["OPEN_STREAMS", "OpenStreams"]


class OpenStreams:
    """Count the long-lived streams open in this process, across threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.count = 0

    def open(self, source: AsyncIterator[bytes], limit: int) -> AsyncIterator[bytes]:
        """Return ``source``, counted as one open stream until it ends.

        Raises:
            TooManyStreams: ``limit`` streams are open already.
        """
        with self._lock:
            if self.count >= limit:
                raise TooManyStreams()
            self.count += 1
        return _CountedStream(source, self._close)

    def _close(self) -> None:
        with self._lock:
            self.count -= 1


class _CountedStream:
    """Iterate a stream; give its slot back once, however it ends.

    It ends when the source is exhausted or fails, when it is closed, or
    when it is dropped without ever being iterated (a client that went away
    before the response started), which an async generator's ``finally``
    would not see.
    """

    __slots__ = ("__weakref__", "_release", "_source")

    def __init__(self, source: AsyncIterator[bytes], close: Callable[[], None]) -> None:
        self._source = source
        # Runs at most once: on release(), or when this object is collected.
        self._release = weakref.finalize(self, close)

    def __aiter__(self) -> _CountedStream:
        return self

    async def __anext__(self) -> bytes:
        try:
            return await self._source.__anext__()
        except BaseException:
            self._release()
            raise

    async def aclose(self) -> None:
        """Close the source and give the slot back."""
        try:
            aclose = getattr(self._source, "aclose", None)
            if aclose is not None:
                await aclose()
        finally:
            self._release()


OPEN_STREAMS: Final = OpenStreams()
"""The process-wide stream count every dispatcher shares by default."""
