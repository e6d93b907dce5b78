"""What every cross-process event backend must do, checked by each backend's own tests.

Each function takes two backends of the kind under test, as two worker
processes would hold them (``publisher`` announces, ``listener`` holds the
streams), and asserts.
"""

from __future__ import annotations

import asyncio
from typing import Any

from django_mcp.events import Event, Interest


async def a_subscribe_routes_later_updates_to_the_sessions_stream(
    publisher: Any, listener: Any, *, wait: float
) -> None:
    """A legacy session's stream gets a resource's updates once a subscribe event for it came, not before."""
    subscribed = Event("", "subscribed", "demo://new", session="s-1")
    update = Event("app.mcp.Server", "resource_updated", "demo://new/item")
    async with listener.listen(Interest("app.mcp.Server", session="s-1")) as events:
        publisher.publish(update)  # not yet subscribed: not for this stream
        publisher.publish(subscribed)
        publisher.publish(update)
        received = [await asyncio.wait_for(anext(events), wait) for _ in range(2)]
    assert received == [subscribed, update]
