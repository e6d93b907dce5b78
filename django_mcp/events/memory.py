"""In-process event backend: every listener in this process sees every event.

It is the default and needs no service, but events do not cross processes:
with several workers, use ``django_mcp.events.redis.RedisEventBackend``.
Publishing is thread-safe: sync code (a sync view, a signal handler, a sync
tool running in a worker thread) hands events to each listener's loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from django_mcp.events.base import EventBackend

if TYPE_CHECKING:
    from django_mcp.events import Event

__all__ = ["MemoryEventBackend"]

# Bound per listener so one stalled stream cannot grow memory without limit.
_QUEUE_SIZE = 1000


class MemoryEventBackend(EventBackend):
    """Fan events out to listeners in this process."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._listeners: set[tuple[asyncio.AbstractEventLoop, asyncio.Queue[Event]]] = set()

    def publish(self, event: Event) -> None:
        """Queue ``event`` for every listener of this process."""
        with self._lock:
            listeners = list(self._listeners)
        for loop, queue in listeners:
            try:
                loop.call_soon_threadsafe(_offer, queue, event)
            except RuntimeError:  # that listener's loop has closed
                continue

    @contextlib.asynccontextmanager
    async def listen(self) -> AsyncIterator[AsyncIterator[Event]]:
        """Register a listener for the duration of the ``async with`` block."""
        queue: asyncio.Queue[Event] = asyncio.Queue(_QUEUE_SIZE)
        key = (asyncio.get_running_loop(), queue)
        with self._lock:
            self._listeners.add(key)
        try:
            yield _drain(queue)
        finally:
            with self._lock:
                self._listeners.discard(key)


def _offer(queue: asyncio.Queue[Event], event: Event) -> None:
    with contextlib.suppress(asyncio.QueueFull):
        queue.put_nowait(event)


async def _drain(queue: asyncio.Queue[Event]) -> AsyncIterator[Event]:
    while True:
        yield await queue.get()
