"""2025-11-25 sessions: their state, where it lives, and what waits on them.

A legacy client opens a session with ``initialize`` (``lifecycle.py``
negotiates it). Its state (the negotiated version, the client's
capabilities and info, the level ``logging/setLevel`` chose, the resource
subscriptions) is a ``SessionState``:

* ``LegacySession`` keeps it in a Django cache (``MCP_SESSION_CACHE``) for
  ``MCP_SESSION_TIMEOUT`` idle seconds, under a random ``Mcp-Session-Id``,
  so any HTTP worker can serve the session; an unknown, deleted or another
  server's id, or a session opened by another caller (user), loads as None
  (the transport answers 404). Changes take the session's lock
  (``cache.add()`` of ``django_mcp:session-lock:<id>``), so concurrent
  requests on any worker never lose one, and a deleted session stays
  deleted. What the client may make it store is bounded
  (``MCP_MAX_SESSION_SIZE``, see ``stored_size``).
* ``LocalSession`` is the one session of a STDIO process, in memory.

``SessionStreams`` allows one GET stream per session (2025-11-25
transports: a message goes to one stream).

Server-to-client requests (sampling, elicitation, roots for legacy clients)
wait in ``PendingRequests`` for the client's answer, in the process that
sent them; ``LegacyCalls`` finds a request in flight by session and id so
``notifications/cancelled`` can stop it.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import secrets
import threading
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any, Final, TypeGuard

from django.core.cache import caches

from django_mcp._sync import sync_or_async
from django_mcp.dispatcher.codec import encoded_size
from django_mcp.events import session_subscriptions_changed
from django_mcp.exceptions import InvalidParams, SessionBusy

__all__ = [
    "ClientRequestFailed",
    "LegacyCalls",
    "LegacySession",
    "LocalSession",
    "PendingRequests",
    "SessionState",
    "SessionStreams",
    "StreamClaim",
    "stored_size",
]

logger = logging.getLogger(__name__)

_PREFIX: Final = "django_mcp:session:"
_LOCK_PREFIX: Final = "django_mcp:session-lock:"
_STREAM_PREFIX: Final = "django_mcp:session-stream:"
_LOCK_TIMEOUT: Final = 5  # seconds a lock outlives a holder that never released it
_LOCK_WAIT: Final = 6.0  # seconds to wait for a lock: past its timeout


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
        self._announce(uri, subscribed=True)

    async def unsubscribe(self, uri: str) -> None:
        """Stop the notifications for ``uri``."""
        if uri in self.subscriptions:
            self.subscriptions.remove(uri)
            await self.save()
        self._announce(uri, subscribed=False)

    def _announce(self, uri: str, *, subscribed: bool) -> None:
        # The session's stream reads the session only when it starts: a
        # change reaches it as an event, from whichever process served it.
        session_id = getattr(self, "id", None)
        if session_id is not None:
            session_subscriptions_changed(session_id, uri, subscribed=subscribed)

    async def save(self) -> None:
        """Persist a change (nothing to do for an in-memory session)."""


@dataclasses.dataclass(slots=True)
class LocalSession(SessionState):
    """The one 2025-11-25 session of a STDIO process, kept in memory."""

    #: Names the session in its (un)subscribe events: random, as processes may share a backend.
    id: str = dataclasses.field(default_factory=lambda: secrets.token_hex(16))


@dataclasses.dataclass(slots=True, kw_only=True)
class LegacySession(SessionState):
    """A 2025-11-25 HTTP session, stored in a Django cache.

    Every change is a read-modify-write of the stored state under the
    session's lock, and never stores a session that is gone: a request that
    loaded the session before a DELETE cannot bring it back.
    """

    id: str
    server: str
    #: Who opened it (``"user:<pk>"``, or None for an anonymous caller);
    #: anyone else gets None from ``load`` (an unknown session).
    owner: str | None = None
    cache_alias: str = dataclasses.field(default="default", compare=False, repr=False)
    timeout: int = dataclasses.field(default=3600, compare=False, repr=False)  # idle seconds
    #: Bytes the stored state may take (``MCP_MAX_SESSION_SIZE``); None: unbounded.
    max_size: int | None = dataclasses.field(default=None, compare=False, repr=False)

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
        owner: str | None = None,
        cache_alias: str = "default",
        timeout: int = 3600,
        max_size: int | None = None,
    ) -> LegacySession:
        """Start and store a new session with a cryptographically random id."""
        cache = cls._cache(cache_alias)
        while True:
            session = cls(
                id=secrets.token_hex(16),
                server=server,
                version=version,
                capabilities=capabilities,
                client_info=client_info,
                owner=owner,
                cache_alias=cache_alias,
                timeout=timeout,
                max_size=max_size,
            )
            # add(), not set(): a new session never overwrites a stored one.
            if await sync_or_async(cache.add, cache.aadd, _PREFIX + session.id, session._state(), timeout):
                return session

    @classmethod
    async def load(
        cls,
        session_id: str,
        *,
        server: str,
        owner: str | None = None,
        cache_alias: str = "default",
        timeout: int = 3600,
        max_size: int | None = None,
    ) -> LegacySession | None:
        """Return the stored session, or None if unknown, expired, another server's or owner's."""
        cache = cls._cache(cache_alias)
        data = await sync_or_async(cache.get, cache.aget, _PREFIX + session_id)
        if not _belongs(data, server, owner):
            return None
        # Every request of a session renews it: the timeout is an idle one.
        await sync_or_async(cache.touch, cache.atouch, _PREFIX + session_id, timeout)
        return cls(**data, cache_alias=cache_alias, timeout=timeout, max_size=max_size)

    def _state(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "server": self.server,
            "owner": self.owner,
            "version": self.version,
            "capabilities": self.capabilities,
            "client_info": self.client_info,
            "log_level": self.log_level,
            "subscriptions": self.subscriptions,
        }

    async def set_log_level(self, level: str) -> None:
        """Remember the minimum log level the client wants (logging/setLevel)."""

        def change(data: dict[str, Any]) -> bool:
            data["log_level"] = level
            return True

        await self._change(change)

    async def subscribe(self, uri: str) -> None:
        """Send ``notifications/resources/updated`` for ``uri`` from now on.

        Raises:
            InvalidParams: the subscriptions would exceed ``max_size``.
        """

        def change(data: dict[str, Any]) -> bool:
            subscriptions = data["subscriptions"]
            if uri in subscriptions:
                return False
            size = stored_size(data["capabilities"], data["client_info"], [*subscriptions, uri])
            if self.max_size is not None and size > self.max_size:
                raise InvalidParams(
                    f"Invalid params: the session's subscriptions would exceed MCP_MAX_SESSION_SIZE "
                    f"({self.max_size} bytes)"
                )
            subscriptions.append(uri)
            return True

        await self._change(change)
        self._announce(uri, subscribed=True)

    async def unsubscribe(self, uri: str) -> None:
        """Stop the notifications for ``uri``."""

        def change(data: dict[str, Any]) -> bool:
            if uri not in data["subscriptions"]:
                return False
            data["subscriptions"].remove(uri)
            return True

        await self._change(change)
        self._announce(uri, subscribed=False)

    async def save(self) -> None:
        """Store this object's state, renewing the idle timeout, unless the session is gone."""

        def change(data: dict[str, Any]) -> bool:
            data.update(self._state())
            return True

        await self._change(change)

    async def delete(self) -> None:
        """End the session (under its lock, so no change in flight can store it again)."""
        cache = self._cache(self.cache_alias)
        try:
            async with _locked(cache, self.id):
                await cache.adelete(_PREFIX + self.id)
        except SessionBusy:
            # A holder that outlived the lock's timeout: ending wins anyway.
            await cache.adelete(_PREFIX + self.id)

    async def _change(self, change: Callable[[dict[str, Any]], bool]) -> None:
        """Apply ``change`` to the stored state under the session's lock.

        ``change`` edits the state in place and returns whether to store it.
        A session deleted (or replaced) since it was loaded is left alone:
        re-checking under the lock is what keeps a DELETE final.
        """
        cache = self._cache(self.cache_alias)
        key = _PREFIX + self.id
        async with _locked(cache, self.id):
            data = await cache.aget(key)
            if not _belongs(data, self.server, self.owner):
                logger.debug("Session %s ended during a change; not stored again", self.id)
                return
            data = {**data, "subscriptions": list(data.get("subscriptions") or ())}
            if change(data):
                await cache.aset(key, data, self.timeout)
        self.log_level = data.get("log_level")
        self.subscriptions = data["subscriptions"]


