"""2025-11-25 sessions, kept in Django's cache so any worker can serve them.

A legacy client opens a session with ``initialize``; the server mints a
random ``Mcp-Session-Id`` (visible ASCII) and stores the negotiated version,
the client's capabilities and info, the log level set by
``logging/setLevel`` and the resource subscriptions in the cache alias
``MCP_SESSION_CACHE`` for ``MCP_SESSION_TIMEOUT`` idle seconds. Unknown or
deleted ids are answered with 404 so the client re-initializes.

Server-to-client requests (sampling, elicitation, roots for legacy clients)
wait for the client's answer in this process: the POST that carries the
answer must reach the worker holding the request's stream (sticky routing
for legacy clients only; the 2026-07-28 protocol needs none).
"""

from __future__ import annotations

import asyncio
import dataclasses
import secrets
from typing import Any

from django.core.cache import caches

from django_mcp.conf import get_setting

__all__ = ["LegacySession", "PendingRequests", "pending"]

_PREFIX = "django_mcp:session:"


@dataclasses.dataclass(slots=True)
class LegacySession:
    """The state of one 2025-11-25 session."""

    id: str
    server: str
    version: str
    capabilities: dict[str, Any]
    client_info: dict[str, Any] | None = None
    log_level: str | None = None
    subscriptions: list[str] = dataclasses.field(default_factory=list)

    @staticmethod
    def _cache() -> Any:
        return caches[get_setting("MCP_SESSION_CACHE")]

    @classmethod
    async def create(
        cls, *, server: str, version: str, capabilities: dict[str, Any], client_info: dict[str, Any] | None
    ) -> LegacySession:
        """Start and store a new session with a cryptographically random id."""
        session = cls(
            id=secrets.token_hex(16),
            server=server,
            version=version,
            capabilities=capabilities,
            client_info=client_info,
        )
        await session.save()
        return session

    @classmethod
    async def load(cls, session_id: str, *, server: str) -> LegacySession | None:
        """Return the stored session, or None if unknown, expired or another server's."""
        cache = cls._cache()
        data = await cache.aget(_PREFIX + session_id)
        if not isinstance(data, dict) or data.get("server") != server:
            return None
        # Every request of a session renews it: the timeout is an idle one.
        await cache.atouch(_PREFIX + session_id, get_setting("MCP_SESSION_TIMEOUT"))
        return cls(**data)

    async def save(self) -> None:
        """Store the session, renewing its idle timeout."""
        await self._cache().aset(
            _PREFIX + self.id, dataclasses.asdict(self), get_setting("MCP_SESSION_TIMEOUT")
        )

    async def delete(self) -> None:
        """End the session."""
        await self._cache().adelete(_PREFIX + self.id)

    async def set_log_level(self, level: str) -> None:
        """Remember the minimum log level the client wants (logging/setLevel)."""
        self.log_level = level
        await self.save()

    async def subscribe(self, uri: str) -> None:
        """Subscribe to change notifications for ``uri``."""
        if uri not in self.subscriptions:
            self.subscriptions.append(uri)
            await self.save()

    async def unsubscribe(self, uri: str) -> None:
        """Stop change notifications for ``uri``."""
        if uri in self.subscriptions:
            self.subscriptions.remove(uri)
            await self.save()


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


class ClientRequestFailed(Exception):
    """The client answered a server-to-client request with an error."""

    def __init__(self, error: Any) -> None:
        self.error = error
        super().__init__("client returned an error")

    def __repr__(self) -> str:
        return f"ClientRequestFailed(error={self.error!r})"


#: The process-wide registry of waiting server-to-client requests.
pending = PendingRequests()
