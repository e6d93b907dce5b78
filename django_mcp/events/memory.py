"""In-process event backend: every listener in this process sees every event.

It is the default and needs no service, but events do not cross processes:
with several workers, use ``django_mcp.events.redis.RedisEventBackend``.
Publishing is thread-safe: sync code (a sync view, a signal handler, a sync
tool running in a worker thread) hands events to each listener's loop.

Each listener holds at most ``MCP_STREAM_BUFFER`` events its stream has not
taken yet. One that falls further behind does not silently miss events:
its pending events are dropped and its iterator raises ``EventsLost``, so
its stream ends and its client lists again.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from django_mcp.conf import get_setting
from django_mcp.events.base import EventBackend, EventsLost

if TYPE_CHECKING:
    from django_mcp.events import Event

__all__ = ["MemoryEventBackend"]


class _Listener:
    """One stream's queue of events, on its own event loop."""

    __slots__ = ("loop", "lost", "queue")

    def __init__(self, loop: asyncio.AbstractEventLoop, size: int) -> None:
        self.loop = loop
        # One slot more than the buffer: room for the end marker.
        self.queue: asyncio.Queue[Event | EventsLost] = asyncio.Queue(size + 1)
        self.lost: EventsLost | None = None

    def offer(self, event: Event) -> None:
        """Queue ``event`` (on the listener's loop); past the buffer, end the stream."""
        if self.lost is not None:
            return
        if self.queue.qsize() >= self.queue.maxsize - 1:
            self.end(f"more than {self.queue.maxsize - 1} change events were pending (MCP_STREAM_BUFFER)")
        else:
            self.queue.put_nowait(event)

    def end(self, reason: str) -> None:
        """Drop what is pending and make the iterator raise ``EventsLost`` (on the loop)."""
        if self.lost is not None:
            return
        self.lost = EventsLost(reason)
        while not self.queue.empty():
            self.queue.get_nowait()
        self.queue.put_nowait(self.lost)


class MemoryEventBackend(EventBackend):
    """Fan events out to listeners in this process."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._listeners: set[_Listener] = set()

    def publish(self, event: Event) -> None:
        """Queue ``event`` for every listener of this process."""
        for listener in self._snapshot():
            try:
                listener.loop.call_soon_threadsafe(listener.offer, event)
            except RuntimeError:  # that listener's loop has closed
                continue

    def deliver(self, event: Event, *, loop: asyncio.AbstractEventLoop) -> None:
        """Queue ``event`` for the listeners of ``loop``; call it on that loop."""
        for listener in self._snapshot():
            if listener.loop is loop:
                listener.offer(event)

    def end_listeners(self, reason: str, *, loop: asyncio.AbstractEventLoop | None = None) -> None:
        """End every listener (of ``loop`` only, when given): they raise ``EventsLost``."""
        for listener in self._snapshot():
            if loop is not None and listener.loop is not loop:
                continue
            try:
                listener.loop.call_soon_threadsafe(listener.end, reason)
            except RuntimeError:
                continue

    def _snapshot(self) -> list[_Listener]:
        with self._lock:
            return list(self._listeners)

    @contextlib.asynccontextmanager
    async def listen(self) -> AsyncIterator[AsyncIterator[Event]]:
        """Register a listener for the duration of the ``async with`` block."""
        listener = _Listener(asyncio.get_running_loop(), get_setting("MCP_STREAM_BUFFER"))
        with self._lock:
            self._listeners.add(listener)
        try:
            yield _drain(listener.queue)
        finally:
            with self._lock:
                self._listeners.discard(listener)


async def _drain(queue: asyncio.Queue[Event | EventsLost]) -> AsyncIterator[Event]:
    while True:
        item = await queue.get()
        if isinstance(item, EventsLost):
            raise item
        yield item
