"""Event backends standing in for a broker that fails, for in-process tests.

Test modules import them as ``from tests.fake_backends import ...`` and put
them in place with ``monkeypatch.setattr(subscriptions, "get_backend", ...)``.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Final

from django_mcp.events import Event, EventBackend, EventsUnavailable, Interest

RETRY_AFTER: Final = 7
"""Seconds ``DownBackend`` says to wait before listening again."""


class DownBackend(EventBackend):
    """An event backend that cannot deliver at all (its broker is down)."""

    @contextlib.asynccontextmanager
    async def listen(self, interest: Interest | None = None) -> AsyncIterator[AsyncIterator[Event]]:
        """Refuse to listen."""
        raise EventsUnavailable("the broker is down", retry_after=RETRY_AFTER)
        yield  # pragma: no cover - makes this an async generator
