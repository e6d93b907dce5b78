"""The interface every change-notification backend implements.

A backend carries ``Event`` values from whoever announces a change to the
streams listening in any process. A listener's events arrive in order;
when a listener can no longer be given every event (it fell more than
``MCP_STREAM_BUFFER`` events behind, or the backend lost its connection),
its iterator raises ``EventsLost`` and the stream ends, so its client lists
again. ``listen()`` raises ``EventsUnavailable`` while the backend cannot
deliver at all.

A backend that spans processes may also carry small control messages to
the other processes (``forward``): a 2025-11-25 client's answer that reached
a worker other than the one waiting for it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any

from django.core.checks import CheckMessage

if TYPE_CHECKING:
    from django_mcp.events import Event
    from django_mcp.events._interest import Interest

__all__ = ["EventBackend", "EventsLost", "EventsUnavailable", "ForwardFailed"]


class _Failure(Exception):
    """An event backend failure, with the reason a log message shows."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(reason={self.reason!r})"


class EventsUnavailable(_Failure):
    """The backend cannot deliver events now (e.g. its broker is unreachable)."""

    def __init__(self, reason: str, *, retry_after: float = 1) -> None:
        super().__init__(reason)
        #: Seconds after which listening may succeed again.
        self.retry_after = retry_after


class EventsLost(_Failure):
    """A listener missed, or will miss, events: its stream must end."""


class ForwardFailed(_Failure):
    """A control message could not be handed to the other processes."""


class EventBackend:
    """Carry events from publishers to the streams listening in any process."""

    #: True when ``forward`` reaches other processes.
    forwards: bool = False

    def publish(self, event: Event) -> None:
        """Deliver ``event`` to every listener it concerns; callable from sync or async code."""
        raise NotImplementedError

    def listen(self, interest: Interest | None = None) -> AbstractAsyncContextManager[AsyncIterator[Event]]:
        """Return a context manager yielding an async iterator of events.

        The iterator yields the events ``interest`` names (None: every
        event); a backend may yield more (its streams filter again), never
        fewer. When it offers ``want(interest)``, a stream calls it to
        change what it asked for. Entering it may raise
        ``EventsUnavailable``; the iterator may raise ``EventsLost``.
        """
        raise NotImplementedError

    async def forward(self, message: Mapping[str, Any]) -> bool:
        """Offer ``message`` to the other processes; return True once one took it.

        False means every process that received it declined it. Raises
        ``ForwardFailed`` when that cannot be known (the broker is
        unreachable, a process did not reply in time). The in-process
        backend has no other process: always False.
        """
        return False

    async def receive_forwarded(self) -> None:
        """Make sure this process receives messages other processes forward."""

    def check(self, **kwargs: Any) -> list[CheckMessage]:
        """Return system check messages about this backend's configuration."""
        return []
