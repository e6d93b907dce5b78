"""2025-11-25 sessions: their state, where it lives, and what waits on them.

A legacy client opens a session with ``initialize`` (``lifecycle.py``
negotiates it). Its state (the negotiated version, the client's
capabilities and info, the level ``logging/setLevel`` chose, the resource
subscriptions) is a ``SessionState``:

* ``LegacySession`` keeps it in a Django cache (``MCP_SESSION_CACHE``) for
  ``MCP_SESSION_TIMEOUT`` idle seconds, under a random ``Mcp-Session-Id``,
  so any HTTP worker can serve the session; an unknown, deleted or another
  server's id loads as None (the transport answers 404).
* ``LocalSession`` is the one session of a STDIO process, in memory.

Server-to-client requests (sampling, elicitation, roots for legacy clients)
wait in ``PendingRequests`` for the client's answer, in the process that
sent them; ``LegacyCalls`` finds a request in flight by session and id so
``notifications/cancelled`` can stop it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import secrets
from typing import Any

from django.core.cache import caches

from django_mcp.dispatcher.subscriptions import watches

__all__ = [
    "ClientRequestFailed",
    "LegacyCalls",
    "LegacySession",
    "LocalSession",
    "PendingRequests",
    "SessionState",
]

_PREFIX = "django_mcp:session:"


@dataclasses.dataclass(slots=True)
class SessionState:
    """What a 2025-11-25 session remembers between requests."""

    version: str
    capabilities: dict[str, Any]
    client_info: dict[str, Any] | None = None
    log_level: str | None = None
    subscriptions: list[str] = dataclasses.field(default_factory=list)

    async def set_log_level(self, level: str) -> None:
        """Remember the minimum log level the client wants (logging/setLevel)."""
        self.log_level = level
        await self.save()

    async def subscribe(self, uri: str) -> None:
        """Send ``notifications/resources/updated`` for ``uri`` from now on."""
        if uri not in self.subscriptions:
            self.subscriptions.append(uri)
            await self.save()

    async def unsubscribe(self, uri: str) -> None:
        """Stop the notifications for ``uri``."""
        if uri in self.subscriptions:
            self.subscriptions.remove(uri)
            await self.save()

    def watches(self, uri: str) -> bool:
        """Return True when ``uri`` or a parent of it is subscribed."""
        return watches(self.subscriptions, uri)

    async def save(self) -> None:
        """Persist a change (nothing to do for an in-memory session)."""


@dataclasses.dataclass(slots=True)
class LocalSession(SessionState):
    """The one 2025-11-25 session of a STDIO process, kept in memory."""


@dataclasses.dataclass(slots=True, kw_only=True)
class LegacySession(SessionState):
    """A 2025-11-25 HTTP session, stored in a Django cache."""

    id: str
    server: str
    cache_alias: str = dataclasses.field(default="default", compare=False, repr=False)
    timeout: int = dataclasses.field(default=3600, compare=False, repr=False)  # idle seconds

    @staticmethod
    def _cache(alias: str = "default") -> Any:
        return caches[alias]

    @classmethod
    async def create(
        cls,
        *,
        server: str,
        version: str,
        capabilities: dict[str, Any],
        client_info: dict[str, Any] | None,
        cache_alias: str = "default",
        timeout: int = 3600,
    ) -> LegacySession:
        """Start and store a new session with a cryptographically random id."""
        session = cls(
            id=secrets.token_hex(16),
            server=server,
            version=version,
            capabilities=capabilities,
            client_info=client_info,
            cache_alias=cache_alias,
            timeout=timeout,
        )
        await session.save()
        return session

    @classmethod
    async def load(
        cls, session_id: str, *, server: str, cache_alias: str = "default", timeout: int = 3600
    ) -> LegacySession | None:
        """Return the stored session, or None if unknown, expired or another server's."""
        cache = cls._cache(cache_alias)
        data = await cache.aget(_PREFIX + session_id)
        if not isinstance(data, dict) or data.get("server") != server:
            return None
        # Every request of a session renews it: the timeout is an idle one.
        await cache.atouch(_PREFIX + session_id, timeout)
        return cls(**data, cache_alias=cache_alias, timeout=timeout)

    async def save(self) -> None:
        """Store the session, renewing its idle timeout."""
        data = {
            "id": self.id,
            "server": self.server,
            "version": self.version,
            "capabilities": self.capabilities,
            "client_info": self.client_info,
            "log_level": self.log_level,
            "subscriptions": self.subscriptions,
        }
        await self._cache(self.cache_alias).aset(_PREFIX + self.id, data, self.timeout)

    async def delete(self) -> None:
        """End the session."""
        await self._cache(self.cache_alias).adelete(_PREFIX + self.id)


class PendingRequests:
    """Server-to-client requests of this process waiting for their answers."""

    def __init__(self) -> None:
        self._futures: dict[tuple[str, str], asyncio.Future[Any]] = {}

    def new_id(self) -> str:
        """Return a fresh id for a server-to-client request."""
        return f"django-mcp-{secrets.token_hex(8)}"

    def expect(self, session_id: str, request_id: str) -> asyncio.Future[Any]:
        """Return the future that ``resolve`` will complete for this request."""
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._futures[(session_id, request_id)] = future
        future.add_done_callback(lambda _f: self._futures.pop((session_id, request_id), None))
        return future

    def resolve(self, session_id: str, request_id: Any, *, result: Any = None, error: Any = None) -> bool:
        """Complete a waiting request with the client's answer; False if unknown."""
        future = self._futures.get((session_id, str(request_id)))
        if future is None or future.done():
            return False
        if error is not None:
            future.set_exception(ClientRequestFailed(error))
        else:
            future.set_result(result)
        return True


class LegacyCalls:
    """2025-11-25 requests in flight in this process, by session and request id."""

    def __init__(self) -> None:
        self._tasks: dict[tuple[str, str], asyncio.Future[Any]] = {}

    def add(self, session_id: str, request_id: Any, task: asyncio.Future[Any]) -> None:
        """Track ``task`` until it is done."""
        key = (session_id, str(request_id))
        self._tasks[key] = task
        task.add_done_callback(lambda _t: self._tasks.pop(key, None))

    def cancel(self, session_id: str, request_id: Any) -> bool:
        """Cancel a request in flight (``notifications/cancelled``); False if unknown."""
        task = self._tasks.get((session_id, str(request_id)))
        if task is None:
            return False
        task.cancel()
        return True


class ClientRequestFailed(Exception):
    """The client answered a server-to-client request with an error."""

    def __init__(self, error: Any) -> None:
        self.error = error
        super().__init__("client returned an error")

    def __repr__(self) -> str:
        return f"ClientRequestFailed(error={self.error!r})"
