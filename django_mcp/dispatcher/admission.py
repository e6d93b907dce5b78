"""Admission: how many requests and streams one process serves at once.

Requests (``InFlight``): at most ``MCP_MAX_CONCURRENT_REQUESTS`` are served
at the same time. One over the limit waits for a slot, first come first
served, for at most ``MCP_QUEUE_TIMEOUT`` seconds; then it is refused with
``ServerBusy`` (-32603, HTTP 503 with ``Retry-After``). A timeout of 0
refuses at once. Waiting costs no thread and no polling: a waiter is a
future of its own event loop, and the request that leaves hands its slot
straight to the oldest waiter with ``call_soon_threadsafe``. So the count
holds across threads (a threaded WSGI server runs each request in an event
loop of its own) and across loops, and a waiter that is cancelled or times
out never keeps a slot.

Streams (``OpenStreams``): at most ``MCP_MAX_STREAMS`` long-lived streams
(``subscriptions/listen``, 2025-11-25 ``GET`` streams) are open at the same
time. A stream runs no handler, so it takes no request slot; but each one
holds a socket and some memory for as long as its client listens. Over the
limit a new stream is refused at once with ``TooManyStreams`` (-32603, HTTP
503 with ``Retry-After``).

Both counts are per process.
"""

from __future__ import annotations

import asyncio
import collections
import dataclasses
import threading
import weakref
from collections.abc import AsyncIterator, Callable
from typing import Final

from django_mcp.exceptions import InternalError

__all__ = ["IN_FLIGHT", "OPEN_STREAMS", "InFlight", "OpenStreams", "ServerBusy", "TooManyStreams"]


class ServerBusy(InternalError):
    """No request slot freed up within ``MCP_QUEUE_TIMEOUT`` seconds."""

    default_message = "Server busy: too many concurrent requests, retry later"
    http_status = 503


class TooManyStreams(ServerBusy):
    """``MCP_MAX_STREAMS`` streams are already open in this process."""

    default_message = "Server busy: too many open streams, retry later"


@dataclasses.dataclass(eq=False, slots=True)
class _Waiter:
    """A request waiting for a slot, woken on its own loop."""

    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[None]
    #: Set (under the lock) when a leaving request handed its slot over.
    granted: bool = False


def _wake(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class InFlight:
    """Count the requests in flight in this process; queue the excess.

    The count and the queue are guarded by one lock: requests enter and
    leave from any thread and any event loop.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.count = 0
        self._waiters: collections.deque[_Waiter] = collections.deque()

    @property
    def waiting(self) -> int:
        """Return how many requests wait for a slot."""
        return len(self._waiters)

    def enter(self, limit: int) -> bool:
        """Admit one more request now unless ``limit`` are in flight."""
        with self._lock:
            if self.count >= limit:
                return False
            self.count += 1
            return True

    async def acquire(self, limit: int, timeout: float) -> bool:
        """Admit one more request, waiting up to ``timeout`` seconds for a slot.

        Return False when no slot came in time. Each True must be matched
        by one ``leave()``; a caller cancelled while waiting holds no slot.
        """
        with self._lock:
            if self.count < limit:
                self.count += 1
                return True
            if timeout <= 0 or limit < 1:
                return False
            loop = asyncio.get_running_loop()
            waiter = _Waiter(loop, loop.create_future())
            self._waiters.append(waiter)
        timer = loop.call_later(timeout, _wake, waiter.future)
        try:
            await waiter.future
        except BaseException:  # cancelled: hand on a slot that arrived meanwhile
            if self._withdraw(waiter):
                self.leave()
            raise
        finally:
            timer.cancel()
        # Woken by leave() or by the timer; only the flag says which.
        return self._withdraw(waiter)

    def _withdraw(self, waiter: _Waiter) -> bool:
        """Stop ``waiter`` waiting; return True when it was given a slot."""
        with self._lock:
            if not waiter.granted:
                self._waiters.remove(waiter)
            return waiter.granted

    def leave(self) -> None:
        """Mark one request done; its slot goes to the oldest waiter, if any."""
        while True:
            with self._lock:
                if not self._waiters:
                    self.count -= 1
                    return
                waiter = self._waiters.popleft()
                waiter.granted = True  # the count stays: the slot changes hands
            try:
                waiter.loop.call_soon_threadsafe(_wake, waiter.future)
            except RuntimeError:  # that waiter's loop has closed: try the next
                continue
            return


IN_FLIGHT: Final = InFlight()
"""The process-wide request count every dispatcher shares by default."""


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
