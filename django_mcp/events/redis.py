"""Redis event backend: change notifications across every worker process.

``MCP_EVENT_BACKEND = "django_mcp.events.redis.RedisEventBackend"`` with
``MCP_REDIS_URL`` (default ``redis://127.0.0.1:6379/0``); needs the ``redis``
extra (``pip install django-mcp-toolkit[redis]``). Publishing sends one
Redis PUBLISH on the ``django_mcp:events`` channel. Each process keeps one
subscription per event loop and fans events out to its local listeners, so
a thousand open streams cost one Redis connection, not a thousand.
Delivery is at-most-once, like MCP notifications themselves: a worker that
is down misses events, and clients re-list on reconnect.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

import msgspec
from django.core.checks import CheckMessage, Error

from django_mcp.conf import get_setting
from django_mcp.events.base import EventBackend
from django_mcp.events.memory import MemoryEventBackend

if TYPE_CHECKING:
    from django_mcp.events import Event

__all__ = ["CHANNEL", "RedisEventBackend"]

logger = logging.getLogger(__name__)

CHANNEL = "django_mcp:events"


class RedisEventBackend(EventBackend):
    """Publish through Redis; deliver to this process's listeners."""

    def __init__(self) -> None:
        self.url: str = get_setting("MCP_REDIS_URL")
        self._local = MemoryEventBackend()
        self._lock = threading.Lock()
        self._pumps: dict[asyncio.AbstractEventLoop, asyncio.Task[None]] = {}
        self._sync_client: Any = None

    # ------------------------------------------------------------ publish

    def publish(self, event: Event) -> None:
        """Send ``event`` to every process; never raises for a Redis outage."""
        payload = msgspec.json.encode([event.server, event.kind, event.uri])
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is None:
            try:
                self._client_sync().publish(CHANNEL, payload)
            except Exception:  # a notification is best effort; never break the caller
                logger.exception("Could not publish an MCP change event to Redis")
            return
        task = loop.create_task(self._publish_async(payload))
        task.add_done_callback(_log_failure)

    async def _publish_async(self, payload: bytes) -> None:
        import redis.asyncio

        client = redis.asyncio.Redis.from_url(self.url)
        try:
            await client.publish(CHANNEL, payload)
        finally:
            await client.aclose()

    def _client_sync(self) -> Any:
        if self._sync_client is None:
            import redis

            self._sync_client = redis.Redis.from_url(self.url, socket_timeout=2)
        return self._sync_client

    # ------------------------------------------------------------- listen

    @contextlib.asynccontextmanager
    async def listen(self) -> AsyncIterator[AsyncIterator[Event]]:
        """Listen to events from every process while the block runs."""
        await self._ensure_pump()
        async with self._local.listen() as events:
            yield events

    async def _ensure_pump(self) -> None:
        loop = asyncio.get_running_loop()
        with self._lock:
            pump = self._pumps.get(loop)
            if pump is not None and not pump.done():
                return
            ready = loop.create_future()
            self._pumps[loop] = loop.create_task(self._pump(ready))
        await asyncio.wait_for(ready, timeout=5)

    async def _pump(self, ready: asyncio.Future[None]) -> None:
        """Forward Redis messages to local listeners until the loop ends."""
        import redis.asyncio

        from django_mcp.events import Event

        client = redis.asyncio.Redis.from_url(self.url)
        pubsub = client.pubsub(ignore_subscribe_messages=True)
        try:
            await pubsub.subscribe(CHANNEL)
            if not ready.done():
                ready.set_result(None)
            async for message in pubsub.listen():
                try:
                    server, kind, uri = msgspec.json.decode(message["data"])
                    self._local.publish(Event(server, kind, uri))
                except (msgspec.DecodeError, ValueError, TypeError, KeyError):
                    logger.warning("Ignored a malformed MCP event on %s", CHANNEL)
        except Exception as exc:
            if not ready.done():
                ready.set_exception(exc)
            else:
                logger.exception("The MCP Redis event subscription stopped")
        finally:
            with contextlib.suppress(Exception):
                await pubsub.aclose()  # type: ignore[no-untyped-call]
                await client.aclose()

    # -------------------------------------------------------------- check

    def check(self, **kwargs: Any) -> list[CheckMessage]:
        """Report a missing ``redis`` package or a malformed URL."""
        try:
            import redis
        except ImportError:
            return [
                Error(
                    "RedisEventBackend needs the redis package.",
                    hint="pip install 'django-mcp-toolkit[redis]'",
                    id="django_mcp.E020",
                )
            ]
        try:
            redis.connection.parse_url(self.url)  # type: ignore[no-untyped-call]
        except ValueError as exc:
            return [
                Error(
                    f"MCP_REDIS_URL {self.url!r} is not a valid Redis URL: {exc}",
                    hint="Use redis://host:port/db or rediss://...",
                    id="django_mcp.E021",
                )
            ]
        return []


def _log_failure(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        logger.error("Could not publish an MCP change event to Redis", exc_info=task.exception())
