"""In-process event backend: each listener of this process gets the events it asked for.

It is the default and needs no service, but events do not cross processes:
with several workers, use ``django_mcp.events.redis.RedisEventBackend``.
Publishing is thread-safe: sync code (a sync view, a signal handler, a sync
tool running in a worker thread) hands events to each listener's loop.
A listener names what it wants when it starts (an ``Interest``); an event
is offered only to the listeners filed under its keys (``_interest.Index``),
so publishing costs the listeners concerned, not every open stream.

Each listener holds at most ``MCP_STREAM_BUFFER`` events its stream has not
taken yet. One that falls further behind does not silently miss events:
its pending events are dropped and its iterator raises ``EventsLost``, so
its stream ends and its client lists again.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import threading
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING

from django_mcp.conf import get_setting
from django_mcp.events._interest import Index, Interest
from django_mcp.events.base import EventBackend, EventsLost

if TYPE_CHECKING:
    from django_mcp.events import Event

__all__ = ["Listening", "MemoryEventBackend"]


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
    """Fan events out to the listeners of this process that asked for them.

    Each event loop has an ``Index`` of its listeners by interest; an event
    is routed on the listeners' own loop, so a change of interest carried by
    an event applies before any later event is routed there.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._listeners: set[_Listener] = set()
        self._indexes: dict[asyncio.AbstractEventLoop, Index[_Listener]] = {}

    def publish(self, event: Event) -> None:
        """Queue ``event`` for the listeners of this process it concerns."""
        with self._lock:
            loops = list(self._indexes)
        for loop in loops:
            try:
                loop.call_soon_threadsafe(self._route, event, loop)
            except RuntimeError:  # that loop has closed
                continue

    def deliver(self, event: Event, *, loop: asyncio.AbstractEventLoop) -> None:
        """Queue ``event`` for the listeners of ``loop`` it concerns; call it on that loop."""
        self._route(event, loop)

    def _route(self, event: Event, loop: asyncio.AbstractEventLoop) -> None:
        with self._lock:
            index = self._indexes.get(loop)
            concerned = index.route(event) if index is not None else ()
        for listener in concerned:
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

    def _want(self, listener: _Listener, interest: Interest) -> None:
        with self._lock:
            index = self._indexes.get(listener.loop)
            if index is not None:
                index.change(listener, interest)

    @contextlib.asynccontextmanager
    async def listen(self, interest: Interest | None = None) -> AsyncIterator[Listening]:
        """Register a listener for ``interest`` (None: every event) during the ``async with`` block."""
        listener = _Listener(asyncio.get_running_loop(), get_setting("MCP_STREAM_BUFFER"))
        with self._lock:
            self._listeners.add(listener)
            self._indexes.setdefault(listener.loop, Index()).add(listener, interest)
        try:
            yield Listening(listener, functools.partial(self._want, listener))
        finally:
            with self._lock:
                self._listeners.discard(listener)
                index = self._indexes.get(listener.loop)
                if index is not None:
                    index.discard(listener)
                    if not index:
                        del self._indexes[listener.loop]


class Listening:
    """The events of one listener, as an async iterator; ``want`` changes what it asked for."""

    __slots__ = ("_listener", "_want")

    def __init__(self, listener: _Listener, want: Callable[[Interest], None]) -> None:
        self._listener = listener
        self._want = want

    def __aiter__(self) -> Listening:
        return self

    async def __anext__(self) -> Event:
        item = await self._listener.queue.get()
        if isinstance(item, EventsLost):
            raise item
        return item

    def want(self, interest: Interest) -> None:
        """From now on, receive the events of ``interest`` (call it on the listener's loop)."""
        self._want(interest)