def stored_size(capabilities: Any, client_info: Any, subscriptions: Sequence[str] = ()) -> int:
    """Return the bytes a session's client-chosen state takes as JSON.

    This is what ``MCP_MAX_SESSION_SIZE`` bounds: the capabilities and
    client info from ``initialize``, and the subscribed URIs.
    """
    state: dict[str, Any] = {"capabilities": capabilities, "clientInfo": client_info}
    if subscriptions:
        state["subscriptions"] = list(subscriptions)
    return encoded_size(state)


def _belongs(data: Any, server: str, owner: str | None) -> TypeGuard[dict[str, Any]]:
    return isinstance(data, dict) and data.get("server") == server and data.get("owner") == owner


@contextlib.asynccontextmanager
async def _locked(cache: Any, session_id: str) -> AsyncIterator[None]:
    """Hold the session's lock: a ``cache.add()`` of a key only one holder can add.

    ``add()`` is atomic on the local-memory, Redis, Memcached and database
    caches (not on the file-based one). The lock expires after
    ``_LOCK_TIMEOUT`` seconds, so a crashed holder cannot block the session;
    waiting gives up with ``SessionBusy`` a little after that.
    """
    key = _LOCK_PREFIX + session_id
    token = secrets.token_hex(8)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + _LOCK_WAIT
    delay = 0.001
    while not await cache.aadd(key, token, _LOCK_TIMEOUT):
        if loop.time() >= deadline:
            raise SessionBusy()
        await asyncio.sleep(delay)
        delay = min(delay * 2, 0.02)
    try:
        yield
    finally:
        # Release only our own lock: after a timeout another holder may have it.
        if await cache.aget(key) == token:
            await cache.adelete(key)


