"""The interface every change-notification backend implements."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any

from django.core.checks import CheckMessage

if TYPE_CHECKING:
    from django_mcp.events import Event

__all__ = ["EventBackend"]


class EventBackend:
    """Carry events from publishers to the streams listening in any process."""

    def publish(self, event: Event) -> None:
        """Deliver ``event`` to every listener; callable from sync or async code."""
        raise NotImplementedError

    def listen(self) -> AbstractAsyncContextManager[AsyncIterator[Event]]:
        """Return a context manager yielding an async iterator of events."""
        raise NotImplementedError

    def check(self, **kwargs: Any) -> list[CheckMessage]:
        """Return system check messages about this backend's configuration."""
        return []