class SessionStreams:
    """The open GET streams of 2025-11-25 sessions: at most one per session.

    A message goes to one stream only (2025-11-25 transports), so a second
    GET is refused while the first is open. Exact within the process; across
    processes best effort through a cache key (``django_mcp:session-stream:``
    and the id) that the open stream renews and removes when it ends.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._open: dict[str, StreamClaim] = {}

    async def claim(self, session_id: str, *, cache_alias: str, lifetime: int) -> StreamClaim | None:
        """Return the session's stream slot, or None when a stream holds it.

        ``lifetime`` (seconds) is how long the cross-process mark survives
        without ``StreamClaim.renew()``.
        """
        claim = StreamClaim(self, session_id, caches[cache_alias], lifetime)
        with self._lock:
            if session_id in self._open:
                return None
            self._open[session_id] = claim
        try:
            taken = await claim.cache.aadd(claim.key, claim.token, lifetime)
        except BaseException:
            self._forget(claim)
            raise
        if not taken:
            self._forget(claim)
            return None
        return claim

    def end(self, session_id: str) -> None:
        """Tell the session's open stream in this process, if any, to end."""
        with self._lock:
            claim = self._open.get(session_id)
        if claim is not None:
            claim.end()

    def _forget(self, claim: StreamClaim) -> None:
        with self._lock:
            if self._open.get(claim.session_id) is claim:
                del self._open[claim.session_id]


class StreamClaim:
    """One open GET stream's hold on its session (see ``SessionStreams``)."""

    __slots__ = ("_loop", "_released", "_streams", "cache", "ended", "key", "lifetime", "session_id", "token")

    def __init__(self, streams: SessionStreams, session_id: str, cache: Any, lifetime: int) -> None:
        self._streams = streams
        self._loop = asyncio.get_running_loop()
        self._released = False
        self.session_id = session_id
        self.cache = cache
        self.key = _STREAM_PREFIX + session_id
        self.lifetime = lifetime  # seconds
        self.token = secrets.token_hex(8)
        #: Set when the stream must end (its session was deleted).
        self.ended = asyncio.Event()

    def __repr__(self) -> str:
        return f"StreamClaim(session_id={self.session_id!r})"

    def end(self) -> None:
        """Ask the stream to end (from any thread)."""
        if not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self.ended.set)

    async def renew(self) -> None:
        """Keep the cross-process mark alive while the stream is open."""
        if not await self.cache.atouch(self.key, self.lifetime):
            await self.cache.aadd(self.key, self.token, self.lifetime)

    def release(self) -> None:
        """Free the slot (sync: the response's ``close()`` runs in a thread)."""
        self._streams._forget(self)
        if not self._released:
            self._released = True
            try:
                if self.cache.get(self.key) == self.token:
                    self.cache.delete(self.key)
            except Exception:  # an unreachable cache: the mark expires by itself
                logger.warning(
                    "Could not remove the stream mark of session %s", self.session_id, exc_info=True
                )

    async def arelease(self) -> None:
        """Free the slot from the event loop."""
        self._streams._forget(self)
        if not self._released:
            self._released = True
            try:
                if await self.cache.aget(self.key) == self.token:
                    await self.cache.adelete(self.key)
            except Exception:  # an unreachable cache: the mark expires by itself
                logger.warning(
                    "Could not remove the stream mark of session %s", self.session_id, exc_info=True
                )


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
        # Under WSGI the answering request runs in another thread, on a loop
        # of its own: complete the future on the loop it belongs to.
        if error is not None:
            _on_its_loop(future, future.set_exception, ClientRequestFailed(error))
        else:
            _on_its_loop(future, future.set_result, result)
        return True

    def cancel_all(self, session_id: str) -> None:
        """Cancel every request of ``session_id`` still waiting (its client is gone)."""
        for (session, _request_id), future in list(self._futures.items()):
            if session == session_id:
                _on_its_loop(future, future.cancel)


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
        _on_its_loop(task, task.cancel)
        return True


def _on_its_loop(future: asyncio.Future[Any], act: Callable[..., Any], *args: Any) -> None:
    """Run ``act(*args)`` on the loop ``future`` belongs to: now if that is this thread's."""
    loop = future.get_loop()
    try:
        here = asyncio.get_running_loop()
    except RuntimeError:
        here = None
    if loop is here:
        act(*args)
    elif not loop.is_closed():
        loop.call_soon_threadsafe(_unless_done, future, act, *args)


def _unless_done(future: asyncio.Future[Any], act: Callable[..., Any], *args: Any) -> None:
    if not future.done():
        act(*args)


class ClientRequestFailed(Exception):
    """The client answered a server-to-client request with an error."""

    def __init__(self, error: Any) -> None:
        self.error = error
        super().__init__("client returned an error")

    def __repr__(self) -> str:
        return f"ClientRequestFailed(error={self.error!r})"
